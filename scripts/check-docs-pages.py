#!/usr/bin/env python3
"""Loads pages of the served documentation site in headless Chromium and checks what renders.

usage: check-docs-pages.py SITE BASE_URL PROFILE_DIR

Each check names a page and what its rendered DOM (`chromium --dump-dom`, after the page's
scripts ran for up to 20 s of virtual time) must show. The expected title and summary of a DocC
page are read from the site's own render data (data/documentation/...json), so they follow the
source comments; what is checked is that the browser drew them.

Code blocks must not be cut off: every module page and article is loaded in a 1280-pixel-wide
window from a second server on 127.0.0.1 (the same files, with a measuring script added to each
HTML page it serves), and every <pre> must fit, it and each box around it up to <main>
(scrollWidth <= clientWidth), or wrap.
"""
import functools
import html
import http.server
import io
import json
import os
import re
import subprocess
import sys
import threading

from lib.dochtml import title_and_abstract

MODULES = ["ImageCodecs", "ParseFetch", "Thumbnails", "ImageFetch"]


def normalise(text):
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


WIDTH = 1280

# Added to every HTML page the measuring server sends: once the page has drawn its title, it writes
# what it measured of each <pre> into an element that --dump-dom then shows.
MEASURE = """<script>
setInterval(function () {
  if (!document.querySelector("main h1, h1")) return;
  var out = [];
  document.querySelectorAll("pre").forEach(function (pre) {
    // DocC lets a <pre> grow to its longest line inside a box that scrolls: measure the pre and
    // each box around it up to <main>, and report the first that is narrower than what it holds.
    var box = pre;
    for (var el = pre; el && el.tagName !== "MAIN" && el !== document.body; el = el.parentElement) {
      if (el.scrollWidth > el.clientWidth + 1) { box = el; break; }
    }
    out.push({scroll: box.scrollWidth, client: box.clientWidth,
              wraps: /wrap/.test(getComputedStyle(pre).whiteSpace),
              text: (pre.textContent.split("\\n").sort(function (a, b) { return b.length - a.length; })[0] || "").slice(0, 100)});
  });
  var node = document.getElementById("imgfetch-pre-widths") || document.createElement("script");
  node.id = "imgfetch-pre-widths"; node.type = "application/json";
  node.textContent = JSON.stringify({width: window.innerWidth, pres: out});
  document.body.appendChild(node);
}, 500);
</script>"""


class MeasuringHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site, with MEASURE added before </body> of every HTML page."""

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not path.endswith(".html") or not os.path.isfile(path):
            return super().send_head()
        with open(path, "rb") as f:
            body = f.read().replace(b"</body>", MEASURE.encode() + b"</body>", 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def pages_with_prose(site, modules):
    """Each module's landing page and its articles: the pages whose code blocks are ours."""
    pages = []
    for module in modules:
        pages.append(f"documentation/{module.lower()}")
        folder = os.path.join(site, "data", "documentation", module.lower())
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                if json.load(f).get("kind") == "article":
                    pages.append(f"documentation/{module.lower()}/{name[:-5]}")
    return pages


def check_code_widths(site, modules, profile):
    """Failures: every <pre> of every page with prose, at WIDTH pixels, that is cut off."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(MeasuringHandler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    failures = []
    try:
        for path in pages_with_prose(site, modules):
            dom, _ = render(f"{base}/{path}/", profile, width=WIDTH)
            found = re.search(r'<script id="imgfetch-pre-widths"[^>]*>(.*?)</script>', dom, re.S)
            if not found:
                failures.append(f"{path}: the page did not render (nothing measured)")
                continue
            measured = json.loads(html.unescape(found.group(1)))
            cut = [p for p in measured["pres"] if p["scroll"] > p["client"] + 1 and not p["wraps"]]
            for p in cut:
                failures.append(
                    f"{path}: a code block is cut off at {measured['width']} px "
                    f"({p['scroll']} px of text in {p['client']} px; about 75 characters fit), "
                    f"its longest line: {p['text']!r}")
            print(f"{path}: {len(measured['pres'])} code blocks, {len(cut)} cut off at {measured['width']} px")
    finally:
        server.shutdown()
    return failures


def render(url, profile, width=None):
    """The DOM after the page's scripts ran: tags kept (for <h1>) and the visible body text."""
    size = [f"--window-size={width},1000"] if width else []
    result = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={profile}", "--virtual-time-budget=20000", *size, "--dump-dom", url],
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
    failures += check_code_widths(site, MODULES, profile)
    if failures:
        print("check-docs: the site does not render as it should:", file=sys.stderr)
        for failure in failures:
            print("  " + failure, file=sys.stderr)
        sys.exit(1)
    print("check-docs: OK")


if __name__ == "__main__":
    main()
