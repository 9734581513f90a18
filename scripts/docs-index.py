#!/usr/bin/env python3
"""Writes the static site's index.html: a plain page (no JavaScript) linking each module's
documentation with its one-line abstract, read from the exported site's own data.

usage: docs-index.py SITE MODULE...
"""
import html
import os
import sys

from lib.dochtml import title_and_abstract


def main():
    site, modules = sys.argv[1], sys.argv[2:]
    rows = []
    for module in modules:
        _, abstract = title_and_abstract(site, f"documentation/{module.lower()}")
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
