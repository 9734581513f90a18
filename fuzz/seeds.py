#!/usr/bin/env python3
"""Writes a libFuzzer target's seed inputs into a directory (scripts/fuzz and scripts/fuzz-ci call it).

    python3 fuzz/seeds.py TARGET DIRECTORY [--max-bytes N]

Seeds are the project's fixtures of at most N bytes (default 65,536), put into the form the target
reads (each target's entry point says how it reads its input):

- FuzzJPEGEngine, FuzzPNGRows: the input's first byte (replaced by the format's signature before the
  decode) picks the options; each fixture goes in under a few of the control bytes below, taken in
  turn, so that every scale, pixel format and way of streaming starts from real files.
- FuzzInflate: the input but its last byte is raw DEFLATE data and the last byte picks the pieces and
  the output room: each stream (Fixtures/inflate, and the zlib data of every PNG fixture, without
  its wrapper) goes in with two of the control bytes below appended, taken in turn.
- FuzzStreaming: bytes 0-2 pick the options and the chunk sizes, the file follows them.
- FuzzWebP: the WebP files of Fixtures/formats (libwebp's test vectors, the project's own) of at
  most 24 KB, each under two of the control bytes below in its first byte (which the forced
  signature replaces).
- FuzzGIF: the GIF files of Fixtures/formats/gif (Pillow's) of at most 24 KB, each under two of the
  control bytes below in its first byte (which the forced signature replaces).
- FuzzHEIF: the HEIC and AVIF files of Fixtures/formats and Fixtures/color of at most 40 KB, each
  under two of the control bytes below in its first byte (which the forced box size replaces).
- FuzzColor: the input is an ICC profile (the .icc files of Fixtures/color).
- FuzzJPEGStructure: the input is the choices of the target's JPEG encoder, not a file: generated
  byte strings (a fixed pseudo-random sequence), each steering the encoder to some frame and script.
- FuzzResample: generated cases (taps, line lengths around the kernels' 16, paddings, weights, samples).
- the other targets: the files as they are.

Sources: Fixtures/images, Fixtures/hostile, Fixtures/progressive, Fixtures/png-rows,
Fixtures/regressions/Verdicts, every generated class under Fixtures/verdicts (multi-scan baselines
and their polyglots, chunks after the image data, data after the end), Fixtures/inflate,
fuzz/seeds/<target>. Fixtures/regressions/<target> is not copied: the scripts run it as it is.
Deterministic: the same fixtures give the same seeds.
"""
import argparse
import glob
import os
import struct
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# FuzzJPEGEngine's first byte: bits 0-1 format (source, rgba8, gray8, rgb8), bit 2 scale (1/8, 1/4),
# bit 3 last piece with appendLast, bit 4 the stream reads the file, bits 5-7 the largest piece
# (1, 3, 16, 100, 700, 4096 bytes, half, whole).
JPEG_ENGINE_CONTROLS = [
    0b000_0_1_0_00,  # source, 1/8, appendLast, bytes one at a time
    0b011_1_1_1_01,  # rgba8, 1/4, appendLast, reading the file, pieces up to 100 bytes
    0b101_0_0_0_10,  # gray8, 1/8, append only, pieces up to 4 KiB
    0b111_1_1_1_11,  # rgb8, 1/4, appendLast, reading the file, one piece
    0b110_1_0_1_00,  # source, 1/4, append only, reading the file, two pieces (up to half)
]
# FuzzPNGRows' first byte: bits 0-2 format (source, rgba8, rgb8, gray8, native; modulo 5), bit 3
# last piece with appendLast, bits 4, 5, 7 the largest piece, bit 6 CRCs left as they are.
PNG_ROWS_CONTROLS = [0x89, 0x00, 0x1A, 0xA3, 0xB4, 0xCC]
# FuzzInflate's last byte: modulo 4 the pieces (whole, bytes, random), bit 7 output rooms of
# 1 + (byte % 37) * 8 bytes.
INFLATE_CONTROLS = [0x00, 0x01, 0x02, 0x80, 0x85]
# FuzzWebP's first byte: bits 0-2 format (modulo 5), bits 3-4 scale (full, 1/2, 1/4, 1/8), bit 5
# appendLast, bits 6-7 the largest piece (1, 16, 700 bytes, half).
WEBP_CONTROLS = [0x00, 0x29, 0x52, 0x9B, 0xC4, 0xF8]
# FuzzGIF's first byte: as FuzzWebP's (a GIF is never scaled: the scale must change nothing).
GIF_CONTROLS = [0x00, 0x29, 0x52, 0x9B, 0xC4, 0xF8]
# FuzzHEIF's first byte: bits 0-2 format (modulo 5), bit 3 brand (heic, avif), bit 4 brand left as
# it is, bit 5 appendLast, bits 6-7 the largest piece (1, 16, 700 bytes, half).
HEIF_CONTROLS = [0x10, 0x31, 0x5A, 0x93, 0xD4, 0xF0]
# FuzzStreaming's first three bytes: options (modulo 5), then the chunk sizes' seed.
STREAMING_CONTROLS = [b"\x00\x12\x34", b"\x02\xab\xcd", b"\x03\x01\x00", b"\x04\x77\x00"]


