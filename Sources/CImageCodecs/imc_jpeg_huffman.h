/* A JPEG Huffman table's canonical codes (T.81 Annex C), shared by imgfetch's own entropy decoders
 * (imc_jpeg_eighth.c, imc_jpeg_progressive.c): each builds its fast lookup tables on top of them and
 * decodes a code longer than those tables resolve here. Internal to CImageCodecs. */
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

#endif
