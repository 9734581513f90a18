#!/usr/bin/env python3
"""Writes the static site's index.html: a plain page (no JavaScript) linking each module's
documentation with its one-line abstract, read from the exported site's own data.

usage: docs-index.py SITE MODULE...
"""
import html
import json
import os
import sys


def inline_text(items):
    """The text of DocC render-JSON inline content (text, code voice, emphasis, links)."""
    out = []
    for item in items or []:
        kind = item.get("type")
        if kind == "text":
            out.append(item.get("text", ""))
        elif kind == "codeVoice":
            out.append(item.get("code", ""))
        elif "inlineContent" in item:
            out.append(inline_text(item["inlineContent"]))
        elif kind == "reference":
            out.append(item.get("identifier", "").rsplit("/", 1)[-1])
    return "".join(out)


def main():
    site, modules = sys.argv[1], sys.argv[2:]
    rows = []
    for module in modules:
        path = os.path.join(site, "data", "documentation", f"{module.lower()}.json")
        with open(path, encoding="utf-8") as f:
            page = json.load(f)
        abstract = inline_text(page.get("abstract"))
        rows.append(
            f'    <li><a href="documentation/{module.lower()}/"><code>{html.escape(module)}</code></a>: '
            f"{html.escape(abstract)}</li>"
        )
    with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as f:
        f.write(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n"
            "  <title>imgfetch documentation</title>\n</head>\n<body>\n  <h1>imgfetch documentation</h1>\n"
            "  <p>Four library products, each usable alone; <code>ImageFetch</code> brings the other three.</p>\n"
            "  <ul>\n" + "\n".join(rows) + "\n  </ul>\n"
            '  <p>All modules on one page: <a href="documentation/">documentation/</a>.</p>\n'
            "</body>\n</html>\n"
        )


if __name__ == "__main__":
    main()
