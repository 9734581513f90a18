/* jpeg_progressive.c: the scans of a progressive Huffman JPEG, decoded into the engine's own
 * coefficient storage, and the output from it once every scan is in.
 *
 * Why: a progressive JPEG's strict decode spends most of its time in libjpeg-turbo's jdphuff.c,
 * which reads the data a byte at a time (and, with the 511-byte windows imgfetch's libjpeg adapter
 * uses for one verdict however bytes arrive, a function call per symbol). Every DCT scale needs
 * every coefficient decoded (refinement scans depend on each coefficient's history), so here the
 * same symbols are decoded into the same coefficients with a bit buffer refilled eight bytes at a
 * time and tables that resolve a code (with its magnitude bits, for a first AC scan; with its sign
 * or end-of-band bits, for a refinement) in one lookup.
 *
 * A component whose output is one sample per block (1x1: luma at 1/8 scale), or which does not
 * reach the output (chroma of a grayscale output, everything of a validation), is decoded
 * DC-only: the engine keeps its blocks' DC values (when they reach the output) and the masks of
 * which AC coefficients are nonzero (all a refinement scan's parsing depends on), and never stores
 * an AC value: 2 + 8 bytes a block instead of 128. Other components keep whole blocks.
 *
 * What the engine accepts, beyond the marker rules: each scan's parameters as libjpeg requires them
 * (its errors) and in an order libjpeg does not warn about (its JWRN_BOGUS_PROGRESSION), every code
 * complete, no bit read past a scan's data, restart markers where they belong, DC sums within int
 * (libjpeg's error), and refinement symbols libjpeg decodes without a warning. At the end, libjpeg
 * smooths the blocks of an image whose DC or first nine AC coefficients are not all complete
 * (its block smoothing, which also differs between libjpeg-turbo versions): the engine gives up on
 * such an image's pixels rather than imitate it.
 */
#include "jpeg_internal.h"

#include <stdlib.h>
#include <sys/mman.h>

enum { SCAN_NONE = 0, SCAN_DC_FIRST, SCAN_DC_REFINE, SCAN_AC_FIRST, SCAN_AC_REFINE };

struct imc_jpeg_progressive {
  frame_info *frame;
  int discard;
  size_t memory, memory_limit;
  huffman_table tables[2][HUFFMAN_SLOTS];
  /* The scan in progress. */
  int kind;
  int Ss, Se, Al;
  int components[4], count;
  const huffman_table *ac;
  const huffman_table *dc[4];
  int blocks; /* per MCU */
  int block_component[MAX_BLOCKS_IN_MCU], block_x[MAX_BLOCKS_IN_MCU], block_y[MAX_BLOCKS_IN_MCU];
  int dc_only; /* an AC scan of a DC-only component */
  uint32_t mcus_per_row, mcu_rows;
  uint32_t mcu_x, mcu_y;
  int dc_last[4];
  unsigned eobrun;
  unsigned restart_interval, restarts_to_go, next_restart;
  int restarting;
  bit_reader reader;
  int16_t dummy; /* a DC no one keeps */
};

/* Zeroed memory, mapped and populated at once: masks and DCs are read before they are written (a
 * mask by its scan, a DC by a refinement), so a page left to fault would be mapped to the zero
 * page first and copied on the write, which flushes the TLB of every core running the process;
 * and a calloc of this size beside other large buffers made glibc trim its heap after each decode. */
static void *map_zeroed(imc_jpeg_progressive *p, size_t bytes) {
  if (bytes == 0 || bytes > p->memory_limit - p->memory) return NULL;
  void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) return NULL;
  p->memory += bytes;
  return memory;
}

