#!/usr/bin/env python3
"""Fails, listing them, when a public symbol declared in Sources/<Module> has no `///` summary.

usage: docs-summaries.py GRAPHS_DIR MODULE...

Reads GRAPHS_DIR/<Module>.symbols.json and GRAPHS_DIR/<Module>@*.symbols.json (from
`swift build -Xswiftc -emit-symbol-graph`, public symbols only). Members that the compiler
synthesises, and those inherited from other modules' protocols, are not declared in our sources
and are not asked for.
"""
import glob
import json
import os
import sys


def main():
    graphs, modules = sys.argv[1], sys.argv[2:]
    missing = []
    counted = 0
    for module in modules:
        files = [os.path.join(graphs, f"{module}.symbols.json")]
        files += sorted(glob.glob(os.path.join(graphs, f"{module}@*.symbols.json")))
        for path in files:
            with open(path, encoding="utf-8") as f:
                graph = json.load(f)
            for symbol in graph.get("symbols", []):
                uri = symbol.get("location", {}).get("uri", "")
                if f"/Sources/{module}/" not in uri:
                    continue
                counted += 1
                lines = [line.get("text", "") for line in symbol.get("docComment", {}).get("lines", [])]
                if not lines or not lines[0].strip():
                    where = uri.split(f"/Sources/", 1)[1]
                    line = symbol["location"].get("position", {}).get("line", 0) + 1
                    title = ".".join(symbol.get("pathComponents", [])) or symbol["names"]["title"]
                    missing.append(f"Sources/{where}:{line}: {title}")
    if missing:
        print(f"{len(missing)} public symbols without a summary line:", file=sys.stderr)
        for item in sorted(set(missing)):
            print("  " + item, file=sys.stderr)
        sys.exit(1)
    print(f"{counted} public symbols in {', '.join(modules)}: each has a summary")


if __name__ == "__main__":
    main()
