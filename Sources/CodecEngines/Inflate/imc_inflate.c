/* imc_inflate.c: a strict raw DEFLATE (RFC 1951) decoder for the PNG image-data path.
 *
 * Why: zlib's inflate was most of a PNG thumbnail's CPU time (benchmarks/README.md, "Figures behind
 * the codecs' choices"). This decoder does the same
 * work with a 64-bit bit buffer refilled eight bytes at a time, one table lookup that yields a
 * literal, or a length or distance base together with the count of its extra bits, subtables for
 * codes longer than the main table, and match copies eight bytes at a time into output room it
 * owns (it stops the fast loop 280 bytes before the end of the room).
 *
 * One verdict: the PNG path may only accept what zlib's raw inflate (windowBits -15, 32 KiB window)
 * accepts, with the same bytes. So this decoder reports the end of a stream only when every check
 * zlib makes passed, and gives up on anything else, including a few streams zlib takes that are not
 * worth judging here (an incomplete code, even zlib's one allowed case of a single code of length 1,
 * and a distance code with no codes at all). The rejections of zlib 1.2.13 (inflate.c, inftrees.c,
 * inffast.c) and how each is met:
 *   block type 3 ("invalid block type")                         -> give up
 *   stored LEN != ~NLEN ("invalid stored block lengths")        -> give up
 *   HLIT > 286 or HDIST > 30 ("too many length or distance symbols") -> give up
 *   code-length code over-subscribed or incomplete ("invalid code lengths set") -> give up
 *   repeat (16) with no previous length, or any repeat past HLIT+HDIST ("invalid bit length repeat") -> give up
 *   end-of-block code of length 0 ("invalid code -- missing end-of-block") -> give up
 *   literal/length or distance code over-subscribed or incomplete ("invalid literal/lengths set",
 *     "invalid distances set"; zlib takes one code of length 1, and no distance codes) -> give up
 *   literal/length symbol 286 or 287, distance symbol 30 or 31 (fixed codes only) ("invalid
 *     literal/length code", "invalid distance code")          -> give up
 *   a distance past the start of the output ("invalid distance too far back"; with the full window
 *     that is exactly "more than the bytes output so far")     -> give up
 *   the input ends before the final block does (zlib: no Z_STREAM_END) -> give up when the caller
 *     says the input is complete, else wait for more
 * Giving up costs the caller a second decode with zlib; accepting wrongly would change a verdict.
 *
 * Resumable with bounded memory: input comes in pieces of any size, the bit buffer carries up to
 * 8 bytes across calls; suspension on input is at a symbol (or header field) boundary: near the end
 * of a piece each symbol is decoded from the bits available, and only taken when all its bits are
 * there. Output goes to the caller's room, which may be full in the middle of a match (the rest is
 * copied on the next call); the last 32 KiB of output are kept in a ring for matches that reach
 * back past the start of the current room. */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "imc_inflate.h"

#include <stdlib.h>
#include <string.h>

/* Main table index bits, and the table sizes with room for every subtable a complete code of 288
 * (or 32) symbols of up to 15 bits can need (the builder checks the room anyway). */
#define LITLEN_ROOT 11
#define DIST_ROOT 8
#define CODES_ROOT 7
#define LITLEN_MASK ((1u << LITLEN_ROOT) - 1)
#define LITLEN_ENTRIES (2048 + 1024)
#define DIST_ENTRIES (256 + 256)
#define HISTORY 32768u
/* The fast loop runs while this much output room is left: a match is at most 258 bytes, and its
 * last eight-byte store may reach 7 bytes further. */
#define FAST_ROOM 280
/* and while this much input is left: each of a symbol's two refills reads 8 bytes. */
#define FAST_INPUT 16

/* A table entry: bits 0-7 the code bits it consumes (for a subtable pointer: the main table's),
 * so that the low byte is a shift count; bits 8-12 the code bits plus the extra bits (a subtable
 * pointer: the subtable's index bits); bits 13-15 its kind; bits 16-31 its value (a literal, a
 * length or distance base, the first entry of a subtable, or a code-length symbol). */