imc_jpeg_progressive *imc_jpeg_progressive_create(frame_info *frame, const imc_jpeg_engine_request *request,
                                                  const char **reason) {
  imc_jpeg_progressive *p = calloc(1, sizeof *p);
  if (!p) {
    *reason = "out of memory";
    return NULL;
  }
  p->frame = frame;
  p->discard = request->discard_pixels;
  p->memory_limit = request->max_memory;
  for (int c = 0; c < frame->components; c++) {
    component_info *component = &frame->component[c];
    size_t blocks = (size_t)component->block_stride * (size_t)component->block_rows;
    int reaches_output = !p->discard && component->needed;
    if (reaches_output && component->scaled > 1) {
      component->blocks_bytes = blocks * 64 * sizeof(int16_t);
      component->blocks = map_zeroed(p, component->blocks_bytes);
      if (!component->blocks) goto refuse;
    } else if (reaches_output) {
      component->dc_bytes = blocks * sizeof(int16_t);
      component->dc = map_zeroed(p, component->dc_bytes);
      if (!component->dc) goto refuse;
    }
  }
  return p;
refuse:
  *reason = "no memory for the coefficients (or over the engine's limit)";
  imc_jpeg_progressive_destroy(p);
  return NULL;
}

void imc_jpeg_progressive_destroy(imc_jpeg_progressive *p) {
  if (!p) return;
  frame_info *frame = p->frame;
  for (int c = 0; c < frame->components; c++) {
    component_info *component = &frame->component[c];
    if (component->blocks) munmap(component->blocks, component->blocks_bytes);
    if (component->dc) munmap(component->dc, component->dc_bytes);
    if (component->nonzero) munmap(component->nonzero, component->nonzero_bytes);
    component->blocks = NULL;
    component->dc = NULL;
    component->nonzero = NULL;
  }
  free(p);
}

/* The checks libjpeg's progressive entropy decoder makes as a scan starts (its start_pass): errors
 * for impossible parameters, warnings for an order that does not follow the coefficients'
 * history. Both make the engine give up. Updates the coefficients' history as libjpeg does. */
static int check_progression(imc_jpeg_progressive *p, const scan_header *scan, const char **reason) {
  int dc = scan->Ss == 0;
  int bad = dc ? scan->Se != 0 : (scan->Ss > scan->Se || scan->Se > 63 || scan->count != 1);
  if (scan->Ah != 0 && scan->Al != scan->Ah - 1) bad = 1;
  if (scan->Al > 13) bad = 1;
  if (bad) {
    *reason = "a progressive scan's parameters";
    return 0;
  }
  for (int i = 0; i < scan->count; i++) {
    component_info *component = &p->frame->component[scan->component[i]];
    if (!dc && component->coef_bits[0] < 0) {
      *reason = "an AC scan before the DC scan";
      return 0;
    }
    for (int k = scan->Ss; k <= scan->Se; k++) {
      int expected = component->coef_bits[k] < 0 ? 0 : component->coef_bits[k];
      if (scan->Ah != expected) {
        *reason = "scans out of progression order";
        return 0;
      }
      component->coef_bits[k] = scan->Al;
    }
  }
  return 1;
}

int imc_jpeg_progressive_start_scan(imc_jpeg_progressive *p, const scan_header *scan, const char **reason) {
  frame_info *frame = p->frame;
  if (!check_progression(p, scan, reason)) return 0;
  p->Ss = scan->Ss;
  p->Se = scan->Se;
  p->Al = scan->Al;
  p->count = scan->count;
  int dc = scan->Ss == 0;
  p->kind = dc ? (scan->Ah == 0 ? SCAN_DC_FIRST : SCAN_DC_REFINE) : (scan->Ah == 0 ? SCAN_AC_FIRST : SCAN_AC_REFINE);
  p->blocks = 0;
  int interleaved = scan->count > 1;
  for (int i = 0; i < scan->count; i++) {
    int c = scan->component[i];
    component_info *component = &frame->component[c];
    p->components[i] = c;
    if (p->kind == SCAN_DC_FIRST) {
      p->dc[i] = imc_jpeg_table_for(p->tables, frame, 0, scan->dc_table[i]);
      if (!p->dc[i]) {
        *reason = "a scan's Huffman table is not defined or not valid";
        return 0;
      }
    } else if (!dc) {
      p->ac = imc_jpeg_table_for(p->tables, frame, 1, scan->ac_table[i]);
      if (!p->ac) {
        *reason = "a scan's Huffman table is not defined or not valid";
        return 0;
      }
      if (!component->nonzero) {
        component->nonzero_bytes = (size_t)component->block_stride * component->block_rows * sizeof(uint64_t);
        component->nonzero = map_zeroed(p, component->nonzero_bytes);
        if (!component->nonzero) {
          *reason = "no memory for the coefficients (or over the engine's limit)";
          return 0;
        }
      }
    }
    p->dc_last[i] = 0;
    int across = interleaved ? component->h : 1, down = interleaved ? component->v : 1;
    for (int y = 0; y < down; y++)
      for (int x = 0; x < across; x++) {
        p->block_component[p->blocks] = i;
        p->block_x[p->blocks] = x;
        p->block_y[p->blocks] = y;
        p->blocks++;
      }
  }
  component_info *first = &frame->component[scan->component[0]];
  p->dc_only = !dc && !first->blocks;
  p->mcus_per_row = interleaved ? frame->mcus_per_row : first->width_in_blocks;
  p->mcu_rows = interleaved ? frame->mcu_rows : first->height_in_blocks;
  p->mcu_x = p->mcu_y = 0;
  p->eobrun = 0;
  p->restart_interval = frame->restart_interval;
  p->restarts_to_go = frame->restart_interval;
  p->next_restart = 0;
  p->restarting = 0;
  memset(&p->reader, 0, sizeof p->reader);
  return 1;
}

