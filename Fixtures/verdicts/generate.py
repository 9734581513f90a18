#!/usr/bin/env python3
"""Makes the cross-path verdict fixtures in this directory (see README.md for what each class is for).

    python3 Fixtures/verdicts/generate.py        (Python standard library only; deterministic output)

Every file here is made by this script, from nothing or from committed fixtures named below, so
the files are the project's own (same licence as the code). The JPEGs come from the small baseline
encoder below (forward DCT, quantization, Huffman coding: T.81 written out), because the classes
need scan layouts no ordinary encoder writes: a first scan carrying fewer components than the frame,
a component coded twice, entropy data after the end of the image.
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write(name, data):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def committed(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


# ---- PNG ----

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind, data, bad_crc=False):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    if bad_crc:
        crc ^= 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_parts(width, height, color=2, interlaced=False):
    """IHDR (and PLTE for a palette image), the IDAT, and IEND of a small test pattern."""
    channels = {0: 1, 2: 3, 3: 1, 6: 4}[color]
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 1 if interlaced else 0))
    before = [header]
    if color == 3:
        before.append(chunk(b"PLTE", bytes(v for i in range(16) for v in (i * 16, 255 - i * 16, (i * 40) % 256))))

    def sample(x, y, c):
        if color == 3:
            return (x * 3 + y * 5) % 16
        return (x * 37 + y * 71 + c * 101) % 256

    def rows(xs, ys):
        return b"".join(b"\x00" + bytes(sample(x, y, c) for x in xs for c in range(channels)) for y in ys)

    if interlaced:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        raw = b"".join(rows(range(x0, width, dx), range(y0, height, dy))
                       for x0, y0, dx, dy in passes if x0 < width and y0 < height)
    else:
        raw = rows(range(width), range(height))
    return before, chunk(b"IDAT", zlib.compress(raw, 9)), chunk(b"IEND", b"")


def png(width, height, color=2, interlaced=False, after_idat=(), trailing=b""):
    before, idat, iend = png_parts(width, height, color, interlaced)
    return PNG_SIGNATURE + b"".join(before) + idat + b"".join(after_idat) + iend + trailing


def png_classes():
    text = chunk(b"tEXt", b"Comment\x00after the image data")
    # Critical chunks after IDAT: libpng's full read (png_read_end with an info structure) refuses
    # an unknown critical chunk, a second PLTE, a second IHDR; a PLTE in a truecolour image after
    # the data is only out of place (a warning).
    write("chunks-after-idat/png-critical-unknown-after-idat.png", png(2, 4, after_idat=[chunk(b"ZZZZ", b"")]))
    write("chunks-after-idat/png-critical-unknown-with-data-after-idat.png", png(16, 8, after_idat=[chunk(b"ZZZZ", b"\x01\x02\x03\x04")]))
    write("chunks-after-idat/png-critical-unknown-after-idat-interlaced.png", png(16, 8, interlaced=True, after_idat=[chunk(b"ZZZZ", b"")]))
    write("chunks-after-idat/png-critical-unknown-after-idat-palette.png", png(16, 8, color=3, after_idat=[chunk(b"ZZZZ", b"")]))
    write("chunks-after-idat/png-critical-unknown-bad-crc-after-idat.png", png(16, 8, after_idat=[chunk(b"ZZZZ", b"", bad_crc=True)]))
    write("chunks-after-idat/png-critical-unknown-after-text-after-idat.png", png(16, 8, after_idat=[text, chunk(b"ZZZZ", b"")]))
    palette = png_parts(16, 8, color=3)[0][1]
    write("chunks-after-idat/png-second-plte-after-idat.png", png(16, 8, color=3, after_idat=[palette]))
    write("chunks-after-idat/png-plte-after-idat-truecolour.png", png(16, 8, after_idat=[palette]))
    write("chunks-after-idat/png-second-ihdr-after-idat.png", png(16, 8, after_idat=[png_parts(16, 8)[0][0]]))
    write("chunks-after-idat/png-idat-after-text-after-idat.png", png(16, 8, after_idat=[text, chunk(b"IDAT", b"")]))
    write("chunks-after-idat/png-idat-with-data-after-text-after-idat.png",
          png(16, 8, after_idat=[text, chunk(b"IDAT", zlib.compress(b"\x00" * 64))]))
    write("chunks-after-idat/png-idat-with-data-after-idat.png",
          png(16, 8, after_idat=[chunk(b"IDAT", zlib.compress(b"\x00" * 64))]))
    write("chunks-after-idat/png-empty-idat-after-idat.png", png(16, 8, after_idat=[chunk(b"IDAT", b"")]))
    write("chunks-after-idat/png-iend-with-data.png", png(16, 8)[:-12] + chunk(b"IEND", b"\x00\x00\x00\x00"))
    write("chunks-after-idat/png-iend-bad-crc.png", png(16, 8)[:-12] + chunk(b"IEND", b"", bad_crc=True))
    # Ancillary chunks after IDAT: known ones (text, time, the ones imgfetch reads: tRNS, iCCP,
    # eXIf, out of place or not), a private one, one with a bad CRC. None changes the verdict.
    write("chunks-after-idat/png-ancillary-unknown-after-idat.png", png(16, 8, after_idat=[chunk(b"prVt", b"private data")]))
    write("chunks-after-idat/png-text-after-idat.png", png(16, 8, after_idat=[text, chunk(b"tIME", b"\x07\xea\x0c\x01\x00\x00\x00")]))
    write("chunks-after-idat/png-trns-after-idat.png", png(16, 8, color=3, after_idat=[chunk(b"tRNS", b"\x00\x80")]))
    exif = b"II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00"
    write("chunks-after-idat/png-exif-after-idat.png", png(16, 8, after_idat=[chunk(b"eXIf", exif)]))
    profile = b"icc\x00\x00" + zlib.compress(b"\x00" * 128)
    write("chunks-after-idat/png-iccp-after-idat.png", png(16, 8, after_idat=[chunk(b"iCCP", profile)]))
    write("chunks-after-idat/png-text-bad-crc-after-idat.png", png(16, 8, after_idat=[chunk(b"tEXt", b"Comment\x00x", bad_crc=True)]))
    # After IEND: nothing is read, whatever it is.
    base = png(16, 8)
    write("after-the-end/png-after-iend-garbage.png", base + b"trailing bytes that are not a chunk")
    write("after-the-end/png-after-iend-zeros.png", base + b"\x00" * 4096)
    write("after-the-end/png-after-iend-second-png.png", base + png(2, 4, color=6))
    write("after-the-end/png-after-iend-chunk-header.png", base + b"\x00\x00\x00\x0dIH")
    write("after-the-end/png-after-iend-critical-chunk.png", base + chunk(b"ZZZZ", b""))
    write("after-the-end/png-after-iend-interlaced-garbage.png", png(16, 8, interlaced=True) + b"\xff" * 100)


# ---- JPEG: a small baseline encoder ----

ZIGZAG = sorted(((x, y) for y in range(8) for x in range(8)),
                key=lambda p: (p[0] + p[1], p[0] if (p[0] + p[1]) % 2 == 0 else p[1]))
ZIGZAG = [y * 8 + x for x, y in ZIGZAG]  # zigzag index -> natural index (row-major)

QUANT = [[4 + 2 * (i // 8 + i % 8) for i in range(64)], [6 + 3 * (i // 8 + i % 8) for i in range(64)]]
# Flat Huffman tables: every DC category 0-11 with a 4-bit code, every AC symbol (EOB, ZRL and
# run/size for sizes 1-10) with an 8-bit code. Valid canonical codes, none all ones.
DC_SYMBOLS = list(range(12))
AC_SYMBOLS = [0x00, 0xF0] + [run << 4 | size for run in range(16) for size in range(1, 11)]


def huffman_codes(length, symbols):
    return {symbol: (code, length) for code, symbol in enumerate(symbols)}


DC_CODES = huffman_codes(4, DC_SYMBOLS)
AC_CODES = huffman_codes(8, AC_SYMBOLS)
COSINES = [[math.cos((2 * x + 1) * u * math.pi / 16) for x in range(8)] for u in range(8)]


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def ycbcr(pixel):
    r, g, b = pixel
    return (0.299 * r + 0.587 * g + 0.114 * b,
            -0.168736 * r - 0.331264 * g + 0.5 * b + 128,
            0.5 * r - 0.418688 * g - 0.081312 * b + 128)


def blocks(image, width, height):
    """Per component, the quantized coefficients (zigzag order) of each 8x8 block, row by row."""
    planes = [[[ycbcr(image(x, y))[c] for x in range(width)] for y in range(height)] for c in range(3)]
    result = []
    for c, plane in enumerate(planes):
        table = QUANT[0 if c == 0 else 1]
        component = []
        for by in range(0, height, 8):
            for bx in range(0, width, 8):
                samples = [[plane[min(by + y, height - 1)][min(bx + x, width - 1)] - 128 for x in range(8)]
                           for y in range(8)]
                natural = []
                for v in range(8):
                    for u in range(8):
                        total = sum(samples[y][x] * COSINES[u][x] * COSINES[v][y] for y in range(8) for x in range(8))
                        scale = (math.sqrt(0.5) if u == 0 else 1) * (math.sqrt(0.5) if v == 0 else 1) / 4
                        natural.append(total * scale)
                component.append([int(round(natural[ZIGZAG[k]] / table[ZIGZAG[k]])) for k in range(64)])
        result.append(component)
    return result


class BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.bits = 0
        self.count = 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.bits = self.bits << 1 | (value >> i) & 1
            self.count += 1
            if self.count == 8:
                self.out.append(self.bits)
                if self.bits == 0xFF:
                    self.out.append(0)  # byte stuffing
                self.bits = self.count = 0

    def flush(self):
        while self.count:
            self.put(1, 1)  # pad with ones
        return bytes(self.out)


def category(value):
    return 0 if value == 0 else abs(value).bit_length()


def put_value(writer, value, size):
    writer.put(value if value >= 0 else value + (1 << size) - 1, size)


def entropy(coefficients, components):
    """The entropy-coded data of one scan over `components` (interleaved when more than one)."""
    writer = BitWriter()
    predictors = {c: 0 for c in components}
    for index in range(len(coefficients[0])):
        for c in components:
            block = coefficients[c][index]
            diff = block[0] - predictors[c]
            predictors[c] = block[0]
            code, length = DC_CODES[category(diff)]
            writer.put(code, length)
            put_value(writer, diff, category(diff))
            run = 0
            for k in range(1, 64):
                if block[k] == 0:
                    run += 1
                    continue
                while run > 15:
                    writer.put(*AC_CODES[0xF0])
                    run -= 16
                size = category(block[k])
                writer.put(*AC_CODES[run << 4 | size])
                put_value(writer, block[k], size)
                run = 0
            if run:
                writer.put(*AC_CODES[0x00])
    return writer.flush()


def jpeg_header(width, height):
    jfif = segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    dqt = segment(0xDB, b"".join(bytes([t]) + bytes(QUANT[t][ZIGZAG[k]] for k in range(64)) for t in range(2)))
    frame = struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1])
    sof = segment(0xC0, frame)

    def table(kind, number, length, symbols):
        counts = [0] * 16
        counts[length - 1] = len(symbols)
        return bytes([kind << 4 | number] + counts + symbols)

    dht = segment(0xC4, table(0, 0, 4, DC_SYMBOLS) + table(1, 0, 8, AC_SYMBOLS))
    return b"\xff\xd8" + jfif + dqt + sof + dht


def scan(coefficients, components):
    header = bytes([len(components)]) + b"".join(bytes([c + 1, 0x00]) for c in components) + b"\x00\x3f\x00"
    return segment(0xDA, header) + entropy(coefficients, components)


EOI = b"\xff\xd9"


def image_a(x, y):  # a smooth colour ramp
    return (x * 4, y * 4, 255 - (x + y) * 2)


def image_b(x, y):  # a different picture: red and blue squares
    return (230, 20, 20) if (x // 16 + y // 16) % 2 else (20, 20, 230)


def jpeg_classes():
    width = height = 64
    a = blocks(image_a, width, height)
    b = blocks(image_b, width, height)
    header = jpeg_header(width, height)
    baseline = header + scan(a, [0, 1, 2]) + EOI
    write("baseline/jpeg-baseline.jpg", baseline)
    write("baseline/jpeg-baseline-b.jpg", header + scan(b, [0, 1, 2]) + EOI)
    # Multi-scan baseline: the first scan carries fewer components than the frame, so libjpeg
    # buffers every scan up to EOI before it outputs a row.
    write("multiscan/jpeg-multiscan-baseline.jpg", header + scan(a, [0]) + scan(a, [1, 2]) + EOI)
    write("multiscan/jpeg-multiscan-three-scans.jpg", header + scan(a, [0]) + scan(a, [1]) + scan(a, [2]) + EOI)
    # The content-spoofing polyglot (issue 21): a multi-scan baseline whose last scan carries every
    # component, then, after its EOI, the entropy data of another picture and a second EOI.
    # libjpeg (and djpeg, Pillow) show picture A; anything that goes on decoding after the first
    # EOI shows picture B.
    multiscan = header + scan(a, [0]) + scan(a, [0, 1, 2]) + EOI
    write("multiscan/jpeg-multiscan-component-twice.jpg", multiscan)
    write("multiscan/jpeg-multiscan-polyglot.jpg", multiscan + entropy(b, [0, 1, 2]) + EOI)
    write("multiscan/jpeg-multiscan-then-second-jpeg.jpg", multiscan + header + scan(b, [0, 1, 2]) + EOI)
    write("multiscan/jpeg-multiscan-polyglot-two-scans.jpg",
          header + scan(a, [0]) + scan(a, [1, 2]) + EOI + entropy(b, [0, 1, 2]) + EOI)
    # A single-scan baseline followed by the same kind of payload.
    write("after-the-end/jpeg-baseline-then-entropy-and-eoi.jpg", baseline + entropy(b, [0, 1, 2]) + EOI)
    # After EOI: nothing is read, whatever it is.
    write("after-the-end/jpeg-after-eoi-garbage.jpg", baseline + b"trailing bytes that are not a marker")
    write("after-the-end/jpeg-after-eoi-zeros.jpg", baseline + b"\x00" * 4096)
    write("after-the-end/jpeg-after-eoi-second-jpeg.jpg", baseline + header + scan(b, [0, 1, 2]) + EOI)
    write("after-the-end/jpeg-after-eoi-marker.jpg", baseline + b"\xff\xc4\x7f\xff")
    write("after-the-end/jpeg-after-eoi-eoi.jpg", baseline + EOI)
    write("after-the-end/jpeg-after-eoi-sos.jpg", baseline + scan(b, [0, 1, 2]))
    # The same after EOI of committed JPEGs: progressive, restart markers, 4:2:0, gray.
    for name, path in [("progressive", "Fixtures/progressive/p420.jpg"),
                       ("progressive-gray", "Fixtures/progressive/pgray.jpg"),
                       ("restarts", "Fixtures/images/restarts.jpg"),
                       ("testorig", "Fixtures/images/testorig.jpg")]:
        original = committed(path)
        write("after-the-end/jpeg-after-eoi-%s-garbage.jpg" % name, original + b"\x00\x01\x02trailing\xff")
        write("after-the-end/jpeg-after-eoi-%s-second-jpeg.jpg" % name, original + baseline)


def scans(data):
    """(start, end) of the entropy-coded data of each scan of a JPEG, with its Ss (0: a DC scan)."""
    found = []
    position = 2
    while position < len(data) - 1 and data[position + 1] != 0xD9:
        length = struct.unpack(">H", data[position + 2:position + 4])[0]
        if data[position + 1] != 0xDA:
            position += 2 + length
            continue
        spectral_start = data[position + 5 + 2 * data[position + 4]]
        start = end = position + 2 + length
        while not (data[end] == 0xFF and data[end + 1] != 0 and not 0xD0 <= data[end + 1] <= 0xD7):
            end += 1
        found.append((start, end, spectral_start))
        position = end
    return found


def progressive_damage_classes():
    # Damage inside one AC scan of a progressive JPEG (40 bytes of FF 00, a run of one-bits no
    # Huffman code matches): libjpeg's full read says "bad Huffman code", corrupt. A decode that
    # skips the AC scans (a 1/8 thumbnail needs only the DC ones) must not accept the file.
    original = committed("Fixtures/progressive/p420.jpg")
    ac = [(start, end) for start, end, spectral_start in scans(original) if spectral_start > 0]
    for name, (start, end) in [("first", ac[0]), ("last", ac[-1])]:
        damaged = bytearray(original)
        middle = (start + end) // 2
        damaged[middle:middle + 40] = b"\xff\x00" * 20
        write("progressive-damage/jpeg-progressive-damaged-%s-ac-scan.jpg" % name, bytes(damaged))


if __name__ == "__main__":
    png_classes()
    jpeg_classes()
    progressive_damage_classes()
