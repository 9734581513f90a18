/* imc_jpeg_huffman.c: canonical Huffman codes from a JPEG table (see imc_jpeg_huffman.h). */
#include "imc_internal.h"
#include "imc_jpeg_huffman.h"

#include <string.h>

int imc_huffman_assign(const JHUFF_TBL *source, imc_huffman_codes *codes, int lengths[256], uint32_t code[256],
                       int *count) {
  int total = 0;
  for (int length = 1; length <= 16; length++) {
    for (int i = 0; i < source->bits[length]; i++) {
      if (total >= 256) return 0;
      lengths[total++] = length;
    }
  }
  memcpy(codes->symbols, source->huffval, 256);
  uint32_t next = 0;
  int at = 0;
  for (int length = 1; length <= 16; length++) {
    if (source->bits[length] == 0) {
      codes->maxcode[length] = -1;
      codes->valoffset[length] = 0;
    } else {
      codes->valoffset[length] = at - (int32_t)next;
      for (int i = 0; i < source->bits[length]; i++) code[at++] = next++;
      codes->maxcode[length] = (int32_t)next - 1;
    }
    if (next >= (1u << length)) return 0;
    next <<= 1;
  }
  codes->maxcode[17] = INT32_MAX;
  codes->valoffset[17] = 0;
  *count = total;
  return 1;
}

const uint8_t imc_jpeg_natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};
