#!/usr/bin/env python3
"""Makes the hostile and damaged images in this folder (made by this project, same licence as the code).

Each file exercises one defence of the decoders; README.md in this folder lists what each must do.
Run from anywhere: python3 make_hostile.py  (standard library only; output is deterministic).
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind, data, bad_crc=False):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    if bad_crc:
        crc ^= 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def ihdr(width, height, depth=8, color=2):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0))


def gradient_idat(width, height):
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in ((x * 7 + y * 3) % 256, (x * 5) % 256, (y * 11) % 256))
                    for y in range(height))
    return chunk(b"IDAT", zlib.compress(rows, 9))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    w, h = 16, 8
    pixels = gradient_idat(w, h)
    iend = chunk(b"IEND", b"")
    # Reference: the same pixels with nothing unusual.
    write("clean-rgb-16x8.png", SIGNATURE + ihdr(w, h) + pixels + iend)
    # Damage confined to ancillary chunks: the pixels are complete, so these must decode.
    write("broken-text-crc.png", SIGNATURE + ihdr(w, h) + chunk(b"tEXt", b"Comment\x00hello", bad_crc=True) + pixels + iend)
    write("broken-iccp-zlib.png", SIGNATURE + ihdr(w, h) + chunk(b"iCCP", b"icc\x00\x00" + b"not zlib data at all") + pixels + iend)
    write("broken-ztxt-zlib.png", SIGNATURE + ihdr(w, h) + chunk(b"zTXt", b"Comment\x00\x00" + b"\xff" * 40) + pixels + iend)
    # Decompression bombs in ancillary chunks: 200 MB of zeros in a few hundred kilobytes.
    bomb = zlib.compress(b"\x00" * (200 * 1024 * 1024), 9)
    write("iccp-bomb.png", SIGNATURE + ihdr(w, h) + chunk(b"iCCP", b"bomb\x00\x00" + bomb) + pixels + iend)
    write("ztxt-bomb.png", SIGNATURE + ihdr(w, h) + chunk(b"zTXt", b"bomb\x00\x00" + bomb) + pixels + iend)
    # A header promising 65535x65535 RGBA (16 GiB of pixels) with a tiny IDAT: rejected from the header.
    write("huge-65535x65535.png", SIGNATURE + ihdr(65535, 65535, 8, 6) + chunk(b"IDAT", zlib.compress(b"\x00" * 1024)) + iend)
    # Critical damage: must be rejected.
    write("idat-crc.png", SIGNATURE + ihdr(w, h) + pixels[:-4] + struct.pack(">I", 0) + iend)
    write("no-idat.png", SIGNATURE + ihdr(w, h) + iend)
    write("missing-iend.png", SIGNATURE + ihdr(w, h) + pixels)
    # A PNG whose name says JPEG: the format comes from the bytes.
    write("png-named.jpg", SIGNATURE + ihdr(w, h) + pixels + iend)


if __name__ == "__main__":
    main()