/* ---- MCUs; each returns 0 to give up ---- */

/* libjpeg's LEFT_SHIFT then its store into a 16-bit coefficient. */
static inline int16_t shifted(int value, int shift) { return (int16_t)(int32_t)((uint32_t)value << shift); }

static inline int dc_first(imc_jpeg_progressive *p, bit_reader *r, int16_t **dc) {
  for (int b = 0; b < p->blocks; b++) {
    int i = p->block_component[b];
    if (r->count < 32) fill(r);
    int size = decode_symbol(r, p->dc[i]);
    if (size < 0) return 0;
    int difference = 0;
    if (size) {
      if (r->count < 32) fill(r);
      difference = extend(take_bits(r, size), size);
    }
    if (!add_dc_difference(p->dc_last[i], difference, &p->dc_last[i])) return 0;
    *dc[b] = shifted(p->dc_last[i], p->Al);
  }
  return 1;
}

static inline int dc_refine(imc_jpeg_progressive *p, bit_reader *r, int16_t **dc) {
  if (r->count < 32) fill(r);
  int16_t bit = (int16_t)(1 << p->Al);
  for (int b = 0; b < p->blocks; b++) *dc[b] |= (int16_t)(bit & -take_bit(r));
  return 1;
}

/* The mask with bit k saying whether the coefficient just stored at zigzag index k is nonzero.
 * libjpeg decides a coefficient's history (whether a refinement reads a correction bit for it) by
 * the stored value, and a first scan may store a zero over a nonzero value: a band sent again with
 * a large Al (8 << 13 is 0 in 16 bits). So the bit is set or cleared, never only set; without a
 * branch, as the values' being zero goes either way. */
static inline uint64_t with_history(uint64_t mask, int k, int16_t value) {
  return (mask & ~(1ull << k)) | ((uint64_t)(value != 0) << k);
}

/* `block` is NULL in a DC-only decode (the values decide the masks, and are not stored). */
static inline __attribute__((always_inline)) int ac_first(imc_jpeg_progressive *p, bit_reader *r, int16_t *block,
                                                          uint64_t *nonzero, const int dc_only) {
  if (p->eobrun > 0) {
    p->eobrun--;
    return 1;
  }
  const huffman_table *t = p->ac;
  int Se = p->Se, Al = p->Al;
  uint64_t mask = *nonzero;
  for (int k = p->Ss; k <= Se; k++) {
    if (r->count < 32) fill(r);
    int32_t entry = t->coef[peek(r, FAST_BITS)];
    if (entry & COEF_FLAG) {
      drop(r, entry & 31);
      k += (entry >> 8) & 15;
      if (k > Se) return 0; /* libjpeg stores it past the band without a warning: leave it to libjpeg */
      int16_t value = shifted(entry >> 16, Al);
      if (!dc_only) block[imc_jpeg_zigzag[k]] = value;
      mask = with_history(mask, k, value);
      continue;
    }
    int symbol = decode_symbol(r, t);
    if (symbol < 0) return 0;
    int run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude) {
      k += run;
      if (k > Se) return 0;
      if (r->count < 32) fill(r);
      int16_t value = shifted(extend(take_bits(r, magnitude), magnitude), Al);
      if (!dc_only) block[imc_jpeg_zigzag[k]] = value;
      mask = with_history(mask, k, value);
    } else if (run == 15) {
      k += 15;
    } else {
      unsigned eobrun = 1u << run;
      if (run) {
        if (r->count < 32) fill(r);
        eobrun += (unsigned)take_bits(r, run);
      }
      p->eobrun = eobrun - 1;
      break;
    }
  }
  *nonzero = mask;
  return 1;
}

