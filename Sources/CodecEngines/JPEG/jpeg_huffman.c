/* jpeg_huffman.c: a DHT table's canonical codes (T.81 Annex C) and the lookup tables the scans
 * decode with, and the byte-wise refill of the bit reader. */
#include "jpeg_internal.h"

const uint8_t imc_jpeg_zigzag[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* The lookup entries of one code of `length` bits (`code`) for `symbol`. */
static void fill_code(huffman_table *t, int ac, int length, uint32_t code, int symbol) {
  int run = symbol >> 4, magnitude = symbol & 15;
  uint32_t first = code << (FAST_BITS - length);
  for (uint32_t fill = 0; fill < 1u << (FAST_BITS - length); fill++) {
    uint32_t index = first + fill;
    t->fast[index] = (uint16_t)(length << 8 | symbol);
    if (!ac) continue;
    /* A whole coefficient in FAST_BITS bits: its magnitude bits follow the code in the index. */
    if (magnitude == 0) {
      t->skip[index] = (uint16_t)(length | (run == 15 ? 16 << SKIP_ADVANCE_SHIFT : SKIP_END_OF_BLOCK));
    } else if (length + magnitude <= FAST_BITS) {
      t->skip[index] = (uint16_t)((length + magnitude) | (run + 1) << SKIP_ADVANCE_SHIFT);
      int raw = (int)((index >> (FAST_BITS - length - magnitude)) & ((1u << magnitude) - 1));
      int value = extend(raw, magnitude);
      t->coef[index] = (int32_t)((uint32_t)value << 16) | run << 8 | COEF_FLAG | (length + magnitude);
    }
    /* In a refinement scan: a new coefficient (magnitude 1) with its sign bit, ZRL, or an end-of-band
     * run with its extra bits. Other magnitudes go the long way (and make the engine give up). */
    unsigned after = index << length & ((1u << FAST_BITS) - 1); /* the bits after the code, at the top */
    if (magnitude == 1 && length + 1 <= FAST_BITS) {
      int minus = !(after >> (FAST_BITS - 1));
      t->refine[index] = REFINE_FLAG | (minus ? REFINE_MINUS : REFINE_PLUS) << 10 | run << 5 | (length + 1);
    } else if (magnitude == 0 && run == 15) {
      t->refine[index] = REFINE_FLAG | REFINE_ZRL << 10 | 15 << 5 | length;
    } else if (magnitude == 0 && length + run <= FAST_BITS) {
      unsigned eobrun = (1u << run) + (run ? after >> (FAST_BITS - run) : 0);
      t->refine[index] = (int32_t)(eobrun << 16) | REFINE_FLAG | REFINE_EOB << 10 | (length + run);
    }
  }
}

int imc_jpeg_build_table(huffman_table *t, const huffman_spec *spec, int ac) {
  t->built = 0;
  int total = 0;
  for (int length = 1; length <= 16; length++) total += spec->counts[length];
  if (total > 256) return 0;
  if (!ac)
    for (int i = 0; i < total; i++)
      if (spec->values[i] > 15) return 0;
  memset(t->fast, 0, sizeof t->fast);
  memset(t->skip, 0, sizeof t->skip);
  memset(t->coef, 0, sizeof t->coef);
  memset(t->refine, 0, sizeof t->refine);
  memcpy(t->symbols, spec->values, 256);
  uint32_t code = 0;
  int at = 0;
  for (int length = 1; length <= 16; length++) {
    int count = spec->counts[length];
    if (count == 0) {
      t->maxcode[length] = -1;
      t->valoffset[length] = 0;
    } else {
      /* As libjpeg derives a table: the codes of a length must leave the all-ones code unused.
       * Checked before the codes are filled in: one past the last would index past the lookups. */
      if (code + (uint32_t)count >= (1u << length)) return 0;
      t->valoffset[length] = at - (int32_t)code;
      for (int i = 0; i < count; i++, at++, code++)
        if (length <= FAST_BITS) fill_code(t, ac, length, code, spec->values[at]);
      t->maxcode[length] = (int32_t)code - 1;
    }
    if (code >= (1u << length)) return 0; /* (a length with no codes: as libjpeg checks it too) */
    code <<= 1;
  }
  t->maxcode[17] = INT32_MAX;
  t->valoffset[17] = 0;
  t->built = 1;
  t->built_from = spec->version;
  return 1;
}

void imc_jpeg_refill(bit_reader *r) {
  while (r->count <= 56) {
    if (r->marker || r->ended) {
      r->count += 8;
      r->padded += 8;
      continue;
    }
    if (r->end - r->next >= 8) {
      uint64_t word;
      memcpy(&word, r->next, 8);
      word = __builtin_bswap64(word);
      int take = (64 - r->count) >> 3;
      if (!has_ff(word, take)) {
        uint64_t kept = take >= 8 ? word : word & ~(~0ull >> (8 * take));
        r->bits |= kept >> r->count;
        r->count += 8 * take;
        r->appended += 8 * (uint64_t)take;
        r->next += take;
        continue;
      }
    }
    if (r->next >= r->end) {
      r->ended = 1;
      continue;
    }
    unsigned byte = *r->next;
    if (byte == 0xFF) {
      /* Fill bytes FF, then 00 (a data byte FF) or a marker code. */
      const uint8_t *after = r->next + 1;
      while (after < r->end && *after == 0xFF) after++;
      if (after >= r->end) {
        r->ended = 1;
        continue;
      }
      if (*after != 0x00) {
        r->marker = 1;
        continue;
      }
      r->next = after + 1;
    } else {
      r->next++;
    }
    r->bits |= (uint64_t)byte << (56 - r->count);
    r->count += 8;
    r->appended += 8;
  }
}

uintptr_t imc_jpeg_safe_limit(const uint8_t *from, const uint8_t *end, int eof) {
  if (eof) return (uintptr_t)end;
  size_t length = (size_t)(end - from);
  const uint8_t *tail = length > MCU_MARGIN ? end - MCU_MARGIN : from;
  uintptr_t safe = length > MCU_MARGIN ? (uintptr_t)tail : 0;
  /* A marker in the tail: the reader stops at it, so an MCU may start anywhere before it. */
  for (const uint8_t *at = tail; at + 1 < end; at++) {
    if (*at != 0xFF) continue;
    const uint8_t *after = at + 1;
    while (after < end && *after == 0xFF) after++;
    if (after < end && *after != 0x00 && (uintptr_t)at > safe) safe = (uintptr_t)at;
    at = after;
  }
  return safe;
}
