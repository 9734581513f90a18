#!/usr/bin/env python3
"""Writes the consumer package that scripts/check-package builds.

usage: consumer-package.py CLONE DEST

CLONE is a clone of imgfetch tagged 1.0.0. DEST gets a package that depends on it by version and
holds, as one executable target each, every ```swift block of CLONE's README.md and of its DocC
articles (Sources/*/*.docc/*.md), written as they are. The README block that begins with
`// swift-tools-version` is the consumer's manifest: its `.package(url:…, from:…)` is pointed at
CLONE and 1.0.0, and the other blocks become targets with the same dependencies as its first
target. Without such a block, a manifest using the four library products is made up.
"""
import glob
import os
import re
import sys

PRODUCTS = ["ImageCodecs", "Thumbnails", "ParseFetch", "ImageFetch"]


def swift_blocks(path):
    """The ```swift blocks of a Markdown file, with the line each starts on."""
    blocks, current, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if current is None and line.strip() == "```swift":
                current, start = [], number + 1
            elif current is not None and line.strip() == "```":
                blocks.append((start, "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    if current is not None:
        sys.exit(f"{path}:{start}: a ```swift block is never closed")
    return blocks


def main():
    clone, dest = sys.argv[1], sys.argv[2]
    sources = [os.path.join(clone, "README.md")]
    sources += sorted(glob.glob(os.path.join(clone, "Sources", "*", "*.docc", "**", "*.md"), recursive=True))
    manifest, code = None, []
    for source in sources:
        for line, text in swift_blocks(source):
            where = f"{os.path.relpath(source, clone)}:{line}"
            if text.lstrip().startswith("// swift-tools-version"):
                if manifest is not None:
                    sys.exit(f"{where}: a second Package.swift block")
                manifest = (where, text)
            else:
                code.append((where, text))
    # Before the README had its Package.swift block, only the products were checked.
    if manifest is None:
        deps = ",\n".join(f'        .product(name: "{p}", package: "imgfetch")' for p in PRODUCTS)
        text = (
            "// swift-tools-version:6.0\nimport PackageDescription\n\nlet package = Package(\n"
            '  name: "Consumer",\n  dependencies: [.package(url: "file:///imgfetch", from: "1.0.0")],\n'
            f'  targets: [\n    .executableTarget(\n      name: "Consumer",\n      dependencies: [\n{deps}\n      ]),\n'
            "  ]\n)\n"
        )
        manifest = ("(generated)", text)
        code = [("(generated)", "".join(f"import {p}\n" for p in PRODUCTS) + 'print("imgfetch products")\n')]
    where, text = manifest
    text, count = re.subn(
        r'\.package\(\s*url:\s*"[^"]*",\s*from:\s*"[^"]*"\s*\)',
        f'.package(url: "file://{os.path.abspath(clone)}", from: "1.0.0")',
        text,
    )
    if count != 1:
        sys.exit(f"{where}: expected one .package(url: …, from: …) line, found {count}")
    first = re.search(r'\.executableTarget\(\s*name:\s*"([^"]+)"', text)
    if not first:
        sys.exit(f"{where}: the manifest has no .executableTarget(name: …) for the first block")
    if not code:
        sys.exit("no ```swift blocks to compile")
    names = [first.group(1)] + [f"Block{i}" for i in range(2, len(code) + 1)]
    extra = ", ".join(f'"{n}"' for n in names[1:])
    text += (
        "\n// Added by scripts/consumer-package.py: one executable target per further ```swift block.\n"
        f"for name in [{extra}] as [String] {{\n"
        "  package.targets.append(.executableTarget(name: name, dependencies: package.targets[0].dependencies))\n"
        "}\n"
    )
    os.makedirs(dest)
    with open(os.path.join(dest, "Package.swift"), "w", encoding="utf-8") as f:
        f.write(text)
    for name, (where, body) in zip(names, code):
        os.makedirs(os.path.join(dest, "Sources", name))
        with open(os.path.join(dest, "Sources", name, "main.swift"), "w", encoding="utf-8") as f:
            f.write(f"// {where}\n{body}")
        print(f"{name}: {where}")


if __name__ == "__main__":
    main()
