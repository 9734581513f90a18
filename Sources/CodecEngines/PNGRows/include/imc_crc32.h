/* The CRC-32 PNG's chunks carry (imc_crc32.c). */
#ifndef IMC_CRC32_H
#define IMC_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of `data` continuing from `crc` (0 to start), as zlib's crc32() computes it. */
uint32_t imc_crc32(uint32_t crc, const uint8_t *data, size_t length);

#endif
