/* A HEIF file's own account of where its data is, checked against its length before libheif reads
 * it (imc_heif_extents.c). Private to the libheif adapter. */
#ifndef IMC_HEIF_EXTENTS_H
#define IMC_HEIF_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

/* Whether the file is cut short by its own structure: a top-level box, or an extent of any item in
 * the `iloc` box (the item's data in the file), running past the last byte. Returns 1 and writes
 * the one-line reason into `reason` when it is; 0 when everything it names is there, or when the
 * structure cannot be read (what libheif then says about it is the verdict). */
int imc_heif_cut_short(const uint8_t *bytes, size_t length, char *reason, size_t capacity);

#endif
