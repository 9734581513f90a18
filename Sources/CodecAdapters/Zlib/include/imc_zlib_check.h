/* The zlib adapter: imgfetch's inflater (Sources/CodecEngines/Inflate) beside zlib's raw inflate,
 * through zlib's public API, for the differential tests and the FuzzInflate target. */
#ifndef IMC_ZLIB_CHECK_H
#define IMC_ZLIB_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Tests and fuzzing of imgfetch's own raw DEFLATE decoder (imc_inflate.c, the PNG path's inflater)
 * beside zlib's raw inflate (imc_inflate_check.c). imc_inflate_check: `input` in pieces (`pieces` 0:
 * all at once, 1: a byte at a time, else a seed of random sizes), into output rooms of `room` bytes,
 * at most `capacity` in all; 0 accepted (the stream ended), 3 gave up, -1 past the capacity; *used:
 * input bytes up to the stream's end. imc_inflate_zlib: the same with zlib, 1 accepted, 0 refused,
 * -1 past the capacity. imc_inflate_differential: both; 1 when the inflater accepted what zlib did
 * not, or with other bytes or another end; *outcome 0 both accepted, 1 both refused, 2 the inflater
 * gave up on what zlib accepted, 3 past the capacity. */
int32_t imc_inflate_check(const uint8_t *input, size_t length, uint64_t pieces, size_t room, uint8_t *out,
                          size_t capacity, size_t *out_length, size_t *used);
int32_t imc_inflate_zlib(const uint8_t *input, size_t length, uint8_t *out, size_t capacity, size_t *out_length,
                         size_t *used);
int32_t imc_inflate_differential(const uint8_t *input, size_t length, uint64_t pieces, size_t room, size_t capacity,
                                 int32_t *outcome);
#endif
