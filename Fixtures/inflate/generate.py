#!/usr/bin/env python3
"""Writes the raw DEFLATE streams (RFC 1951, no zlib wrapper) of this directory for InflateTests:

  zlib-*.deflate     Python's zlib (the same library the PNG path checks against) at every level
                     and strategy, with and without flushes, on text, noise, runs and far repeats;
  fixed-*, stored-*  fixed-Huffman and stored blocks written bit by bit (the empty stored block,
                     EOB alone, matches at distance 1 and 32768, a distance exactly as far back as
                     the output goes);
  reject-*.deflate   one stream for each rejection of zlib's raw inflate, crafted bit by bit;
  giveup-*.deflate   the incomplete codes zlib takes that imgfetch's inflater declines to judge.

accept-* / zlib-* / fixed-* / stored-* must be accepted with zlib's bytes, reject-* refused by both,
giveup-* accepted by zlib and given up by the inflater. Deterministic; standard library only."""
import os
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


class Bits:
    """Bits LSB first, as DEFLATE packs them; Huffman codes first bit first."""

    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, count):
        self.acc |= value << self.n
        self.n += count
        while self.n >= 8:
            self.out.append(self.acc & 255)
            self.acc >>= 8
            self.n -= 8

    def code(self, code, length):
        self.put(int(format(code, "0%db" % length)[::-1], 2), length)

    def align(self):
        if self.n:
            self.put(0, 8 - self.n)

    def data(self):
        self.align()
        return bytes(self.out)


def canonical(lengths):
    """The canonical code of each symbol (RFC 1951 3.2.2), None where its length is 0."""
    count = [0] * 16
    for length in lengths:
        count[length] += 1
    count[0] = 0
    code, first = 0, [0] * 16
    for length in range(1, 16):
        code = (code + count[length - 1]) << 1
        first[length] = code
    codes = []
    for length in lengths:
        if length:
            codes.append(first[length])
            first[length] += 1
        else:
            codes.append(None)
    return codes


FIXED_LITLEN = [8] * 144 + [9] * 112 + [7] * 24 + [8] * 8
FIXED_CODES = canonical(FIXED_LITLEN)
LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
               195, 227, 258]
LENGTH_EXTRA = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
             4097, 6145, 8193, 12289, 16385, 24577]
