/* imc_crc32.c: the CRC-32 of PNG chunks (ISO 3309, reflected polynomial 0xEDB88320), eight bytes a
 * step through eight tables (slicing-by-8), so the engine needs no zlib for its IDAT checks. */
#include "imc_crc32.h"

#include <pthread.h>
#include <string.h>

static uint32_t tables[8][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    tables[0][n] = c;
  }
  for (uint32_t n = 0; n < 256; n++)
    for (int t = 1; t < 8; t++) tables[t][n] = tables[0][tables[t - 1][n] & 0xFF] ^ (tables[t - 1][n] >> 8);
}

uint32_t imc_crc32(uint32_t crc, const uint8_t *data, size_t length) {
  pthread_once(&tables_once, build_tables);
  uint32_t c = ~crc;
  while (length >= 8) {
    uint32_t low, high;
    memcpy(&low, data, 4);
    memcpy(&high, data + 4, 4);
    low ^= c; /* little-endian loads: the first byte is the low one */
    c = tables[7][low & 0xFF] ^ tables[6][(low >> 8) & 0xFF] ^ tables[5][(low >> 16) & 0xFF] ^ tables[4][low >> 24] ^
        tables[3][high & 0xFF] ^ tables[2][(high >> 8) & 0xFF] ^ tables[1][(high >> 16) & 0xFF] ^ tables[0][high >> 24];
    data += 8;
    length -= 8;
  }
  while (length--) c = tables[0][(c ^ *data++) & 0xFF] ^ (c >> 8);
  return ~c;
}