def rotated(controls, index, count):
    """`count` of `controls` for the index-th file, in turn: every control byte starts from many
    files without every file going in under every one (the seeds stay a few hundred per target)."""
    return [controls[(index * count + k) % len(controls)] for k in range(count)]


def files(*patterns):
    found = []
    for pattern in patterns:
        found.extend(sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)))
    return [f for f in found if os.path.isfile(f)]


def webps():
    return files("Fixtures/formats/webp/*.webp", "Fixtures/formats/webp-made/*.webp", "Fixtures/regressions/FuzzWebP/*")


def heifs():
    return files("Fixtures/formats/heic/*.hei*", "Fixtures/formats/heic/*.hif", "Fixtures/formats/avif/*.avif",
                 "Fixtures/color/*.heic", "Fixtures/color/*.avif")


def pngs():
    return files("Fixtures/images/*.png", "Fixtures/hostile/*.png", "Fixtures/png-rows/*.png",
                 "Fixtures/regressions/Verdicts/*.png", "Fixtures/verdicts/**/*.png")


def jpegs():
    return files("Fixtures/images/*.jpg", "Fixtures/images/*.jpeg", "Fixtures/hostile/*.jpg",
                 "Fixtures/progressive/*.jpg", "Fixtures/regressions/Verdicts/*.jpg", "Fixtures/verdicts/**/*.jpg")


def zlib_data(png):
    """The raw DEFLATE data of a PNG's IDAT chunks (zlib's 2-byte header and Adler-32 removed)."""
    at, data = 8, b""
    while at + 12 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IDAT":
            data += png[at + 8:at + 8 + length]
        at += 12 + length
    if len(data) < 7:
        return None
    try:
        zlib.decompressobj().decompress(data)  # a stream that is not zlib's: leave it
    except zlib.error:
        return None
    return data[2:-4]


