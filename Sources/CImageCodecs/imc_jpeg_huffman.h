/* What imgfetch's own JPEG entropy decoders (imc_jpeg_eighth.c, imc_jpeg_progressive.c) share: a
 * Huffman table's canonical codes (T.81 Annex C), on which each builds its fast lookup tables and
 * with which it decodes a code longer than those resolve; the zigzag order; the test for a 0xFF
 * byte that lets a bit reader take eight bytes at once. Internal to CImageCodecs. */
#ifndef IMC_JPEG_HUFFMAN_H
#define IMC_JPEG_HUFFMAN_H

#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct {
  int32_t maxcode[18];   /* the largest code of each length, -1 when none; [17] stops the search */
  int32_t valoffset[18]; /* symbols[] index of a length's first code, minus that code */
  uint8_t symbols[256];
} imc_huffman_codes;

/* The codes of `source`, in its symbol order: lengths[i] and code[i] of symbols[i] for i < *count.
 * Returns 0 for a table libjpeg would refuse (it has checked already: all ones, or more codes than a
 * length holds). */
int imc_huffman_assign(const JHUFF_TBL *source, imc_huffman_codes *codes, int lengths[256], uint32_t code[256],
                       int *count);

/* The symbol of a code of at least `shortest` bits, the next bits being at the top of `bits` (16 of
 * them held); *length is set to the code's. -1 for a code the table does not have. */
static inline int imc_huffman_decode_long(const imc_huffman_codes *codes, uint64_t bits, int shortest, int *length) {
  for (int bits_taken = shortest; bits_taken <= 16; bits_taken++) {
    int32_t candidate = (int32_t)(bits >> (64 - bits_taken));
    if (candidate <= codes->maxcode[bits_taken]) {
      *length = bits_taken;
      return codes->symbols[(candidate + codes->valoffset[bits_taken]) & 0xFF];
    }
  }
  return -1;
}

/* Zigzag order with 16 extra entries (63), as libjpeg's jpeg_natural_order has them: a run past a
 * block's end lands on its last coefficient. */
extern const uint8_t imc_jpeg_natural_order[64 + 16];

/* Whether any of the first `bytes` bytes (most significant first) of `word` is 0xFF. It may also
 * say so when the byte after them is 0xFF (a borrow): the slower path, never a wrong answer. */
static inline int imc_jpeg_has_ff(uint64_t word, int bytes) {
  uint64_t inverted = ~word; /* FF bytes become zero */
  uint64_t zero = (inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull;
  uint64_t mask = bytes >= 8 ? ~0ull : ~(~0ull >> (8 * bytes));
  return (zero & mask) != 0;
}

#endif