DIST_EXTRA = [0, 0, 0, 0] + [i // 2 for i in range(2, 28)]


def length_symbol(length):
    for i in range(28, -1, -1):
        if LENGTH_BASE[i] <= length and (i != 28 or length == 258):
            if length - LENGTH_BASE[i] < (1 << LENGTH_EXTRA[i]) or i == 28:
                return 257 + i, length - LENGTH_BASE[i], LENGTH_EXTRA[i]
    raise ValueError(length)


def dist_symbol(distance):
    for i in range(29, -1, -1):
        if DIST_BASE[i] <= distance:
            return i, distance - DIST_BASE[i], DIST_EXTRA[i]
    raise ValueError(distance)


def fixed_block(bits, items, final=1):
    """items: ints (literals), ('match', length, distance), ('symbol', litlen symbol), ('dist', sym)."""
    bits.put(final, 1)
    bits.put(1, 2)
    for item in items:
        if isinstance(item, int):
            bits.code(FIXED_CODES[item], FIXED_LITLEN[item])
        elif item[0] == "match":
            symbol, extra, count = length_symbol(item[1])
            bits.code(FIXED_CODES[symbol], FIXED_LITLEN[symbol])
            bits.put(extra, count)
            symbol, extra, count = dist_symbol(item[2])
            bits.code(symbol, 5)
            bits.put(extra, count)
        elif item[0] == "symbol":
            bits.code(FIXED_CODES[item[1]], FIXED_LITLEN[item[1]])
        elif item[0] == "dist":
            bits.code(item[1], 5)
    bits.code(FIXED_CODES[256], FIXED_LITLEN[256])


def stored_block(bits, data, final=1, nlen=None):
    bits.put(final, 1)
    bits.put(0, 2)
    bits.align()
    bits.put(len(data), 16)
    bits.put((~len(data) & 0xFFFF) if nlen is None else nlen, 16)
    for byte in data:
        bits.put(byte, 8)


CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
# A complete code-length code: 13 symbols of 4 bits, 6 of 5.
CL_LENGTHS = [4] * 13 + [5] * 6


def dynamic_block(bits, litlen, dist, items=(), final=1, cl_lengths=CL_LENGTHS, cl_symbols=None, hlit=None,
                  hdist=None, eob=True):
    """A dynamic block: the header sends `litlen` + `dist` lengths as plain code-length symbols (or
    `cl_symbols`, (symbol, extra) pairs, as given), then `items` with those codes."""
    bits.put(final, 1)
    bits.put(2, 2)
    bits.put((len(litlen) - 257) if hlit is None else hlit, 5)
    bits.put((len(dist) - 1) if hdist is None else hdist, 5)
    bits.put(19 - 4, 4)
    for symbol in CL_ORDER:
        bits.put(cl_lengths[symbol], 3)
    cl_codes = canonical(cl_lengths)
    if cl_symbols is None:
        cl_symbols = [(length, 0) for length in list(litlen) + list(dist)]
    for symbol, extra in cl_symbols:
        bits.code(cl_codes[symbol], cl_lengths[symbol])
        if symbol == 16:
            bits.put(extra, 2)
        elif symbol == 17:
            bits.put(extra, 3)
        elif symbol == 18:
            bits.put(extra, 7)
    lit_codes, dist_codes = canonical(litlen), canonical(dist)
    for item in items:
        if isinstance(item, int):
            bits.code(lit_codes[item], litlen[item])
        else:
            symbol, extra, count = length_symbol(item[1])
            bits.code(lit_codes[symbol], litlen[symbol])
            bits.put(extra, count)
            symbol, extra, count = dist_symbol(item[2])
            bits.code(dist_codes[symbol], dist[symbol])
            bits.put(extra, count)
    if eob:
        bits.code(lit_codes[256], litlen[256])


def complete_litlen():
    """Literal/length lengths of a complete code over 286 symbols: 30 of 8 bits, 256 of 9... made
    complete: 226 symbols of 8 bits (226/256) and 60 of 9 bits (60/512) = 452/512 + 60/512."""
    return [8] * 226 + [9] * 60


def write(name, data):
    with open(os.path.join(HERE, name + ".deflate"), "wb") as f:
        f.write(data)


def raw(data, level, strategy, wbits=-15, mem=8, flushes=()):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    out, at = b"", 0
    for cut, mode in flushes:
        out += c.compress(data[at:cut]) + c.flush(mode)
        at = cut
    return out + c.compress(data[at:]) + c.flush()


def main():
    for name in os.listdir(HERE):
        if name.endswith(".deflate"):
            os.remove(os.path.join(HERE, name))
    state = 12345

    def noise(n):
        nonlocal state
        out = bytearray()
        for _ in range(n):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            out.append(state >> 16 & 255)
        return bytes(out)

    text = (b"The quick brown fox jumps over the lazy dog. PNG rows, filters and zlib. " * 300)[:20000]
    inputs = {
        "text": text,
        "noise": noise(6000),
        "runs": b"\0" * 5000 + b"\1\2" * 3000 + b"abc" * 2000,
        "far": (lambda n: n + b"\0" * 100 + n)(noise(32600)),
        "empty": b"",
    }
    strategies = {"default": zlib.Z_DEFAULT_STRATEGY, "filtered": zlib.Z_FILTERED, "huffman": zlib.Z_HUFFMAN_ONLY,
                  "rle": zlib.Z_RLE, "fixed": zlib.Z_FIXED}
    for input_name, data in inputs.items():
        for strategy_name, strategy in strategies.items():
            levels = range(10) if input_name in ("text", "runs") else (0, 1, 6, 9)
            if input_name == "far":  # 65 KB each: a few
                if strategy_name not in ("default", "rle"):
                    continue
                levels = (9,) if strategy_name == "default" else (1,)
            for level in levels:
                if level == 0 and strategy_name != "default":
                    continue  # stored blocks whatever the strategy
                write("zlib-%s-%s-%d" % (input_name, strategy_name, level), raw(data, level, strategy))
    write("zlib-text-flushes", raw(text, 6, 0, flushes=[(10, zlib.Z_SYNC_FLUSH), (5000, zlib.Z_FULL_FLUSH),
                                                         (5001, zlib.Z_SYNC_FLUSH)]))
    write("zlib-text-window9", raw(text, 9, 0, wbits=-9, mem=1))

    # Fixed and stored blocks, written here.
    b = Bits(); stored_block(b, b""); write("stored-empty", b.data())
    b = Bits(); stored_block(b, b"", final=0); stored_block(b, b"hello"); write("stored-empty-then-hello", b.data())
    b = Bits(); fixed_block(b, []); write("fixed-eob-only", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("match", 258, 1)] + [("match", 258, 1)] * 40); write("fixed-distance-1", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ord("b"), ("match", 3, 2)]); write("fixed-distance-as-far-as-output", b.data())
    far = noise(32768)
    b = Bits(); stored_block(b, far[:20000], final=0); stored_block(b, far[20000:], final=0)
    fixed_block(b, [("match", 258, 32768)] * 200 + [("match", 3, 32768)]); write("fixed-distance-32768", b.data())
    b = Bits(); fixed_block(b, [ord("x"), ("match", 258, 1)], final=0); stored_block(b, b"abc", final=0)
    fixed_block(b, [("match", 5, 260)]); write("fixed-stored-fixed", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], items=[65, 66, ("match", 10, 2), ("match", 258, 1)])
    write("dynamic-crafted", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("match", 284 - 257 + 200, 1)]); write("fixed-length-227", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("symbol", 284)], final=1)  # length 227+31 = 258 via symbol 284: extra
    # (symbol 284 with all-ones extra bits is 258, which zlib takes; the distance follows)
    b = Bits(); b.put(1, 1); b.put(1, 2); b.code(FIXED_CODES[97], 8); b.code(FIXED_CODES[284], 8); b.put(31, 5)
    b.code(0, 5); b.code(FIXED_CODES[256], 7); write("fixed-symbol-284-length-258", b.data())

    # zlib's rejections, one each.
    b = Bits(); b.put(1, 1); b.put(3, 2); b.put(0, 16); write("reject-block-type-3", b.data())
    b = Bits(); stored_block(b, b"hello", nlen=0x1234); write("reject-stored-nlen", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], hlit=30); write("reject-hlit-287", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], hlit=31); write("reject-hlit-288", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], hdist=30); write("reject-hdist-31", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], hdist=31); write("reject-hdist-32", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], cl_lengths=[3] * 19); write("reject-code-lengths-oversubscribed", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], cl_lengths=[5] * 19); write("reject-code-lengths-incomplete", b.data())
    b = Bits(); dynamic_block(b, complete_litlen(), [1, 1], cl_lengths=[0] * 19, cl_symbols=[])
    # zlib takes an empty code-length code and reads each length as 0 from one bit: then the
    # end-of-block code is missing.
    write("reject-code-lengths-empty", b.data() + bytes(64))
    ll = complete_litlen()
    b = Bits(); dynamic_block(b, ll, [1, 1], cl_symbols=[(16, 0)] + [(l, 0) for l in (ll + [1, 1])[3:]])
    write("reject-repeat-first", b.data())
    b = Bits(); dynamic_block(b, ll, [1, 1], cl_symbols=[(l, 0) for l in ll] + [(1, 0), (16, 0)])
    write("reject-repeat-past-end", b.data())
    b = Bits(); dynamic_block(b, ll, [1, 1], cl_symbols=[(l, 0) for l in ll] + [(1, 0), (18, 0)])
    write("reject-zeros-past-end", b.data())
    b = Bits(); dynamic_block(b, ll, [1, 1], cl_symbols=[(l, 0) for l in ll] + [(1, 0), (17, 0)])
    write("reject-zeros-past-end-17", b.data())
    no_eob = list(ll); no_eob[256] = 0; no_eob[0] = 7  # still complete: 8+8 -> 7
    no_eob[1] = 0
    b = Bits(); dynamic_block(b, no_eob, [1, 1], eob=False); write("reject-no-end-of-block", b.data())
    over = list(ll); over[0] = 7
    b = Bits(); dynamic_block(b, over, [1, 1]); write("reject-litlen-oversubscribed", b.data())
    under = list(ll); under[0] = 9
    b = Bits(); dynamic_block(b, under, [1, 1]); write("reject-litlen-incomplete", b.data())
    b = Bits(); dynamic_block(b, ll, [1, 1, 1]); write("reject-distance-oversubscribed", b.data())
    b = Bits(); dynamic_block(b, ll, [1, 2]); write("reject-distance-incomplete", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("symbol", 286)]); write("reject-fixed-symbol-286", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("symbol", 287)]); write("reject-fixed-symbol-287", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("symbol", 257), ("dist", 30)]); write("reject-fixed-distance-30", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ("symbol", 257), ("dist", 31)]); write("reject-fixed-distance-31", b.data())
    b = Bits(); fixed_block(b, [ord("a"), ord("b"), ("match", 3, 3)]); write("reject-distance-too-far", b.data())
    b = Bits(); fixed_block(b, [("match", 3, 1)]); write("reject-distance-at-start", b.data())
    b = Bits(); stored_block(b, far[:20000], final=0); stored_block(b, far[20000:32767], final=0)
    fixed_block(b, [("match", 258, 32768)]); write("reject-distance-32768-after-32767", b.data())
    b = Bits(); fixed_block(b, [ord("a")], final=0); write("reject-no-final-block", b.data())
    b = Bits(); stored_block(b, b"hello"); write("reject-stored-cut", b.data()[:-2])

    # Incomplete codes zlib takes (inftrees.c: one code of length 1; no distance codes at all).
    b = Bits(); dynamic_block(b, ll, [1, 0], items=[65, ("match", 4, 1)]); write("giveup-one-distance-code", b.data())
    b = Bits(); dynamic_block(b, ll, [0], items=[65, 66]); write("giveup-no-distance-codes", b.data())
    single = [0] * 257; single[256] = 1
    b = Bits(); dynamic_block(b, single, [1, 1]); write("giveup-one-literal-length-code", b.data())
    # and the code each lacks, used: zlib refuses.
    b = Bits(); dynamic_block(b, ll, [0, 1], items=[65], eob=False); b.code(canonical(ll)[257], ll[257]); b.code(1, 1)
    b.code(canonical(ll)[256], ll[256]); write("reject-missing-distance-code", b.data())


if __name__ == "__main__":
    main()