def seeds(target):
    """(name, bytes) pairs."""
    def read(path):
        with open(path, "rb") as f:
            return f.read()

    def named(path):
        return os.path.relpath(path, ROOT).replace("/", "_")

    if target == "FuzzJPEGEngine":
        for index, path in enumerate(jpegs()):
            data = read(path)
            for control in rotated(JPEG_ENGINE_CONTROLS, index, 3):
                yield f"{named(path)}~{control:02x}", bytes([control]) + data[1:]
    elif target == "FuzzPNGRows":
        for index, path in enumerate(pngs()):
            data = read(path)
            for control in rotated(PNG_ROWS_CONTROLS, index, 2):
                yield f"{named(path)}~{control:02x}", bytes([control]) + data[1:]
    elif target == "FuzzInflate":
        streams = [(named(p), read(p)) for p in files("Fixtures/inflate/*.deflate")]
        streams += [(named(p) + ".deflate", d) for p in pngs() for d in [zlib_data(read(p))] if d is not None]
        for index, (name, data) in enumerate(streams):
            for control in rotated(INFLATE_CONTROLS, index, 2):
                yield f"{name}~{control:02x}", data + bytes([control])
    elif target == "FuzzStreaming":
        for index, path in enumerate(pngs() + jpegs()):
            data = read(path)
            for control in rotated(STREAMING_CONTROLS, index, 2):
                yield f"{named(path)}~{control.hex()}", control + data
    elif target == "FuzzWebP":
        # At most 24 KB each (the campaigns' seed size): each input runs five paths, one of them a
        # byte at a time, so larger files would take CI's fixed run past its 10 seconds.
        small = [p for p in webps() if "/regressions/" not in p and os.path.getsize(p) <= 24000]
        for index, path in enumerate(small):
            data = read(path)
            for control in rotated(WEBP_CONTROLS, index, 2):
                yield f"{named(path)}~{control:02x}", bytes([control]) + data[1:]
    elif target == "FuzzGIF":
        small = [p for p in files("Fixtures/formats/gif/*.gif") if os.path.getsize(p) <= 24000]
        for index, path in enumerate(small):
            data = read(path)
            for control in rotated(GIF_CONTROLS, index, 2):
                yield f"{named(path)}~{control:02x}", bytes([control]) + data[1:]
    elif target == "FuzzHEIF":
        small = [p for p in heifs() if os.path.getsize(p) <= 40000]
        for index, path in enumerate(small):
            data = read(path)
            for control in rotated(HEIF_CONTROLS, index, 2):
                yield f"{named(path)}~{control:02x}", bytes([control]) + data[1:]
    elif target == "FuzzPNG":
        for path in pngs():
            yield named(path), read(path)
    elif target == "FuzzJPEG":
        for path in jpegs():
            yield named(path), read(path)
    elif target == "FuzzColor":  # ICC profiles, as they are (the input is the profile)
        for path in files("Fixtures/color/*.icc"):
            yield named(path), read(path)
    elif target == "FuzzResample":  # generated: tap counts, lengths around 16, every padding
        for taps in (1, 2, 3, 7, 24, 48):
            for count in (0, 1, 15, 16, 17, 100, 255):
                header = bytes([taps - 1, count, (taps * 5 + count) % 256, (taps + count) % 32])
                weights = b"".join(struct.pack("<h", (4096 * (t + 1) // taps) - (700 if t % 3 == 0 else 0))
                                   for t in range(taps))
                samples = bytes((i * 37 + taps) % 256 for i in range(61))
                yield f"resample-{taps}-taps-{count}", header + weights + samples
    elif target == "FuzzJPEGStructure":  # the encoder's choices: fixed pseudo-random strings
        state = 0x2545F491
        for index in range(48):
            choices = bytearray()
            for _ in range(16 + index * 5):
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                choices.append(state >> 16 & 0xFF)
            yield f"structure-{index:02d}", bytes(choices)
    elif target == "FuzzParseJSON":
        for path in files(f"fuzz/seeds/{target}/*"):
            yield named(path), read(path)
    else:  # FuzzProbe, FuzzThumbnail
        for path in pngs() + jpegs():
            yield named(path), read(path)
    for path in files(f"fuzz/seeds/{target}/*") if target != "FuzzParseJSON" else []:
        yield named(path), read(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target")
    parser.add_argument("directory")
    parser.add_argument("--max-bytes", type=int, default=65536)
    arguments = parser.parse_args()
    os.makedirs(arguments.directory, exist_ok=True)
    written = 0
    for name, data in seeds(arguments.target):
        if len(data) > arguments.max_bytes:
            continue
        with open(os.path.join(arguments.directory, name), "wb") as f:
            f.write(data)
        written += 1
    if written == 0:
        sys.exit(f"fuzz/seeds.py: no seeds for {arguments.target}")
    print(written)


if __name__ == "__main__":
    main()
