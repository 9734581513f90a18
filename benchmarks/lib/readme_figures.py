"""The README's performance figures, made from one benchmarks/run's results and nothing else.

The README marks each generated passage with a pair of comments:

    <!-- benchmarks/report: NAME -->
    ...
    <!-- end benchmarks/report: NAME -->

`benchmarks/report` rewrites what lies between them (`rewrite`); `benchmarks/report --check` says
whether the README still matches the results, which a test runs, so a figure typed by hand or left
behind by an older run is caught.
"""
import re


def _start(name):
    return f"<!-- benchmarks/report: {name} -->"


def _end(name):
    return f"<!-- end benchmarks/report: {name} -->"


def _ratio(value):
    return f"{value:.2f}"


def _when(cmp):
    date = cmp["machine"]["date"]
    return f"{date[:10]}, {date[11:16]} UTC"


def headline(bench, cmp, fmts):
    """The introduction's two bullets: thumbnails against vipsthumbnail, and the whole job."""
    summary = cmp["summary"]
    formats = ""
    if fmts:
        formats = "; " + ", ".join(f"{name.upper() if name != 'webp' else 'WebP'} {_ratio(ratio)}x"
                                   for name, ratio in fmts["medianRatio"].items())
    big = next(f for f in cmp["files"] if f["file"].startswith("j08"))
    e2e = cmp["endToEnd"]
    requests = e2e["oneObjectWarm"]["fileRequests"]
    warm = ("a warm hit costs one object request and no file request" if requests == 0
            else f"a warm hit costs one object request and {requests} file request(s)")
    return "\n".join([
        f"- a 256-px thumbnail of a JPEG takes {_ratio(summary['jpeg']['imgfetch']['toVipsthumbnail'])}x the time "
        f"of `vipsthumbnail` (PNG {_ratio(summary['png']['imgfetch']['toVipsthumbnail'])}x{formats}), at "
        f"{big['tools']['imgfetch']['peakRSSMiB']:.0f} MiB peak memory for a 30 MP photo;",
        f"- one Parse object, cold: {_ratio(e2e['oneObjectCold']['pipeline']['imgfetchRatio'])}x the time of "
        f"`curl` + `jq` + `curl` + `vipsthumbnail`; a whole class {_ratio(e2e['classCold']['pipeline']['imgfetchRatio'])}x; "
        f"{warm}",
        f"  (one `benchmarks/run`, {_when(cmp)}: [how it measures](benchmarks/README.md)).",
    ])


def _aggregate(bench, group, name):
    return next(a for a in bench["aggregates"] if a["group"] == group and a["name"] == name)


def performance(bench, cmp, fmts):
    """The Performance section: the table of ratios, the memory and decode figures, the chart."""
    m, summary, e2e = cmp["machine"], cmp["summary"], cmp["endToEnd"]
    batch = cmp["batchEqualCores"]
    rows = [
        ("256-px JPEG thumbnail ÷ vipsthumbnail (Pillow: "
         f"{_ratio(summary['jpeg']['Pillow']['toVipsthumbnail'])})", _ratio(summary["jpeg"]["imgfetch"]["toVipsthumbnail"])),
        ("256-px PNG thumbnail ÷ vipsthumbnail (Pillow: "
         f"{_ratio(summary['png']['Pillow']['toVipsthumbnail'])})", _ratio(summary["png"]["imgfetch"]["toVipsthumbnail"])),
    ]
    if fmts:
        names = [n.upper() if n != "webp" else "WebP" for n in fmts["medianRatio"]]
        rows.append((f"256-px {' / '.join(names)} thumbnail ÷ vipsthumbnail (median over the files)",
                     " / ".join(_ratio(r) for r in fmts["medianRatio"].values())))
    rows += [
        (f"batch on {batch['jpeg']['cores']} cores, images/s ÷ the best peer: {batch['jpeg']['images']} JPEG / "
         f"{batch['png']['images']} PNG",
         f"{_ratio(batch['jpeg']['imgfetchToBestPeer'])} / {_ratio(batch['png']['imgfetchToBestPeer'])}"),
        ("one 20 MP Parse object, cold, ÷ `curl`, `jq`, `curl`, `vipsthumbnail`",
         _ratio(e2e["oneObjectCold"]["pipeline"]["imgfetchRatio"])),
        (f"{e2e['classCold']['objects']} images as one class, cold, ÷ the same with `xargs -P2`",
         _ratio(e2e["classCold"]["pipeline"]["imgfetchRatio"])),
        ("the same object, warm (no file request) ÷ `curl` of the object JSON",
         _ratio(e2e["oneObjectWarm"]["curl"]["imgfetchRatio"])),
        ("`imgfetch verify` of a 32x32 PNG ÷ a C program decoding it with libpng",
         _ratio(cmp["startup"]["C"]["imgfetchRatio"])),
    ]
    big = next(f for f in cmp["files"] if f["file"].startswith("j08"))["tools"]
    lines = [
        f"One `benchmarks/run` ({_when(cmp)}, a shared {m['cores']}-core {m['cpu'].split('(')[0].strip()} VM, "
        f"Debian's {bench['libraries']}; ratios are what count). Method, upstream libraries, history: "
        "[benchmarks/README.md](benchmarks/README.md).",
        "",
        "| whole processes, alternating runs, medians | imgfetch ÷ the other |",
        "|---|---:|",
    ]
    lines += [f"| {label} | {value} |" for label, value in rows]
    no_draft = batch["jpeg"].get("imgfetchToPillowNoDraft")
    lines += [
        "",
        "The JPEG batch's best peer is Pillow, whose wheel bundles its own libjpeg-turbo, with an explicit "
        "`draft` that may decode a photo at a smaller DCT scale than imgfetch keeps for quality"
        + (f"; against Pillow's own `thumbnail()`, {_ratio(no_draft)}x." if no_draft else ".")
        + f" A 30 MP JPEG's thumbnail peaks at {big['imgfetch']['peakRSSMiB']:.0f} MiB (vipsthumbnail "
        f"{big['vipsthumbnail']['peakRSSMiB']:.0f}, Pillow {big['Pillow']['peakRSSMiB']:.0f}); decoding to pixels "
        f"runs at {_ratio(_aggregate(bench, 'jpeg', 'full-fresh')['ratio'])}x a C loop over libjpeg-turbo, "
        f"{_ratio(_aggregate(bench, 'png', 'full-fresh')['ratio'])}x over libpng (throughput, higher is faster).",
        "",
        "![imgfetch's ratios to the C libraries and its peers, from the same run](benchmarks/results/ratios.svg)",
    ]
    return "\n".join(lines)


def blocks(bench, cmp, fmts):
    """Every generated passage by name; the README holds each once."""
    return {"headline": headline(bench, cmp, fmts), "performance": performance(bench, cmp, fmts)}


def _pattern(name):
    return re.compile(re.escape(_start(name)) + r"\n(.*?)\n" + re.escape(_end(name)), re.S)


def rewrite(text, generated):
    """The README with each marked passage replaced; a missing or doubled marker is an error."""
    for name, body in generated.items():
        pattern = _pattern(name)
        if len(pattern.findall(text)) != 1:
            raise ValueError(f"the README must hold the passage '{name}' once between its markers")
        text = pattern.sub(lambda _: f"{_start(name)}\n{body}\n{_end(name)}", text)
    return text
