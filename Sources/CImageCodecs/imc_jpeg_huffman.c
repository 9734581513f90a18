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
