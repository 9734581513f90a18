#!/usr/bin/env python3
"""Writes the JPEG marker regression files of issue 30 (defects 3, 4 and 12) beside this script,
spliced from fixtures under Fixtures/images with the standard library only. README.md says what
each file is. Run it again after changing it: `python3 Fixtures/regressions/JPEGMarkers/make.py`."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(HERE, "..", "..", "images")


def segments(data):
    """(offset, marker code, total length) of each marker segment from SOI's end up to SOS."""
    at, found = 2, []
    while True:
        assert data[at] == 0xFF, "a fixture with bytes between its segments"
        code = data[at + 1]
        length = 2 + (data[at + 2] << 8 | data[at + 3])
        found.append((at, code, length))
        if code == 0xDA:
            return found
        at += length


def after_first_segment(data):
    """Where the first segment after SOI (APP0 in these fixtures) ends."""
    at, code, length = segments(data)[0]
    assert code == 0xE0
    return at + length


def before_sos(data):
    return segments(data)[-1][0]


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as out:
        out.write(data)


def main():
    sequential = open(os.path.join(IMAGES, "testorig.jpg"), "rb").read()
    progressive = open(os.path.join(IMAGES, "jpg-progressive.jpg"), "rb").read()
    gap = bytes(300_000)  # more than the engine's 256 KiB file window, and no FF in it
    for name, data in (("sequential", sequential), ("progressive", progressive)):
        cut = after_first_segment(data)
        write(f"gap-300000-zero-bytes-after-app0-{name}.jpg", data[:cut] + gap + data[cut:])
    # A DAC segment (arithmetic conditioning, DC table 0: L=0, U=1) in a Huffman file: libjpeg reads
    # and ignores it; the JPEG engine does not decode DAC and hands the decode back to libjpeg.
    cut = before_sos(sequential)
    write("dac-in-huffman-file.jpg", sequential[:cut] + bytes([0xFF, 0xCC, 0x00, 0x04, 0x00, 0x10]) + sequential[cut:])
    # One stray byte between SOI and APP0: djpeg warns "1 extraneous bytes before marker 0xe0".
    write("stray-byte-after-soi.jpg", sequential[:2] + b"\x42" + sequential[2:])
    write("soi-only.jpg", sequential[:2])
    write("soi-then-garbage.jpg", sequential[:2] + b"this is not a JPEG\n")


if __name__ == "__main__":
    main()
