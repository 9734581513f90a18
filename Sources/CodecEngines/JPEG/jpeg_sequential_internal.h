/* The sequential scan decoder's state and its per-block steps (jpeg_sequential.c). Internal to the
 * engine. */
#ifndef IMC_JPEG_SEQUENTIAL_INTERNAL_H
#define IMC_JPEG_SEQUENTIAL_INTERNAL_H

#include "jpeg_internal.h"

/* What happens to one block of an MCU, decided once. */
enum {
  BLOCK_SKIPPED = 0, /* no samples: discarding, or the component does not reach the output */
  BLOCK_DC_PIXEL,    /* one sample from the DC (a 1x1 inverse DCT) */
  BLOCK_WITH_AC,     /* AC coefficients decoded for a larger inverse DCT */
};

typedef struct {
  int component;   /* frame index */
  int scan_index;  /* its place in the scan (DC predictor) */
  int kind;        /* BLOCK_* */
  int scaled;      /* inverse DCT size */
  const huffman_table *dc, *ac;
  int y;           /* its first sample row in the component's plane */
  uint32_t x_step, x_offset; /* its first sample column: mcu_x * x_step + x_offset */
} block_plan;

struct imc_jpeg_sequential {
  frame_info *frame;
  imc_jpeg_output *output; /* NULL when discarding */
  huffman_table tables[2][HUFFMAN_SLOTS];
  block_plan blocks[MAX_BLOCKS_IN_MCU];
  int block_count;
  int components_in_scan;
  int needed[4]; /* per scan component: its DC is summed */
  uint32_t mcus_per_row, mcu_rows;
  int16_t block[64];
  int block_dirty; /* `block` holds AC coefficients of the last block */
  /* Where the scan is. */
  bit_reader reader;
  int dc[4];
  uint32_t mcu_x, mcu_y;
  unsigned restart_interval, restarts_to_go, next_restart;
  int restarting; /* looking for a restart marker (the bits were dropped) */
  int finished; /* every MCU decoded */
};

/* Decodes one block: its DC difference, and its AC coefficients into `block` (zeroed by the caller)
 * when it has any, else skipped. Returns 0 on a code no table has, 1 when no AC coefficient was
 * stored, 2 when one was. */
static inline __attribute__((always_inline)) int decode_block(bit_reader *r, const block_plan *plan, int16_t *block,
                                                              int *difference) {
  if (r->count < 32) fill(r);
  int size = decode_symbol(r, plan->dc);
  if (size < 0) return 0;
  *difference = 0;
  if (size) {
    if (r->count < 32) fill(r);
    *difference = extend(take_bits(r, size), size);
  }
  const huffman_table *ac = plan->ac;
  if (block) {
    int stored = 1;
    for (int k = 1; k < 64; k++) {
      if (r->count < 32) fill(r);
      int32_t entry = ac->coef[peek(r, FAST_BITS)];
      if (entry & COEF_FLAG) {
        drop(r, entry & 31);
        k += (entry >> 8) & 15;
        block[imc_jpeg_zigzag[k]] = (int16_t)(entry >> 16);
        stored = 2;
        continue;
      }
      int symbol = decode_symbol(r, ac);
      if (symbol < 0) return 0;
      int run = symbol >> 4, magnitude = symbol & 15;
      if (magnitude) {
        k += run;
        block[imc_jpeg_zigzag[k]] = (int16_t)extend(take_bits(r, magnitude), magnitude);
        stored = 2;
      } else {
        if (run != 15) break;
        k += 15;
      }
    }
    return stored;
  }
  for (int k = 1; k < 64;) {
    if (r->count < FAST_BITS) fill(r);
    unsigned entry = ac->skip[peek(r, FAST_BITS)];
    if (entry) {
      drop(r, (int)(entry & SKIP_LENGTH_MASK));
      if (entry & SKIP_END_OF_BLOCK) break;
      k += (int)(entry >> SKIP_ADVANCE_SHIFT);
      continue;
    }
    if (r->count < 32) fill(r);
    int symbol = decode_symbol(r, ac);
    if (symbol < 0) return 0;
    int run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude) {
      drop(r, magnitude);
      k += run + 1;
    } else {
      if (run != 15) break;
      k += 16;
    }
  }
  return 1;
}

/* Adds a DC difference to the component's sum; 0 when the sum would leave int. */
static inline int add_dc(imc_jpeg_sequential *s, const block_plan *plan, int difference) {
  if (!s->needed[plan->scan_index]) return 1;
  return add_dc_difference(s->dc[plan->scan_index], difference, &s->dc[plan->scan_index]);
}

/* The samples of one block of the current MCU into its component's plane (`has_ac`: the block holds
 * AC coefficients). 0 when the block is outside what the inverse DCT computes exactly as libjpeg. */
static inline int make_samples(imc_jpeg_sequential *s, const block_plan *plan, int16_t *block, int has_ac) {
  if (plan->kind == BLOCK_SKIPPED) return 1;
  imc_jpeg_output *output = s->output;
  component_info *component = &s->frame->component[plan->component];
  size_t stride = output->plane_stride[plan->component];
  uint8_t *at = output->planes[plan->component] + (size_t)plan->y * stride + s->mcu_x * plan->x_step + plan->x_offset;
  int16_t dc = (int16_t)s->dc[plan->scan_index]; /* stored as libjpeg stores it: 16 bits */
  if (plan->kind == BLOCK_DC_PIXEL) {
    *at = imc_jpeg_idct_dc(dc, component->quant[0]);
    return 1;
  }
  if (!has_ac) return imc_jpeg_idct_flat(plan->scaled, dc, component->quant[0], at, stride);
  block[0] = dc;
  return imc_jpeg_idct(plan->scaled, block, component->quant, at, stride);
}

#endif
