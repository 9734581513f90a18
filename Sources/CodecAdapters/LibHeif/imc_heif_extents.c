/* imc_heif_extents.c: see imc_heif_extents.h.
 *
 * libheif 1.15 checks every item's `iloc` extents when it reads a file; later versions check only
 * the extents of the items a decode reads, so a file cut short inside its Exif, a thumbnail or an
 * alternative image would decode. The verdict is imgfetch's, the same with every libheif: a file
 * whose boxes or items run past its end is truncated. Only what ISO/IEC 14496-12 fixes is read
 * (box headers; the `meta` full box; `iloc` versions 0 to 2); anything else ends the check with no
 * verdict, as does an item whose data is in another file or in the `idat` box. */
#include "imc_heif_extents.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const uint8_t *at;
  size_t left;
} reader;

static int read_uint(reader *r, int bytes, uint64_t *value) {
  if (bytes < 0 || bytes > 8 || r->left < (size_t)bytes) return 0;
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = v << 8 | r->at[i];
  r->at += bytes;
  r->left -= (size_t)bytes;
  *value = v;
  return 1;
}

/* One box header at `offset`: its type and where its contents start and end (`end` may pass
 * `length`: the caller decides). Returns 0 when no header fits, or when its type is not four
 * printable characters, as every box type is: bytes that are not a box (damage, not truncation). */
static int box_at(const uint8_t *bytes, size_t length, uint64_t offset, char type[5], uint64_t *body, uint64_t *end) {
  if (offset > length || length - offset < 8) return 0;
  reader r = {bytes + offset, length - offset};
  uint64_t size = 0, ignored = 0;
  read_uint(&r, 4, &size);
  memcpy(type, r.at, 4);
  type[4] = 0;
  for (int i = 0; i < 4; i++)
    if (type[i] < 0x20 || type[i] > 0x7e) return 0;
  read_uint(&r, 4, &ignored);
  uint64_t header = 8;
  if (size == 1) {
    if (!read_uint(&r, 8, &size)) return 0;
    header = 16;
  } else if (size == 0) {
    size = length - offset; /* to the end of the file */
  }
  if (size < header || size > UINT64_MAX - offset) return 0;
  *body = offset + header;
  *end = offset + size;
  return 1;
}

/* The `iloc` box's items whose data is in this file (construction method 0): each extent must end
 * within it. */
static int extents_cut_short(reader r, size_t length, char *reason, size_t capacity) {
  uint64_t version = 0, flags = 0, sizes = 0, count = 0;
  if (!read_uint(&r, 1, &version) || !read_uint(&r, 3, &flags) || version > 2 || !read_uint(&r, 2, &sizes)) return 0;
  int offset_size = (int)(sizes >> 12 & 15), length_size = (int)(sizes >> 8 & 15);
  int base_size = (int)(sizes >> 4 & 15), index_size = version >= 1 ? (int)(sizes & 15) : 0;
  if (!read_uint(&r, version < 2 ? 2 : 4, &count)) return 0;
  for (uint64_t item = 0; item < count; item++) {
    uint64_t id = 0, method = 0, reference = 0, base = 0, extents = 0;
    if (!read_uint(&r, version < 2 ? 2 : 4, &id)) return 0;
    if (version >= 1 && !read_uint(&r, 2, &method)) return 0;
    if (!read_uint(&r, 2, &reference) || !read_uint(&r, base_size, &base) || !read_uint(&r, 2, &extents)) return 0;
    for (uint64_t e = 0; e < extents; e++) {
      uint64_t index = 0, offset = 0, size = 0;
      if (!read_uint(&r, index_size, &index) || !read_uint(&r, offset_size, &offset) ||
          !read_uint(&r, length_size, &size))
        return 0;
      if ((method & 15) != 0 || reference != 0) continue; /* in `idat`, another item or another file */
      if (offset > UINT64_MAX - base || base + offset > UINT64_MAX - size) return 0;
      uint64_t start = base + offset, end = start + size; /* a length of 0: to the end of the file */
      if (start > length || end > length) {
        snprintf(reason, capacity, "item %llu's data runs to byte %llu, past the end of the file (%zu bytes)",
                 (unsigned long long)id, (unsigned long long)(end > start ? end : start), length);
        return 1;
      }
    }
  }
  return 0;
}

int imc_heif_cut_short(const uint8_t *bytes, size_t length, char *reason, size_t capacity) {
  uint64_t offset = 0, body = 0, end = 0;
  char type[5];
  while (offset < length && box_at(bytes, length, offset, type, &body, &end)) {
    if (end > length) {
      snprintf(reason, capacity, "the '%s' box runs to byte %llu, past the end of the file (%zu bytes)", type,
               (unsigned long long)end, length);
      return 1;
    }
    if (strcmp(type, "meta") == 0 && end - body >= 4) {
      /* A full box: its version and flags, then its boxes. */
      uint64_t child = body + 4, child_body = 0, child_end = 0;
      char child_type[5];
      while (child < end && box_at(bytes, (size_t)end, child, child_type, &child_body, &child_end)) {
        if (strcmp(child_type, "iloc") == 0) {
          reader r = {bytes + child_body, (size_t)(child_end - child_body)};
          if (child_end <= end && extents_cut_short(r, length, reason, capacity)) return 1;
        }
        child = child_end;
      }
    }
    offset = end;
  }
  return 0;
}
