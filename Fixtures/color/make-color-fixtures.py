#!/usr/bin/env python3
"""Builds colorgen.c (lcms2, libjpeg, libpng through pkg-config) and makes the colour fixtures.

    Fixtures/color/make-color-fixtures.py                  this folder's photos and profiles
    Fixtures/color/make-color-fixtures.py SOURCE.jpg WIDTH OUT   one photo in every space, into OUT
                                                            (the benchmark harness: full-size corpus photos)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build(work):
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lcms2", "libjpeg", "libpng"],
                           check=True, capture_output=True, text=True).stdout.split()
    binary = os.path.join(work, "colorgen")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(HERE, "colorgen.c")] + flags + ["-lm"], check=True)
    return binary


def main():
    with tempfile.TemporaryDirectory() as work:
        binary = build(work)
        if len(sys.argv) == 4:
            os.makedirs(sys.argv[3], exist_ok=True)
            subprocess.run([binary, "photo", sys.argv[1], sys.argv[2], sys.argv[3]], check=True)
            return
        subprocess.run([binary, "profiles", HERE], check=True)
        source = os.path.join(ROOT, "Fixtures", "images", "Landscape_1.jpg")
        subprocess.run([binary, "photo", source, "288", HERE], check=True)


if __name__ == "__main__":
    main()