/* Kinds 0 and 1 (bit 14 and 15 clear) are literals: one (its byte in bits 16-23), or two of the
 * fast table (bytes in bits 16-23 and 24-31), so that bit 13 is how many more than one. */
enum { KIND_LITERAL = 0, KIND_LITERALS = 1, KIND_BASE = 2, KIND_END = 3, KIND_SUBTABLE = 4, KIND_INVALID = 5 };
#define ENTRY(kind, code_bits, total_bits, value)                                                                     \
  ((uint32_t)(code_bits) | (uint32_t)(total_bits) << 8 | (uint32_t)(kind) << 13 | (uint32_t)(value) << 16)
#define CODE_BITS(e) ((e) & 0xffu)
#define KIND(e) (((e) >> 13) & 7u)
#define IS_LITERAL(e) (((e) & 0xc000u) == 0)
#define LITERALS(e) (1u + (((e) >> 13) & 1u))
#define TOTAL_BITS(e) (((e) >> 8) & 31u)
#define VALUE(e) ((e) >> 16)

enum { TABLE_CODES, TABLE_LITLEN, TABLE_DIST };

enum {
  MODE_HEADER,
  MODE_STORED_LENGTHS,
  MODE_STORED_COPY,
  MODE_COUNTS,
  MODE_CODE_LENGTHS,
  MODE_LENGTHS,
  MODE_DATA,
  MODE_MATCH, /* a match cut short by the output room: the rest is copied first */
  MODE_DONE,
  MODE_BAD
};

struct imc_inflate {
  uint64_t bits;     /* input bits not yet decoded, the next one lowest */
  unsigned count;    /* how many (at most 63); bits above them are zero between calls */
  int mode;
  int last_block;
  int fixed_loaded;  /* the tables hold the fixed codes */
  unsigned literal_codes, distance_codes, code_length_codes, have;
  uint32_t stored_left;
  uint32_t match_length, match_distance;
  uint64_t total_out;  /* bytes output before this call */
  uint32_t ring_end;   /* where the next output byte goes in the ring (total_out % HISTORY) */
  uint8_t lengths[320];
  uint8_t code_lengths[19];
  uint32_t codes[1 << CODES_ROOT];
  uint32_t litlen[LITLEN_ENTRIES];
  uint32_t litlen_fast[1 << LITLEN_ROOT]; /* the main table with pairs of literals (see pair_literals) */
  uint32_t dist[DIST_ENTRIES];
  uint8_t ring[HISTORY];
};

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                           193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* The order in which the code-length code's lengths are sent (RFC 1951 3.2.7). */
static const uint8_t code_length_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

imc_inflate *imc_inflate_create(void) {
  imc_inflate *inflater = malloc(sizeof *inflater);
  if (!inflater) return NULL;
  inflater->bits = 0;
  inflater->count = 0;
  inflater->mode = MODE_HEADER;
  inflater->last_block = 0;
  inflater->fixed_loaded = 0;
  inflater->match_length = inflater->match_distance = 0;
  inflater->total_out = 0;
  inflater->ring_end = 0;
  return inflater;
}

void imc_inflate_destroy(imc_inflate *inflater) { free(inflater); }

/* ---- tables ---- */

/* The entry a symbol of `kind`'s table gets, its code `code_bits` long in this table level. */
static uint32_t leaf(int table_kind, unsigned symbol, unsigned code_bits) {
  if (table_kind == TABLE_CODES) return ENTRY(KIND_LITERAL, code_bits, code_bits, symbol);
  if (table_kind == TABLE_LITLEN) {
    if (symbol < 256) return ENTRY(KIND_LITERAL, code_bits, code_bits, symbol);
    if (symbol == 256) return ENTRY(KIND_END, code_bits, code_bits, 0);
    if (symbol < 286) {
      unsigned i = symbol - 257;
      return ENTRY(KIND_BASE, code_bits, code_bits + length_extra[i], length_base[i]);
    }
    return ENTRY(KIND_INVALID, code_bits, code_bits, 0); /* 286, 287: fixed code only */
  }
  if (symbol < 30) return ENTRY(KIND_BASE, code_bits, code_bits + distance_extra[symbol], distance_base[symbol]);
  return ENTRY(KIND_INVALID, code_bits, code_bits, 0); /* 30, 31: fixed code only */
}

