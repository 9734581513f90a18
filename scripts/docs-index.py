#!/usr/bin/env python3
"""Writes the static site's index.html: a styled page (no JavaScript, no external resources)
linking each module's documentation with its one-line abstract and its articles, read from the
exported site's own data.

usage: docs-index.py SITE MODULE...
"""
import html
import json
import os
import sys

from lib.dochtml import title_and_abstract

STYLE = """
    :root { color-scheme: light dark; --accent: #0a66c2; --muted: #5f6368; --card: #f6f8fa;
            --line: #d0d7de; }
    @media (prefers-color-scheme: dark) {
      :root { --accent: #6cb6ff; --muted: #9aa0a6; --card: #161b22; --line: #30363d; }
    }
    body { margin: 0; font: 17px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
    header, main, footer { max-width: 52rem; margin: 0 auto; padding: 0 1.25rem; }
    header { padding-top: 3rem; }
    h1 { font-size: 2.2rem; margin: 0 0 .25rem; }
    header p { color: var(--muted); margin: 0 0 2rem; }
    ul.modules { list-style: none; padding: 0; display: grid; gap: 1rem;
                 grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); }
    ul.modules > li { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
                      padding: 1rem 1.25rem; }
    ul.modules h2 { font-size: 1.25rem; margin: 0 0 .4rem; }
    ul.modules p { margin: 0 0 .5rem; }
    ul.articles { margin: 0; padding-left: 1.1rem; font-size: .95rem; }
    a { color: var(--accent); text-decoration: none; }
    a:hover { text-decoration: underline; }
    code { font: .95em ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
    footer { color: var(--muted); font-size: .9rem; padding-top: 1rem; padding-bottom: 3rem; }
"""


def articles(site, module):
    """(title, path) of the module's articles, in the order of its landing page's Topics."""
    path = os.path.join(site, "data", "documentation", f"{module.lower()}.json")
    with open(path, encoding="utf-8") as f:
        page = json.load(f)
    found = []
    for section in page.get("topicSections", []):
        for identifier in section.get("identifiers", []):
            reference = page.get("references", {}).get(identifier, {})
            if reference.get("kind") == "article" or reference.get("role") == "article":
                found.append((reference.get("title", ""), reference.get("url", "")))
    return [(title, url.lstrip("/")) for title, url in found if title and url]


def main():
    site, modules = sys.argv[1], sys.argv[2:]
    cards = []
    for module in modules:
        _, abstract = title_and_abstract(site, f"documentation/{module.lower()}")
        links = "".join(
            f'<li><a href="{html.escape(url)}/">{html.escape(title)}</a></li>' for title, url in articles(site, module)
        )
        cards.append(
            f'      <li>\n        <h2><a href="documentation/{module.lower()}/"><code>{html.escape(module)}</code></a></h2>\n'
            f"        <p>{html.escape(abstract)}</p>\n"
            + (f'        <ul class="articles">{links}</ul>\n' if links else "")
            + "      </li>"
        )
    with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as f:
        f.write(
            '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
            '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"  <title>imgfetch documentation</title>\n  <style>{STYLE}  </style>\n</head>\n<body>\n"
            "  <header>\n    <h1>imgfetch documentation</h1>\n"
            "    <p>Fetch, validate, decode and thumbnail PNG and JPEG images from Parse Server, in Swift on Linux."
            " Four library products, each usable alone; <code>ImageFetch</code> brings the other three.</p>\n"
            "  </header>\n  <main>\n    <ul class=\"modules\">\n" + "\n".join(cards) + "\n    </ul>\n  </main>\n"
            '  <footer>All modules on one page: <a href="documentation/">documentation/</a>.</footer>\n'
            "</body>\n</html>\n"
        )


if __name__ == "__main__":
    main()
