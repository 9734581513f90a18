#!/usr/bin/env python3
"""Loads pages of the served documentation site in headless Chromium and checks what renders.

usage: check-docs-pages.py SITE BASE_URL PROFILE_DIR

Each check names a page and what its rendered DOM (`chromium --dump-dom`, after the page's
scripts ran for up to 20 s of virtual time) must show. The expected title and summary of a DocC
page are read from the site's own render data (data/documentation/...json), so they follow the
source comments; what is checked is that the browser drew them.
"""
import html
import re
import subprocess
import sys

from lib.dochtml import title_and_abstract

MODULES = ["ImageCodecs", "ParseFetch", "Thumbnails", "ImageFetch"]


def normalise(text):
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def render(url, profile):
    """The DOM after the page's scripts ran: tags kept (for <h1>) and the visible body text."""
    result = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={profile}", "--virtual-time-budget=20000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        sys.exit(f"check-docs: chromium failed on {url} (exit {result.returncode}):\n{result.stderr[-2000:]}")
    dom = result.stdout
    body = re.sub(r"(?s)<(head|noscript|script|style)\b.*?</\1>", " ", dom)
    text = normalise(re.sub(r"<[^>]+>", " ", body))
    return dom, text


def main():
    site, base, profile = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    failures = []

    dom, text = render(base + "/", profile)
    for module in MODULES:
        if f'href="documentation/{module.lower()}/"' not in dom or module not in text:
            failures.append(f"index: no link to {module}")
    print(f"index: links to {', '.join(MODULES)}" if not failures else "index: FAILED")

    pages = ["documentation/imagefetch", "documentation/imagecodecs/imagedecoder",
             "documentation/imagefetch/imagefetcher"]
    for path in pages:
        title, summary = title_and_abstract(site, path)
        summary = normalise(summary)
        dom, text = render(f"{base}/{path}/", profile)
        headings = [normalise(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"(?s)<h1\b[^>]*>(.*?)</h1>", dom)]
        problems = []
        if title not in headings:
            problems.append(f"no <h1> {title!r} (headings: {headings})")
        if not summary or summary not in text:
            problems.append(f"summary not shown: {summary!r}")
        if problems:
            failures.append(f"{path}: " + "; ".join(problems))
            print(f"{path}: FAILED")
        else:
            print(f"{path}: {title} — {summary}")
    if failures:
        print("check-docs: the site does not render:", file=sys.stderr)
        for failure in failures:
            print("  " + failure, file=sys.stderr)
        sys.exit(1)
    print("check-docs: OK")


if __name__ == "__main__":
    main()