/* Builds the lookup table of the canonical code of `lengths[0, symbols)`: `root` index bits, then
 * subtables for longer codes. 0 (give up) unless the code is complete: no over-subscribed code, no
 * incomplete one (not even one code of length 1), not empty. */
static int build_table(uint32_t *table, size_t capacity, unsigned root, const uint8_t *lengths, unsigned symbols,
                       int table_kind) {
  unsigned count[16] = {0};
  for (unsigned s = 0; s < symbols; s++) count[lengths[s]]++;
  count[0] = 0;
  /* Kraft: after each length, the codes still free at that length. */
  int free_codes = 1;
  for (unsigned length = 1; length <= 15; length++) {
    free_codes = free_codes * 2 - (int)count[length];
    if (free_codes < 0) return 0; /* over-subscribed */
  }
  if (free_codes != 0) return 0; /* incomplete, or no codes at all */

  /* Symbols in canonical order: by length, then by value. */
  uint16_t order[288];
  unsigned start[17];
  start[1] = 0;
  for (unsigned length = 1; length <= 15; length++) start[length + 1] = start[length] + count[length];
  for (unsigned s = 0; s < symbols; s++)
    if (lengths[s]) order[start[lengths[s]]++] = (uint16_t)s;
  unsigned total = start[16]; /* start[] now holds each length's end */

  unsigned left[16]; /* codes of each length not yet placed */
  memcpy(left, count, sizeof left);
  uint32_t code = 0;  /* the canonical code of the current symbol, `length` bits, first bit highest */
  unsigned length = 0;
  unsigned main_size = 1u << root;
  size_t next_free = main_size;
  unsigned prefix = ~0u, sub_start = 0, sub_bits = 0;
  for (unsigned i = 0; i < total; i++) {
    unsigned symbol = order[i], symbol_length = lengths[symbol];
    if (i > 0) code++;
    code <<= symbol_length - length;
    length = symbol_length;
    /* The stream sends the code's first bit first: the table is indexed by the reversed code. */
    uint32_t reversed = 0;
    for (unsigned b = 0; b < length; b++) reversed |= ((code >> b) & 1u) << (length - 1 - b);
    left[length]--;
    if (length <= root) {
      uint32_t entry = leaf(table_kind, symbol, length);
      for (uint32_t at = reversed; at < main_size; at += 1u << length) table[at] = entry;
      continue;
    }
    unsigned low = reversed & (main_size - 1);
    if (low != prefix) {
      /* A new subtable for the codes that begin with these `root` bits: as deep as the codes of
       * this length and the longer ones still to come need to fill it. */
      prefix = low;
      sub_bits = length - root;
      int room = 1 << sub_bits;
      room -= (int)left[length] + 1;
      while (room > 0 && root + sub_bits < 15) {
        sub_bits++;
        room = room * 2 - (int)left[root + sub_bits];
      }
      if (next_free + ((size_t)1 << sub_bits) > capacity) return 0;
      sub_start = (unsigned)next_free;
      next_free += (size_t)1 << sub_bits;
      table[prefix] = ENTRY(KIND_SUBTABLE, root, sub_bits, sub_start);
    }
    uint32_t entry = leaf(table_kind, symbol, length - root);
    for (uint32_t at = reversed >> root; at < (1u << sub_bits); at += 1u << (length - root)) table[sub_start + at] = entry;
  }
  return 1;
}

/* The fast loop's main table: where the main table's bits hold two whole literal codes, one entry
 * for both (a photo's filtered rows are mostly short literal codes, so a lookup then yields two
 * bytes); elsewhere the main table's entry. */
