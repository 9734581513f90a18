// SHA-256 for the test support: C, so that hashing megapixel decodes stays fast in debug builds
// (the Swift version took ~20x longer at -Onone, and Package.swift may not use unsafeFlags to
// optimise one target).
#ifndef CFIXTURESUPPORT_H
#define CFIXTURESUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Writes the SHA-256 digest (FIPS 180-4) of `length` bytes at `bytes` into `digest`.
void cfs_sha256(const void *bytes, size_t length, uint8_t digest[32]);

#endif