/* Zigzag indexes from..63 (from <= 63). */
static inline uint64_t from_index(int from) { return ~0ull << from; }

/* Drops `count` bits (correction bits of coefficients a DC-only decode does not keep). */
static inline void skip_bits(bit_reader *r, int count) {
  while (count > 0) {
    if (r->count < 32) fill(r);
    int step = count < 32 ? count : 32;
    drop(r, step);
    count -= step;
  }
}

/* A correction bit for each coefficient in `which` (zigzag bits), in zigzag order: a set bit adds
 * the scan's bit to the magnitude unless it is there already. */
static inline __attribute__((always_inline)) void refine(bit_reader *r, int16_t *block, uint64_t which, int p1,
                                                         const int dc_only) {
  if (dc_only) {
    skip_bits(r, __builtin_popcountll(which));
    return;
  }
  while (which) {
    int k = __builtin_ctzll(which);
    which &= which - 1;
    if (r->count < 1) fill(r);
    /* Without a branch on the bit: correction bits are as often 1 as 0, so a branch on one is
     * mispredicted about half the time (a third of a progressive decode's mispredictions). */
    int16_t *coef = block + imc_jpeg_zigzag[k];
    int value = *coef;
    int apply = take_bit(r) & ((value & p1) == 0);
    int negative = -(value < 0);             /* 0 or -1 */
    int step = (p1 ^ negative) - negative; /* p1, or -p1 for a negative value */
    *coef = (int16_t)(value + (step & -apply));
  }
}

static inline __attribute__((always_inline)) int ac_refine(imc_jpeg_progressive *p, bit_reader *r, int16_t *block,
                                                           uint64_t *nonzero, const int dc_only) {
  int Se = p->Se;
  int p1 = 1 << p->Al, m1 = (int)((unsigned)-1 << p->Al);
  uint64_t band = Se == 63 ? ~0ull : (2ull << Se) - 1; /* zigzag indexes up to Se */
  uint64_t mask = *nonzero;
  int k = p->Ss;
  if (p->eobrun == 0) {
    const huffman_table *t = p->ac;
    while (k <= Se) {
      if (r->count < 32) fill(r);
      int run, value = 0;
      int32_t entry = t->refine[peek(r, FAST_BITS)];
      if (entry) {
        drop(r, entry & 31);
        int kind = (entry >> 10) & 3;
        if (kind == REFINE_EOB) {
          p->eobrun = (unsigned)entry >> 16;
          break;
        }
        run = (entry >> 5) & 15;
        if (kind != REFINE_ZRL) value = kind == REFINE_PLUS ? p1 : m1;
      } else {
        int symbol = decode_symbol(r, t);
        if (symbol < 0) return 0;
        run = symbol >> 4;
        if (symbol & 15) {
          if ((symbol & 15) != 1) return 0; /* libjpeg warns */
          if (r->count < 32) fill(r);
          value = take_bit(r) ? p1 : m1;
        } else if (run != 15) {
          unsigned eobrun = 1u << run;
          if (run) {
            if (r->count < 32) fill(r);
            eobrun += (unsigned)take_bits(r, run);
          }
          p->eobrun = eobrun;
          break;
        }
      }
      /* Past `run` coefficients without history (those with one get their correction bits) to the
       * next one without: the new coefficient goes there. Mostly the next run + 1 have none. */
      if (k + run <= Se && (mask & (((2ull << run) - 1) << k)) == 0) {
        if (value) {
          if (!dc_only) block[imc_jpeg_zigzag[k + run]] = (int16_t)value;
          mask |= 1ull << (k + run);
        }
        k += run + 1;
        continue;
      }
      uint64_t zeros = ~mask & band & from_index(k);
      for (int i = 0; i < run && zeros; i++) zeros &= zeros - 1;
      int target = zeros ? __builtin_ctzll(zeros) : Se + 1;
      uint64_t before = zeros ? (1ull << target) - 1 : band;
      refine(r, block, mask & from_index(k) & before, p1, dc_only);
      if (value) {
        if (target > Se) return 0; /* libjpeg stores it past the band without a warning */
        if (!dc_only) block[imc_jpeg_zigzag[target]] = (int16_t)value;
        mask |= 1ull << target;
      }
      k = target + 1;
    }
  }
  if (p->eobrun > 0) {
    if (k <= Se) refine(r, block, mask & from_index(k) & band, p1, dc_only);
    p->eobrun--;
  }
  *nonzero = mask;
  return 1;
}

