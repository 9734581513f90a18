"""What the documentation scripts read from an exported DocC site: a page's render data and the
plain text of its inline content. Shared by docs-index.py (which writes the site's index page) and
check-docs-pages.py (which checks that Chromium draws what the data says)."""
import json
import os


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


def page_data(site, path):
    """The render data of the page at `path` (such as `documentation/imagefetch`) in `site`."""
    with open(os.path.join(site, "data", path.strip("/") + ".json"), encoding="utf-8") as f:
        return json.load(f)


def title_and_abstract(site, path):
    """A page's title and its one-line abstract, as plain text."""
    data = page_data(site, path)
    return data["metadata"]["title"], inline_text(data.get("abstract"))
