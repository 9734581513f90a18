/* jpeg_restart.c: what the sequential and the progressive scan decoders share between MCUs: a
 * scan's Huffman tables, built from the DHT specs when the scan uses them, and the step over a
 * restart marker.
 */
#include "jpeg_internal.h"

const huffman_table *imc_jpeg_table_for(huffman_table tables[2][HUFFMAN_SLOTS], const frame_info *frame, int ac,
                                        int slot) {
  if (slot < 0 || slot >= HUFFMAN_SLOTS) return NULL;
  const huffman_spec *spec = &frame->huffman[ac][slot];
  if (!spec->defined) return NULL; /* libjpeg would use its standard tables: leave it to libjpeg */
  huffman_table *table = &tables[ac][slot];
  if (table->built && table->built_from == spec->version) return table;
  if (!imc_jpeg_build_table(table, spec, ac)) return NULL;
  return table;
}

int imc_jpeg_restart(bit_reader *r, int *restarting, unsigned *next_restart, const uint8_t *input, size_t length,
                     int eof) {
  if (!*restarting) {
    /* libjpeg discards the bits left before the marker. */
    r->bits = 0;
    r->count = r->padded = 0;
    *restarting = 1;
  }
  size_t at = (size_t)(r->next - input);
  int found = imc_jpeg_find_marker(input, length, eof, &at);
  if (found < 0) return -1;
  if (found == 0) {
    /* No marker yet. The bytes looked at are what libjpeg skips before a marker, all but a run of
     * FFs at the end (the start of one, maybe): move past them, so that what the caller keeps
     * shrinks, and asking for more input always makes room for it. */
    size_t keep = length;
    while (keep > at && input[keep - 1] == 0xFF) keep--;
    if (keep > at) r->next = input + keep;
    return 0;
  }
  size_t code = at + 1;
  while (input[code] == 0xFF) code++;
  if (input[code] != 0xD0 + *next_restart) return -1;
  r->next = input + code + 1;
  r->marker = 0;
  r->ended = 0;
  *next_restart = (*next_restart + 1) & 7;
  *restarting = 0;
  return 1;
}
