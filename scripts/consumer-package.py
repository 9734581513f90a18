#!/usr/bin/env python3
"""Writes the consumer package that scripts/check-package builds.

usage: consumer-package.py CLONE DEST

CLONE is a clone of imgfetch whose branch `main` is the commit under test. DEST gets a package that
holds, as one executable target each, every ```swift block of CLONE's README.md and of its DocC
articles (Sources/*/*.docc/*.md), written as they are. The README block that begins with
`// swift-tools-version` is the consumer's manifest, as a user copies it: its one dependency line
must be exactly

    .package(url: "<the published URL>", branch: "main")

and only its URL is swapped, for CLONE's `file://` URL; any other form of the line (another
requirement, `from:`, `exact:`, a second .package) fails, so the README cannot show a line that
this check does not build. The other blocks become targets with the same dependencies as its
first target.
"""
import glob
import os
import re
import sys

# Where the repository is published: the URL the README's dependency line must name. Until a
# release tag exists the line follows branch main (README, "The library"); with the first tag,
# the README's line becomes `from: "X.Y.Z"`, and this line and scripts/check-package (which would
# then tag its clone X.Y.Z) change with it.
PUBLISHED_URL = "https://github.com/imgfetch/imgfetch.git"
EXPECTED_LINE = f'.package(url: "{PUBLISHED_URL}", branch: "main")'

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
    if manifest is None:
        sys.exit("README.md has no ```swift block beginning with // swift-tools-version (the manifest to copy)")
    where, text = manifest
    if not where.startswith("README.md:"):
        sys.exit(f"{where}: the Package.swift block belongs in README.md, where users copy it")
    lines = re.findall(r"\.package\([^)]*\)", text)
    if lines != [EXPECTED_LINE]:
        sys.exit(
            f"{where}: the manifest's dependency line must be exactly\n    {EXPECTED_LINE}\n"
            f"(what scripts/check-package builds, with only the URL pointed at the clone); found: {lines}"
        )
    built = f'.package(url: "file://{os.path.abspath(clone)}", branch: "main")'
    text = text.replace(EXPECTED_LINE, built)
    print(f"dependency line: {EXPECTED_LINE}")
    print(f"built as:        {built}")
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