static void pair_literals(imc_inflate *inflater) {
  const uint32_t *single = inflater->litlen;
  uint32_t *fast = inflater->litlen_fast;
  for (unsigned i = 0; i < (1u << LITLEN_ROOT); i++) {
    uint32_t first = single[i];
    fast[i] = first;
    if (KIND(first) != KIND_LITERAL) continue;
    unsigned first_bits = CODE_BITS(first);
    uint32_t second = single[i >> first_bits];
    unsigned second_bits = CODE_BITS(second);
    if (KIND(second) != KIND_LITERAL || first_bits + second_bits > LITLEN_ROOT) continue;
    fast[i] = ENTRY(KIND_LITERALS, first_bits + second_bits, first_bits + second_bits,
                    VALUE(first) | VALUE(second) << 8);
  }
}

static void load_fixed(imc_inflate *inflater) {
  uint8_t lengths[288];
  memset(lengths, 8, 144);
  memset(lengths + 144, 9, 112);
  memset(lengths + 256, 7, 24);
  memset(lengths + 280, 8, 8);
  build_table(inflater->litlen, LITLEN_ENTRIES, LITLEN_ROOT, lengths, 288, TABLE_LITLEN);
  pair_literals(inflater);
  memset(lengths, 5, 32);
  build_table(inflater->dist, DIST_ENTRIES, DIST_ROOT, lengths, 32, TABLE_DIST);
  inflater->fixed_loaded = 1;
}

/* ---- output ---- */

/* Copies a match of `length` bytes from `distance` back to *out, byte-exact, from the ring where
 * it reaches before out_start (the first byte of this call's room). */