/* ---- the scan ---- */

/* At a restart (imc_jpeg_restart), with the scan's own state reset after the marker. */
static int restart(imc_jpeg_progressive *p, const uint8_t *input, size_t length, int eof) {
  int restarted = imc_jpeg_restart(&p->reader, &p->restarting, &p->next_restart, input, length, eof);
  if (restarted <= 0) return restarted;
  for (int i = 0; i < 4; i++) p->dc_last[i] = 0;
  p->eobrun = 0;
  p->restarts_to_go = p->restart_interval;
  return 1;
}

/* The DC slot of block `b` of the MCU at (mcu_x, mcu_y). */
static inline int16_t *dc_slot(imc_jpeg_progressive *p, int b) {
  component_info *component = &p->frame->component[p->components[p->block_component[b]]];
  int interleaved = p->count > 1;
  uint32_t x = interleaved ? p->mcu_x * (uint32_t)component->h + (uint32_t)p->block_x[b] : p->mcu_x;
  uint32_t y = interleaved ? p->mcu_y * (uint32_t)component->v + (uint32_t)p->block_y[b] : p->mcu_y;
  size_t index = (size_t)y * component->block_stride + x;
  if (component->blocks) return component->blocks + index * 64;
  if (component->dc) return component->dc + index;
  return &p->dummy;
}

static inline __attribute__((always_inline)) int run_scan(imc_jpeg_progressive *p, const int kind, const int dc_only,
                                                          const uint8_t *input, size_t length, int eof,
                                                          const char **reason) {
  bit_reader *r = &p->reader;
  mcu_start_limit safe;
  mcu_start_limit_reset(&safe, r->next, r->end, eof);
  component_info *single = &p->frame->component[p->components[0]];
  unsigned interval = p->restart_interval;
  while (p->mcu_y < p->mcu_rows) {
    size_t row = (size_t)p->mcu_y * single->block_stride;
    while (p->mcu_x < p->mcus_per_row) {
      if (interval && p->restarts_to_go == 0) {
        int restarted = restart(p, input, length, eof);
        if (restarted == 0) return STEP_INPUT;
        if (restarted < 0) {
          *reason = "a restart marker out of place";
          return STEP_GIVE_UP;
        }
        mcu_start_limit_reset(&safe, r->next, r->end, eof);
      }
      if (!mcu_may_start(&safe, r)) return STEP_INPUT;
      int ok;
      if (kind == SCAN_AC_FIRST || kind == SCAN_AC_REFINE) {
        size_t index = row + p->mcu_x;
        int16_t *block = dc_only ? NULL : single->blocks + index * 64;
        uint64_t *nonzero = single->nonzero + index;
        if (kind == SCAN_AC_FIRST && p->eobrun > 0) {
          /* A run of empty blocks: skip as many as the row and the interval allow. */
          unsigned skip = p->eobrun;
          uint32_t left = p->mcus_per_row - p->mcu_x;
          if (skip > left) skip = left;
          if (interval && skip > p->restarts_to_go) skip = p->restarts_to_go;
          p->eobrun -= skip;
          if (interval) p->restarts_to_go -= skip;
          p->mcu_x += skip;
          continue;
        }
        ok = kind == SCAN_AC_FIRST ? ac_first(p, r, block, nonzero, dc_only) : ac_refine(p, r, block, nonzero, dc_only);
      } else {
        int16_t *dc[MAX_BLOCKS_IN_MCU];
        for (int b = 0; b < p->blocks; b++) dc[b] = dc_slot(p, b);
        ok = kind == SCAN_DC_FIRST ? dc_first(p, r, dc) : dc_refine(p, r, dc);
      }
      if (!ok || read_past_data(r)) {
        *reason = read_past_data(r) ? "the scan's data ends early" : "a code libjpeg would warn about";
        return STEP_GIVE_UP;
      }
      if (interval) p->restarts_to_go--;
      p->mcu_x++;
    }
    p->mcu_x = 0;
    p->mcu_y++;
  }
  p->kind = SCAN_NONE;
  imc_jpeg_count_scan();
  return STEP_DONE;
}

