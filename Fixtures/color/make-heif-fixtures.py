#!/usr/bin/env python3
"""Makes the HEIF colour fixtures from the photos beside this script, with Debian's heif-enc
(libheif-examples 1.15: x265 for HEIC, libaom for AVIF):

- display-p3.heic: display-p3.png (Display P3 numbers) with its ICC profile (HEIF `colr prof`);
- display-p3-nclx.avif: the same numbers with no profile, described by an nclx box instead:
  primaries 12 (Display P3), transfer 13 (sRGB), matrix 6, full range;
- bt2020-pq.avif: reference.png (sRGB) as an HDR picture: its linear light in BT.2020 primaries,
  diffuse white at 203 cd/m² (BT.2408), PQ-encoded in 10 bits 4:2:2 (libaom asserts on 10-bit 4:2:0
  and 4:4:4 through heif-enc 1.15), nclx 9/16/6 full range.

  python3 Fixtures/color/make-heif-fixtures.py     (writes the three files here)
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))


def read_png(path):
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("heif_references", os.path.join(HERE, "..", "..", "scripts", "heif-references"))
    spec = importlib.util.spec_from_loader("heif_references", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.read_png(path)


def write_png(path, width, height, depth, samples):
    """An RGB PNG of 8- or 16-bit samples, no ancillary chunks (so no profile)."""
    raw = bytearray()
    per_row = width * 3
    for y in range(height):
        raw.append(0)
        row = samples[y * per_row : (y + 1) * per_row]
        raw += bytes(row) if depth == 8 else struct.pack(">%dH" % per_row, *row)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def srgb_to_linear(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


# BT.709 to BT.2020 primaries, linear light (BT.2087).
TO_2020 = [[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]


def pq_encode(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = max(0.0, nits / 10000)
    return ((c1 + c2 * y ** m1) / (1 + c3 * y ** m1)) ** m2


def heif_enc(args):
    subprocess.run(["heif-enc"] + args, check=True, capture_output=True)


def set_nclx(path, primaries, transfer, matrix):
    """heif-enc 1.15 writes the colr box's nclx as 2/2/6 (unspecified) whatever its nclx options
    say: the codes are set here, in place (same size), full range kept."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"colrnclx")
    assert at > 0 and data.find(b"colrnclx", at + 1) < 0, f"{path}: not one nclx box"
    data[at + 8 : at + 14] = struct.pack(">HHH", primaries, transfer, matrix)
    with open(path, "wb") as f:
        f.write(data)


def main():
    with tempfile.TemporaryDirectory() as scratch:
        heif_enc(["-q", "95", os.path.join(HERE, "display-p3.png"), "-o", os.path.join(HERE, "display-p3.heic")])
        width, height, _, _, p3 = read_png(os.path.join(HERE, "display-p3.png"))
        bare = os.path.join(scratch, "p3-bare.png")
        write_png(bare, width, height, 8, p3)
        nclx_p3 = os.path.join(HERE, "display-p3-nclx.avif")
        heif_enc(["-A", "-q", "95", bare, "-o", nclx_p3])
        set_nclx(nclx_p3, 12, 13, 6)
        width, height, _, _, srgb = read_png(os.path.join(HERE, "reference.png"))
        pq = []
        for i in range(0, len(srgb), 3):
            linear = [srgb_to_linear(srgb[i + c] / 255) for c in range(3)]
            wide = [sum(TO_2020[r][c] * linear[c] for c in range(3)) for r in range(3)]
            pq += [round(pq_encode(v * 203) * 65535) for v in wide]
        hdr = os.path.join(scratch, "pq16.png")
        write_png(hdr, width, height, 16, pq)
        pq_file = os.path.join(HERE, "bt2020-pq.avif")
        heif_enc(["-A", "-q", "95", "-b", "10", "-p", "chroma=422", hdr, "-o", pq_file])
        set_nclx(pq_file, 9, 16, 6)


if __name__ == "__main__":
    main()
