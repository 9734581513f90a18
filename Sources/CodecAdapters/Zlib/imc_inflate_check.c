/* imc_inflate_check.c: imgfetch's inflater (imc_inflate.c) beside zlib's raw inflate, for the tests
 * (InflateTests through ImageCodecs' Inflater) and the FuzzInflate target: the same raw deflate
 * bytes through both, the inflater fed in pieces and into output rooms of the caller's choosing. */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"

#include "imc_inflate.h"
#include "imc_zlib_check.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* SplitMix64: the piece sizes of a seed. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int32_t imc_inflate_check(const uint8_t *input, size_t length, uint64_t pieces, size_t room, uint8_t *out,
                          size_t capacity, size_t *out_length, size_t *used) {
  imc_inflate *inflater = imc_inflate_create();
  if (!inflater) return -2;
  if (room == 0) room = 1;
  uint64_t state = pieces;
  size_t position = 0, made = 0;
  int result;
  for (;;) {
    /* pieces 0: all the input at once; 1: one byte at a time; else random sizes up to 1-64 KiB. */
    size_t piece = length - position;
    if (pieces == 1 && piece > 1) piece = 1;
    else if (pieces > 1 && piece > 0) {
      size_t most = (size_t)1 << (next_random(&state) % 17);
      size_t size = 1 + (size_t)(next_random(&state) % most);
      if (size < piece) piece = size;
    }
    int last = position + piece == length;
    size_t offer = capacity - made < room ? capacity - made : room;
    size_t consumed = 0, produced = 0;
    result = imc_inflate_run(inflater, input + position, piece, last, out + made, offer, &consumed, &produced);
    position += consumed;
    made += produced;
    if (result == IMC_INFLATE_OUTPUT) {
      if (made == capacity) {
        result = -1;
        break;
      }
      continue;
    }
    if (result == IMC_INFLATE_INPUT) {
      if (consumed != piece) { /* the contract: every byte taken */
        result = -3;
        break;
      }
      continue;
    }
    break;
  }
  if (result == IMC_INFLATE_END) {
    uint8_t extra[8];
    position -= (size_t)imc_inflate_extra(inflater, extra);
  }
  imc_inflate_destroy(inflater);
  *out_length = made;
  *used = position;
  return result;
}

int32_t imc_inflate_zlib(const uint8_t *input, size_t length, uint8_t *out, size_t capacity, size_t *out_length,
                         size_t *used) {
  z_stream zlib;
  memset(&zlib, 0, sizeof zlib);
  if (inflateInit2(&zlib, -15) != Z_OK) return -2;
  zlib.next_in = (Bytef *)(uintptr_t)input;
  zlib.avail_in = (uInt)length;
  zlib.next_out = out;
  zlib.avail_out = (uInt)capacity;
  int code = inflate(&zlib, Z_FINISH);
  *out_length = capacity - zlib.avail_out;
  *used = length - zlib.avail_in;
  inflateEnd(&zlib);
  if (code == Z_STREAM_END) return 1;
  if (code == Z_BUF_ERROR && zlib.avail_out == 0) return -1;
  return 0;
}

int32_t imc_inflate_differential(const uint8_t *input, size_t length, uint64_t pieces, size_t room,
                                 size_t capacity, int32_t *outcome) {
  uint8_t *expected = malloc(capacity ? capacity : 1), *ours = malloc(capacity ? capacity : 1);
  if (!expected || !ours) {
    free(expected);
    free(ours);
    return -2;
  }
  size_t expected_length = 0, expected_used = 0, our_length = 0, our_used = 0;
  int32_t zlib_result = imc_inflate_zlib(input, length, expected, capacity, &expected_length, &expected_used);
  int32_t our_result = imc_inflate_check(input, length, pieces, room, ours, capacity, &our_length, &our_used);
  int32_t disagreement = 0;
  if (our_result == -3 || our_result == -2) disagreement = 1;
  if (our_result == IMC_INFLATE_END) {
    /* Accepted: zlib must take it too, with the same bytes, ending at the same input byte. */
    if (zlib_result != 1 || expected_length != our_length || expected_used != our_used ||
        memcmp(expected, ours, our_length) != 0)
      disagreement = 1;
    *outcome = 0;
  } else if (our_result == -1 || zlib_result == -1) {
    *outcome = 3; /* ran past the capacity: not judged */
  } else {
    *outcome = zlib_result == 1 ? 2 : 1;
  }
  free(expected);
  free(ours);
  return disagreement;
}