static uint8_t *copy_with_history(const imc_inflate *inflater, const uint8_t *out_start, uint8_t *out,
                                  uint32_t distance, uint32_t length) {
  while (length > 0) {
    size_t made = (size_t)(out - out_start);
    if (distance > made) {
      uint32_t back = distance - (uint32_t)made; /* 1..HISTORY, from the ring's end */
      uint32_t at = (inflater->ring_end - back) & (HISTORY - 1);
      uint32_t n = length;
      if (n > back) n = back;
      if (n > HISTORY - at) n = HISTORY - at;
      memcpy(out, inflater->ring + at, n);
      out += n;
      length -= n;
    } else {
      const uint8_t *from = out - distance;
      if (distance >= length) {
        memcpy(out, from, length);
        out += length;
        length = 0;
      } else {
        for (; length > 0; length--) *out++ = *from++;
      }
    }
  }
  return out;
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline void store64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A match wholly inside this call's room, with at least FAST_ROOM bytes of room from out: eight
 * bytes at a time, up to 7 bytes of scratch past its end. */
static inline uint8_t *copy_fast(uint8_t *out, uint32_t distance, uint32_t length) {
  uint8_t *end = out + length;
  const uint8_t *from = out - distance;
  if (distance >= 8) {
    do {
      uint64_t word;
      memcpy(&word, from, 8);
      store64(out, word);
      out += 8;
      from += 8;
    } while (out < end);
    return end;
  }
  if (distance == 1) {
    uint64_t word = 0x0101010101010101ull * *from;
    do {
      store64(out, word);
      out += 8;
    } while (out < end);
    return end;
  }
  /* A period of 2-7 bytes: the first bytes one at a time until a whole number of periods of at
   * least 8 bytes lies behind, then eight bytes at a time from that far back. */
  uint32_t step = distance * ((8 + distance - 1) / distance);
  uint32_t first = step - distance;
  if (first > length) first = length;
  for (uint32_t i = 0; i < first; i++) out[i] = from[i];
  out += first;
  from = out - step;
  while (out < end) {
    uint64_t word;
    memcpy(&word, from, 8);
    store64(out, word);
    out += 8;
    from += 8;
  }
  return end;
}

/* ---- decoding ---- */

/* Result of decoding one symbol from the bits at hand. */
enum { STEP_OK, STEP_SHORT, STEP_BAD, STEP_END, STEP_FULL };

/* The entry for the code at the bottom of `bits`; *skipped: bits of a main-table pointer to add. */
static inline uint32_t look_up(const uint32_t *table, unsigned root, uint64_t bits, unsigned *skipped) {
  uint32_t entry = table[bits & ((1u << root) - 1)];
  *skipped = 0;
  if (KIND(entry) == KIND_SUBTABLE) {
    *skipped = root;
    entry = table[VALUE(entry) + ((bits >> root) & ((1u << TOTAL_BITS(entry)) - 1))];
  }
  return entry;
}

/* One literal, match or end of block from the bits at hand (`count` of them, which the caller
 * refilled as far as the input allows, to at least 49 when it can), taken only when all its bits
 * are there and, for output, there is room for at least one byte. */
static int slow_symbol(imc_inflate *inflater, uint64_t *bits_io, unsigned *count_io, const uint8_t *out_start,
                       uint8_t **out_io, uint8_t *out_end) {
  uint64_t bits = *bits_io;
  unsigned count = *count_io, skipped;
  uint32_t entry = look_up(inflater->litlen, LITLEN_ROOT, bits, &skipped);
  unsigned used = skipped + TOTAL_BITS(entry);
  if (used > count) return STEP_SHORT;
  unsigned kind = KIND(entry);
  if (kind == KIND_INVALID) return STEP_BAD;
  if (kind == KIND_END) {
    *bits_io = bits >> used;
    *count_io = count - used;
    return STEP_END;
  }
  uint8_t *out = *out_io;
  if (out == out_end) return STEP_FULL;
  if (kind == KIND_LITERAL) {
    *out++ = (uint8_t)VALUE(entry);
    *out_io = out;
    *bits_io = bits >> used;
    *count_io = count - used;
    return STEP_OK;
  }
  unsigned code = skipped + CODE_BITS(entry);
  uint32_t length = VALUE(entry) + (uint32_t)((bits >> code) & ((1u << (used - code)) - 1));
  uint64_t rest = bits >> used;
  entry = look_up(inflater->dist, DIST_ROOT, rest, &skipped);
  unsigned distance_used = skipped + TOTAL_BITS(entry);
  if (used + distance_used > count) return STEP_SHORT;
  if (KIND(entry) != KIND_BASE) return STEP_BAD;
  code = skipped + CODE_BITS(entry);
  uint32_t distance = VALUE(entry) + (uint32_t)((rest >> code) & ((1u << (distance_used - code)) - 1));
  uint64_t made = inflater->total_out + (uint64_t)(out - out_start);
  if (distance > made) return STEP_BAD; /* zlib: "invalid distance too far back" */
  *bits_io = rest >> distance_used;
  *count_io = count - used - distance_used;
  uint32_t room = (uint32_t)((size_t)(out_end - out) < 258 ? (size_t)(out_end - out) : 258);
  uint32_t now = length < room ? length : room;
  *out_io = copy_with_history(inflater, out_start, out, distance, now);
  if (now < length) {
    inflater->match_length = length - now;
    inflater->match_distance = distance;
    inflater->mode = MODE_MATCH;
    return STEP_FULL;
  }
  return STEP_OK;
}

/* The code-length symbol (0-18) and its repeat at the bottom of the bits; STEP_SHORT when its
 * bits are not all there. */
static int code_length_symbol(const imc_inflate *inflater, uint64_t bits, unsigned count, unsigned *symbol,
                              unsigned *repeat, unsigned *used) {
  uint32_t entry = inflater->codes[bits & ((1u << CODES_ROOT) - 1)];
  unsigned code = CODE_BITS(entry), value = VALUE(entry), extra = 0, base = 0;
  if (value == 16) extra = 2, base = 3;
  else if (value == 17) extra = 3, base = 3;
  else if (value == 18) extra = 7, base = 11;
  if (code + extra > count) return STEP_SHORT;
  *symbol = value;
  *repeat = base + (unsigned)((bits >> code) & ((1u << extra) - 1));
  *used = code + extra;
  return STEP_OK;
}

int imc_inflate_extra(const imc_inflate *inflater, uint8_t bytes[8]) {
  if (inflater->mode != MODE_DONE) return 0;
  uint64_t bits = inflater->bits >> (inflater->count & 7);
  int n = (int)(inflater->count >> 3);
  for (int i = 0; i < n; i++) bytes[i] = (uint8_t)(bits >> (8 * i));
  return n;
}

/* Appends this call's output to the ring of the last 32 KiB (its end at total_out % HISTORY). */
static void remember(imc_inflate *inflater, const uint8_t *out, size_t produced) {
  uint32_t end = (uint32_t)((inflater->ring_end + produced) & (HISTORY - 1));
  inflater->total_out += produced;
  inflater->ring_end = end;
  if (produced > HISTORY) {
    out += produced - HISTORY;
    produced = HISTORY;
  }
  uint32_t at = (end - (uint32_t)produced) & (HISTORY - 1);
  size_t first = HISTORY - at;
  if (first > produced) first = produced;
  memcpy(inflater->ring + at, out, first);
  memcpy(inflater->ring, out + first, produced - first);
}

int imc_inflate_run(imc_inflate *inflater, const uint8_t *input, size_t length, int last, uint8_t *out_start,
                    size_t room, size_t *consumed, size_t *produced) {
  const uint8_t *in = input, *in_end = input + length;
  uint8_t *out = out_start, *out_end = out_start + room;
  uint64_t bits = inflater->bits;
  unsigned count = inflater->count;
  int result;

/* Pulls whole bytes into the bit buffer, one at a time, while it has room for one more. */
#define PULL_BYTES()                                                                                                  \
  while (count <= 55 && in < in_end) {                                                                               \
    bits |= (uint64_t)*in++ << count;                                                                                 \
    count += 8;                                                                                                       \
  }
/* Makes `n` bits available, or leaves: for more input, or giving up when none follows. */
#define NEED(n)                                                                                                       \
  do {                                                                                                                \
    PULL_BYTES();                                                                                                     \
    if (count < (n)) goto short_input;                                                                                \
  } while (0)
#define DROP(n)                                                                                                       \
  do {                                                                                                                \
    bits >>= (n);                                                                                                     \
    count -= (n);                                                                                                     \
  } while (0)

  for (;;) {
    switch (inflater->mode) {
    case MODE_HEADER: {
      NEED(3);
      inflater->last_block = (int)(bits & 1);
      unsigned type = (unsigned)(bits >> 1) & 3;
      DROP(3);
      if (type == 0) inflater->mode = MODE_STORED_LENGTHS;
      else if (type == 1) {
        if (!inflater->fixed_loaded) load_fixed(inflater);
        inflater->mode = MODE_DATA;
      } else if (type == 2) inflater->mode = MODE_COUNTS;
      else goto bad; /* zlib: "invalid block type" */
      break;
    }
    case MODE_STORED_LENGTHS: {
      DROP(count & 7);
      NEED(32);
      uint32_t stored = (uint32_t)bits & 0xffff, check = (uint32_t)(bits >> 16) & 0xffff;
      if (stored != (check ^ 0xffff)) goto bad; /* zlib: "invalid stored block lengths" */
      DROP(32);
      inflater->stored_left = stored;
      inflater->mode = MODE_STORED_COPY;
      break;
    }
    case MODE_STORED_COPY: {
      /* Whole bytes still in the bit buffer first, then straight from the input. */
      while (inflater->stored_left > 0 && count >= 8) {
        if (out == out_end) goto output_full;
        *out++ = (uint8_t)bits;
        DROP(8);
        inflater->stored_left--;
      }
      if (inflater->stored_left > 0) {
        bits = 0; /* count is 0: no copies of input bytes above it either */
        size_t n = inflater->stored_left;
        if (n > (size_t)(in_end - in)) n = (size_t)(in_end - in);
        if (n > (size_t)(out_end - out)) n = (size_t)(out_end - out);
        memcpy(out, in, n);
        out += n;
        in += n;
        inflater->stored_left -= (uint32_t)n;
        if (inflater->stored_left > 0) {
          if (out == out_end) goto output_full;
          goto short_input;
        }
      }
      inflater->mode = inflater->last_block ? MODE_DONE : MODE_HEADER;
      break;
    }
    case MODE_COUNTS: {
      NEED(14);
      inflater->literal_codes = (unsigned)(bits & 31) + 257;
      inflater->distance_codes = (unsigned)((bits >> 5) & 31) + 1;
      inflater->code_length_codes = (unsigned)((bits >> 10) & 15) + 4;
      DROP(14);
      /* zlib: "too many length or distance symbols" */
      if (inflater->literal_codes > 286 || inflater->distance_codes > 30) goto bad;
      memset(inflater->code_lengths, 0, sizeof inflater->code_lengths);
      inflater->have = 0;
      inflater->fixed_loaded = 0;
      inflater->mode = MODE_CODE_LENGTHS;
      break;
    }
    case MODE_CODE_LENGTHS: {
      while (inflater->have < inflater->code_length_codes) {
        NEED(3);
        inflater->code_lengths[code_length_order[inflater->have++]] = (uint8_t)(bits & 7);
        DROP(3);
      }
      /* zlib: "invalid code lengths set" */
      if (!build_table(inflater->codes, 1u << CODES_ROOT, CODES_ROOT, inflater->code_lengths, 19, TABLE_CODES)) goto bad;
      inflater->have = 0;
      inflater->mode = MODE_LENGTHS;
      break;
    }
    case MODE_LENGTHS: {
      unsigned wanted = inflater->literal_codes + inflater->distance_codes;
      while (inflater->have < wanted) {
        unsigned symbol, repeat, used;
        PULL_BYTES();
        if (code_length_symbol(inflater, bits, count, &symbol, &repeat, &used) != STEP_OK) goto short_input;
        DROP(used);
        if (symbol < 16) {
          inflater->lengths[inflater->have++] = (uint8_t)symbol;
          continue;
        }
        uint8_t value = 0;
        if (symbol == 16) {
          if (inflater->have == 0) goto bad; /* zlib: "invalid bit length repeat" */
          value = inflater->lengths[inflater->have - 1];
        }
        if (inflater->have + repeat > wanted) goto bad; /* zlib: "invalid bit length repeat" */
        memset(inflater->lengths + inflater->have, value, repeat);
        inflater->have += repeat;
      }
      /* zlib: "invalid code -- missing end-of-block" */
      if (inflater->lengths[256] == 0) goto bad;
      /* zlib: "invalid literal/lengths set", "invalid distances set" (and the cases zlib takes
       * that this decoder does not judge: an incomplete code, no distance codes) */
      if (!build_table(inflater->litlen, LITLEN_ENTRIES, LITLEN_ROOT, inflater->lengths, inflater->literal_codes,
                       TABLE_LITLEN))
        goto bad;
      if (!build_table(inflater->dist, DIST_ENTRIES, DIST_ROOT, inflater->lengths + inflater->literal_codes,
                       inflater->distance_codes, TABLE_DIST))
        goto bad;
      pair_literals(inflater);
      inflater->mode = MODE_DATA;
      break;
    }
    case MODE_MATCH: {
      if (out == out_end) goto output_full;
      uint32_t n = inflater->match_length;
      if ((size_t)n > (size_t)(out_end - out)) n = (uint32_t)(out_end - out);
      out = copy_with_history(inflater, out_start, out, inflater->match_distance, n);
      inflater->match_length -= n;
      if (inflater->match_length > 0) goto output_full;
      inflater->mode = MODE_DATA;
      break;
    }
    case MODE_DATA: {
      const uint32_t *litlen = inflater->litlen, *fast = inflater->litlen_fast, *dist = inflater->dist;
      /* The fast loop: every symbol's bits (at most 15+5+15+13 = 48) from one refill to 56 or more,
       * and room for a whole match. */
      while (in_end - in >= FAST_INPUT && out_end - out >= FAST_ROOM) {
        bits |= load64(in) << count;
        in += (63 - count) >> 3;
        count |= 56;
        uint32_t entry = fast[bits & LITLEN_MASK];
        if (IS_LITERAL(entry)) {
          /* Up to four entries of one or two literals (at most 11 bits each) from one refill; the
           * next entry is looked up while the bytes are stored (two, the second scratch for one). */
#define EMIT_LITERALS()                                                                                               \
  do {                                                                                                                \
    uint16_t pair = (uint16_t)VALUE(entry);                                                                           \
    memcpy(out, &pair, 2);                                                                                            \
    out += LITERALS(entry);                                                                                           \
    DROP(CODE_BITS(entry));                                                                                           \
  } while (0)
          EMIT_LITERALS();
          entry = fast[bits & LITLEN_MASK];
          if (IS_LITERAL(entry)) {
            EMIT_LITERALS();
            entry = fast[bits & LITLEN_MASK];
            if (IS_LITERAL(entry)) {
              EMIT_LITERALS();
              entry = fast[bits & LITLEN_MASK];
              if (IS_LITERAL(entry)) {
                EMIT_LITERALS();
                continue;
              }
            }
          }
#undef EMIT_LITERALS
          /* At most 33 bits used: refill for the match (the low bits, and so the entry, stay). */
          bits |= load64(in) << count;
          in += (63 - count) >> 3;
          count |= 56;
        }
        if (KIND(entry) == KIND_SUBTABLE) {
          DROP(LITLEN_ROOT);
          entry = litlen[VALUE(entry) + (bits & ((1u << TOTAL_BITS(entry)) - 1))];
          if (IS_LITERAL(entry)) {
            *out++ = (uint8_t)VALUE(entry);
            DROP(CODE_BITS(entry));
            continue;
          }
        }
        unsigned kind = KIND(entry);
        if (kind != KIND_BASE) {
          if (kind == KIND_END) {
            DROP(CODE_BITS(entry));
            inflater->mode = inflater->last_block ? MODE_DONE : MODE_HEADER;
            goto next_mode;
          }
          goto bad; /* zlib: "invalid literal/length code" */
        }
        unsigned total = TOTAL_BITS(entry), code = CODE_BITS(entry);
        uint32_t match_length = VALUE(entry) + (uint32_t)((bits & ((1ull << total) - 1)) >> code);
        DROP(total);
        entry = dist[bits & ((1u << DIST_ROOT) - 1)];
        if (KIND(entry) == KIND_SUBTABLE) {
          DROP(DIST_ROOT);
          entry = dist[VALUE(entry) + (bits & ((1u << TOTAL_BITS(entry)) - 1))];
        }
        if (KIND(entry) != KIND_BASE) goto bad; /* zlib: "invalid distance code" */
        total = TOTAL_BITS(entry);
        code = CODE_BITS(entry);
        uint32_t distance = VALUE(entry) + (uint32_t)((bits & ((1ull << total) - 1)) >> code);
        DROP(total);
        size_t made = (size_t)(out - out_start);
        if (distance <= made) {
          out = copy_fast(out, distance, match_length);
        } else {
          /* zlib: "invalid distance too far back" */
          if (distance > inflater->total_out + made) goto bad;
          out = copy_with_history(inflater, out_start, out, distance, match_length);
        }
      }
      /* Near the end of the input or of the room: one symbol at a time, from the bits at hand. */
      PULL_BYTES();
      int step = slow_symbol(inflater, &bits, &count, out_start, &out, out_end);
      if (step == STEP_OK) break;
      if (step == STEP_END) {
        inflater->mode = inflater->last_block ? MODE_DONE : MODE_HEADER;
        break;
      }
      if (step == STEP_FULL) goto output_full;
      if (step == STEP_SHORT) goto short_input;
      goto bad;
    }
    case MODE_DONE:
      result = IMC_INFLATE_END;
      goto leave;
    default:
      result = IMC_INFLATE_GIVE_UP;
      goto leave;
    }
  next_mode:;
  }

short_input:
  /* Every input byte is in the bit buffer (PULL_BYTES stopped at the end of the input). */
  if (last) goto bad;
  result = IMC_INFLATE_INPUT;
  goto leave;
output_full:
  result = IMC_INFLATE_OUTPUT;
  goto leave;
bad:
  inflater->mode = MODE_BAD;
  result = IMC_INFLATE_GIVE_UP;
leave:
  /* Bits above `count` may hold copies of input bytes not taken: cleared, so that the next call's
   * input is the only source. */
  bits &= count >= 64 ? ~0ull : (1ull << count) - 1;
  inflater->bits = bits;
  inflater->count = count;
  *consumed = (size_t)(in - input);
  *produced = (size_t)(out - out_start);
  remember(inflater, out_start, *produced);
  return result;
#undef PULL_BYTES
#undef NEED
#undef DROP
}
