#!/usr/bin/env python3
"""Writes the JPEG engine's scan regressions (README.md in this folder says what each is).

Python's standard library only: each file is put together segment by segment, its entropy-coded
data written bit by bit from the Huffman tables defined in it, so that every bit is the one the
README describes. Run from anywhere: python3 make.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def dqt_ones():
    """Quantization table 0: every quantizer 1 (a coefficient is its own dequantized value)."""
    return segment(0xDB, bytes([0x00]) + bytes([1] * 64))


def sof2_gray(width, height):
    return segment(0xC2, bytes([8]) + struct.pack(">HH", height, width) + bytes([1, 1, 0x11, 0]))


def dht(table_class, slot, codes_by_length):
    """codes_by_length: {length: [symbols]}, the canonical codes assigned in that order."""
    counts = bytes(len(codes_by_length.get(n, [])) for n in range(1, 17))
    symbols = bytes(s for n in range(1, 17) for s in codes_by_length.get(n, []))
    return segment(0xC4, bytes([table_class << 4 | slot]) + counts + symbols)


def canonical(codes_by_length):
    """{symbol: (code, length)} as T.81 Annex C assigns them."""
    codes, code = {}, 0
    for length in range(1, 17):
        for symbol in codes_by_length.get(length, []):
            codes[symbol] = (code, length)
            code += 1
        code <<= 1
    return codes


def sos(ss, se, ah, al, tables=0x00):
    return segment(0xDA, bytes([1, 1, tables, ss, se, ah << 4 | al]))


class Bits:
    def __init__(self):
        self.bits = []

    def put(self, value, length):
        self.bits += [(value >> (length - 1 - i)) & 1 for i in range(length)]

    def code(self, table, symbol):
        self.put(*table[symbol])

    def data(self):
        """Padded with 1 bits to a whole byte, FFs stuffed."""
        bits = self.bits + [1] * (-len(self.bits) % 8)
        out = bytearray()
        for i in range(0, len(bits), 8):
            byte = int("".join(map(str, bits[i : i + 8])), 2)
            out.append(byte)
            if byte == 0xFF:
                out.append(0x00)
        return bytes(out)


# The DC table: one code, '0', for a difference of size 0 (every DC is 0: mid-grey).
DC = {1: [0x00]}
# The AC table of the first scans: EOB '0', run 0 size 3 '10', run 0 size 4 '110'.
AC_FIRST = {1: [0x00], 2: [0x03], 3: [0x04]}
# The refinement's table: EOB1 '0', ZRL '10', EOB '110', then '11100' (run 1, a new coefficient)
# and '11101' (run 0, a new coefficient).
AC_REFINE = {1: [0x10], 2: [0xF0], 3: [0x00], 5: [0x11, 0x01]}


def zero_over_nonzero(width, refinement_bits):
    """A progressive grey image of width/8 blocks (height 8) with the scans of issue 30, defect 1:
    DC (all 0); AC 1-10 (all 0); AC 11 = 5; AC 11 again as a first scan with Al=13 and value 8,
    which libjpeg stores as 8 << 13 = 0 in 16 bits (a zero over the 5); a refinement of AC 11
    (Ah=13, Al=12) whose data is `refinement_bits` (a string of 0s and 1s)."""
    blocks = width // 8
    dc_table, first, refine = canonical(DC), canonical(AC_FIRST), canonical(AC_REFINE)
    out = bytearray(b"\xFF\xD8")
    out += dqt_ones() + sof2_gray(width, 8)
    out += dht(0, 0, DC) + dht(1, 0, AC_FIRST) + dht(1, 1, AC_REFINE)
    scan = Bits()
    for _ in range(blocks):
        scan.code(dc_table, 0x00)
    out += sos(0, 0, 0, 0) + scan.data()
    scan = Bits()
    for _ in range(blocks):
        scan.code(first, 0x00)
    out += sos(1, 10, 0, 0) + scan.data()
    scan = Bits()
    for _ in range(blocks):
        scan.code(first, 0x03)
        scan.put(5, 3)
    out += sos(11, 11, 0, 0) + scan.data()
    scan = Bits()
    for _ in range(blocks):
        scan.code(first, 0x04)
        scan.put(8, 4)
    out += sos(11, 11, 0, 13) + scan.data()
    scan = Bits()
    for bit in refinement_bits:
        scan.put(int(bit), 1)
    out += sos(11, 11, 13, 12, tables=0x01) + scan.data()
    out += b"\xFF\xD9"
    return bytes(out)


FILES = {
    # Two blocks; the refinement's data is '110 1 110 1': to the engine that read a correction bit
    # for the zeroed coefficient, EOB + bit in each block, all 8 bits; to libjpeg, EOB in the first
    # block, then '11101' (a new coefficient) whose sign bit lies past the data: premature end.
    "progressive-zero-over-nonzero-16x8.jpg": zero_over_nonzero(16, "11011101"),
    # One block; the refinement's data is '110' (EOB) and a 1 bit libjpeg never reads (it is
    # padding to it): the engine that read it as a correction bit set AC 11 to 4096.
    "progressive-zero-over-nonzero-8x8.jpg": zero_over_nonzero(8, "1101"),
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")
