#!/usr/bin/env python3
"""Loads pages of the served documentation site in headless Chromium and checks what renders.

usage: check-docs-pages.py SITE BASE_URL PROFILE_DIR

Each check names a page and what its rendered DOM (`chromium --dump-dom`, after the page's
scripts ran for up to 20 s of virtual time) must show. The expected title and summary of a DocC
page are read from the site's own render data (data/documentation/...json), so they follow the
source comments; what is checked is that the browser drew them.
"""
import html
import json
import os
import re
import subprocess
import sys

MODULES = ["ImageCodecs", "ParseFetch", "Thumbnails", "ImageFetch"]


def inline_text(items):
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


def page_data(site, path):
    with open(os.path.join(site, "data", path.strip("/") + ".json"), encoding="utf-8") as f:
        data = json.load(f)
    return data["metadata"]["title"], normalise(inline_text(data.get("abstract")))


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
        title, summary = page_data(site, path)
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
