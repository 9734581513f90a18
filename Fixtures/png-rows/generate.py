#!/usr/bin/env python3
"""Writes the PNGs in this directory: every colour type and bit depth imgfetch's own image-data path
takes (8 and 16 bits, gray, gray+alpha, RGB, RGBA, palette with and without tRNS), every filter type
on every row pattern, odd widths, the image data split across many IDAT chunks (one of them empty,
the stream's end alone in the last), chunks after the image data, and more image data than the
path inflates at once; and the same interlaced (Adam7, `adam7-*`): every colour type and depth at
sizes 1x1 to 9x9 and one pixel wide or high (where some passes are empty), every filter type in
each pass. Deterministic: running it
again writes the same bytes. Python's standard library only (zlib, struct)."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def pixels(width, height, samples, depth, seed, noise=16):
    """Photo-like rows (smooth ramps plus a little noise), so every filter has something to predict."""
    state = seed
    rows = []
    maximum = (1 << depth) - 1
    for y in range(height):
        row = []
        for x in range(width):
            for s in range(samples):
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                value = (x * 7 + y * 5 + s * 40) * maximum // 400 + (state >> 16) % (maximum // noise + 1)
                row.append(min(maximum, value))
        rows.append(row)
    return rows


def filtered(rows, samples, depth, pattern):
    """Each row as bytes with the filter the pattern gives it (PNG spec 9.2)."""
    unit = samples * depth // 8
    out = bytearray()
    previous = None
    for y, row in enumerate(rows):
        raw = bytearray()
        for value in row:
            raw += value.to_bytes(depth // 8, "big")
        above = previous or bytearray(len(raw))
        kind = pattern[y % len(pattern)]
        line = bytearray()
        for i, byte in enumerate(raw):
            left = raw[i - unit] if i >= unit else 0
            up = above[i]
            corner = above[i - unit] if i >= unit else 0
            if kind == 0:
                predicted = 0
            elif kind == 1:
                predicted = left
            elif kind == 2:
                predicted = up
            elif kind == 3:
                predicted = (left + up) >> 1
            else:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predicted = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
            line.append((byte - predicted) & 0xFF)
        out.append(kind)
        out += line
        previous = raw
    return bytes(out)


# Adam7 (PNG spec 8.2): each pass's first column and row, and the steps between its pixels.
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def interlaced(rows, samples, depth, pattern):
    """The seven passes' reduced images one after the other, each filtered on its own (the row above
    a pass row is the previous row of the same pass); a pass with no pixels has no bytes at all.
    Pass p's row j gets the pattern's filter p + j, so that small passes see every filter type too."""
    out = b""
    for number, (x0, y0, dx, dy) in enumerate(ADAM7):
        reduced = []
        for row in rows[y0::dy]:
            picked = []
            for x in range(x0, len(row) // samples, dx):
                picked += row[x * samples : (x + 1) * samples]
            reduced.append(picked)
        if not reduced or not reduced[0]:
            continue
        rotated = pattern[number % len(pattern) :] + pattern[: number % len(pattern)]
        out += filtered(reduced, samples, depth, rotated)
    return out


def write(name, width, height, colour_type, depth, pattern, palette=None, alpha=None, idat_size=None, after=b"", noise=16,
          interlace=0):
    samples = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour_type]
    rows = pixels(width, height, samples, depth, seed=len(name), noise=noise)
    if colour_type == 3:
        rows = [[v % len(palette) for v in row] for row in rows]
    image_data = interlaced(rows, samples, depth, pattern) if interlace else filtered(rows, samples, depth, pattern)
    stream = zlib.compress(image_data, 9)
    assert stream[0] >> 4 == 7  # the full 32 KiB window
    data = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, interlace))
    if palette:
        data += chunk(b"PLTE", bytes(c for entry in palette for c in entry))
    if alpha:
        data += chunk(b"tRNS", bytes(alpha))
    if idat_size:
        pieces = [stream[i : i + idat_size] for i in range(0, len(stream) - 4, idat_size)]
        pieces.insert(1, b"")  # an empty IDAT among the others
        pieces[-1] = stream[(len(pieces) - 2) * idat_size : -4]
        pieces.append(stream[-4:])  # the Adler-32 alone
        data += b"".join(chunk(b"IDAT", p) for p in pieces)
    else:
        data += chunk(b"IDAT", stream)
    data += after + chunk(b"IEND", b"")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def de_bruijn(symbols, order):
    """Every sequence of `order` filter types once, consecutively (cyclically): a de Bruijn sequence."""
    sequence, a = [], [0] * (order + 1)

    def step(t, p):
        if t > order:
            if order % p == 0:
                sequence.extend(a[1 : p + 1])
        else:
            a[t] = a[t - p]
            step(t + 1, p)
            for j in range(a[t - p] + 1, symbols):
                a[t] = j
                step(t + 1, t)

    step(1, 1)
    return sequence


def wavefront_files(palette):
    """imgfetch undoes the filters of up to four consecutive rows together (imc_png_fast.c, the
    wavefront): rows whose filter types run through every combination of four (a de Bruijn sequence,
    625 rows, rotated per file so that the first row's filter varies), for every pixel size the path
    takes, at widths 1, 2, 3 and 13, heights that leave a group short at the end."""
    combinations = de_bruijn(5, 4)
    kinds = [("gray8", 0, 8), ("gray16", 0, 16), ("grayalpha8", 4, 8), ("grayalpha16", 4, 16), ("rgb8", 2, 8),
             ("rgba8", 6, 8), ("rgb16", 2, 16), ("rgba16", 6, 16), ("palette", 3, 8)]
    for index, (label, colour_type, depth) in enumerate(kinds):
        for number, width in enumerate((1, 2, 3, 13)):
            rotation = (index * 4 + number) * 7 % len(combinations)
            pattern = combinations[rotation:] + combinations[:rotation]
            height = len(pattern) + number  # 625 to 628 rows: the last group one to four rows
            write(f"wave-{label}-w{width}.png", width, height, colour_type, depth, pattern,
                  palette=palette if colour_type == 3 else None, noise=3)


def main():
    every = [0, 1, 2, 3, 4, 4, 3, 1, 2, 0, 4]
    palette = [((i * 37) % 256, (i * 91) % 256, (i * 53) % 256) for i in range(200)]
    for colour_type, depths in ((0, (8, 16)), (2, (8, 16)), (4, (8, 16)), (6, (8, 16))):
        for depth in depths:
            for kind in range(5):
                write(f"type{colour_type}-{depth}bit-filter{kind}.png", 37, 9, colour_type, depth, [kind])
            write(f"type{colour_type}-{depth}bit-mixed.png", 61, 23, colour_type, depth, every)
    for kind in range(5):
        write(f"palette-filter{kind}.png", 37, 9, 3, 8, [kind], palette=palette)
    write("palette-alpha-mixed.png", 61, 23, 3, 8, every, palette=palette, alpha=[(i * 17) % 256 for i in range(120)])
    write("rgb8-many-idats.png", 64, 40, 2, 8, every, idat_size=97)
    write("rgba16-many-idats.png", 33, 17, 6, 16, every, idat_size=61)
    write("rgb8-text-after-data.png", 20, 10, 2, 8, every, after=chunk(b"tEXt", b"Comment\x00after the image data"))
    write("gray8-one-column.png", 1, 30, 0, 8, every)
    write("rgba8-one-row.png", 50, 1, 6, 8, [4])
    # More image data than imgfetch inflates at once (256 KiB): rows carried over between pieces.
    write("rgb8-tall.png", 400, 700, 2, 8, every, noise=255)
    wavefront_files(palette)
    adam7_files(palette)


def adam7_files(palette):
    """Interlaced: every colour type and depth the path takes, at every size from 1x1 to 9x9 that
    empties some pass (1xN, Nx1, squares), larger ones with every filter type in each pass and many
    IDAT chunks, and one with more image data than the path inflates at once."""
    kinds = [("gray8", 0, 8), ("gray16", 0, 16), ("grayalpha8", 4, 8), ("grayalpha16", 4, 16), ("rgb8", 2, 8),
             ("rgba8", 6, 8), ("rgb16", 2, 16), ("rgba16", 6, 16), ("palette", 3, 8), ("palette-alpha", 3, 8)]
    sizes = [(1, 1), (1, 9), (9, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (3, 7), (10, 5)]
    every = [0, 1, 2, 3, 4, 4, 3, 1, 2, 0, 4]
    alpha = [(i * 17) % 256 for i in range(120)]
    for label, colour_type, depth in kinds:
        extra = {}
        if colour_type == 3:
            extra = {"palette": palette, "alpha": alpha if label == "palette-alpha" else None}
        for width, height in sizes:
            write(f"adam7-{label}-{width}x{height}.png", width, height, colour_type, depth, every, interlace=1, **extra)
        # Every pass at least five rows high: every filter type in each (the pattern is rotated per pass).
        write(f"adam7-{label}-mixed.png", 37, 45, colour_type, depth, [0, 1, 2, 3, 4], interlace=1,
              idat_size=53, **extra)
    write("adam7-rgb8-text-after-data.png", 20, 10, 2, 8, every, interlace=1,
          after=chunk(b"tEXt", b"Comment\x00after the image data"))
    # More than 256 KiB of image data, so passes 6 and 7 are inflated in several pieces.
    write("adam7-rgb8-tall.png", 300, 700, 2, 8, every, noise=255, interlace=1)


if __name__ == "__main__":
    main()