int imc_jpeg_progressive_step(imc_jpeg_progressive *p, const uint8_t *input, size_t length, int eof,
                              size_t *position, const char **reason) {
  bit_reader *r = &p->reader;
  r->next = input + *position;
  r->end = input + length;
  if (!r->marker) r->ended = 0;
  int result;
  switch (p->kind) {
  case SCAN_DC_FIRST: result = run_scan(p, SCAN_DC_FIRST, 0, input, length, eof, reason); break;
  case SCAN_DC_REFINE: result = run_scan(p, SCAN_DC_REFINE, 0, input, length, eof, reason); break;
  case SCAN_AC_FIRST:
    result = p->dc_only ? run_scan(p, SCAN_AC_FIRST, 1, input, length, eof, reason)
                        : run_scan(p, SCAN_AC_FIRST, 0, input, length, eof, reason);
    break;
  case SCAN_AC_REFINE:
    result = p->dc_only ? run_scan(p, SCAN_AC_REFINE, 1, input, length, eof, reason)
                        : run_scan(p, SCAN_AC_REFINE, 0, input, length, eof, reason);
    break;
  default:
    *reason = "no scan";
    return STEP_GIVE_UP;
  }
  *position = (size_t)(r->next - input);
  if (result == STEP_DONE) {
    r->bits = 0;
    r->count = r->padded = 0;
  }
  return result;
}

int imc_jpeg_progressive_would_smooth(const imc_jpeg_progressive *p) {
  /* libjpeg smooths when some component's DC or first nine AC coefficients are incomplete (and
   * its other conditions hold); with all of them complete it never does, in any version. */
  const frame_info *frame = p->frame;
  for (int c = 0; c < frame->components; c++)
    for (int k = 0; k <= 9; k++)
      if (frame->component[c].coef_bits[k] != 0) return 1;
  return 0;
}

void imc_jpeg_progressive_output_row(imc_jpeg_progressive *p, imc_jpeg_output *output, uint32_t row) {
  const frame_info *frame = p->frame;
  for (int c = 0; c < frame->components; c++) {
    const component_info *component = &frame->component[c];
    if (!component->needed) continue;
    uint32_t v = (uint32_t)component->v;
    uint32_t block_rows = v;
    if (row == frame->imcu_rows - 1) {
      block_rows = component->height_in_blocks % v;
      if (block_rows == 0) block_rows = v;
    }
    int size = component->scaled;
    size_t stride = output->plane_stride[c];
    for (uint32_t by = 0; by < block_rows; by++) {
      size_t block_row = ((size_t)row * v + by) * component->block_stride;
      uint8_t *out = output->planes[c] + (size_t)by * (size_t)size * stride;
      if (component->dc) {
        const int16_t *dc = component->dc + block_row;
        for (uint32_t bx = 0; bx < component->width_in_blocks; bx++)
          out[bx] = imc_jpeg_idct_dc(dc[bx], component->quant[0]);
      } else {
        const int16_t *block = component->blocks + block_row * 64;
        const uint64_t *masks = component->nonzero ? component->nonzero + block_row : NULL;
        for (uint32_t bx = 0; bx < component->width_in_blocks; bx++, block += 64) {
          uint8_t *at = out + (size_t)bx * (size_t)size;
          int exact = masks && masks[bx] == 0 ? imc_jpeg_idct_flat(size, block[0], component->quant[0], at, stride)
                                              : imc_jpeg_idct(size, block, component->quant, at, stride);
          if (!exact) output->inexact = 1;
        }
      }
    }
  }
}
