/* Multi-byte integers in the byte orders the containers store them: one definition for every layer
 * (PNG chunk lengths and CRCs, ICC profile header fields). */
#ifndef IMC_BYTES_H
#define IMC_BYTES_H

#include <stdint.h>

/* The big-endian 32-bit integer at p (four bytes the caller has). */
static inline uint32_t imc_read_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

#endif
