/* jpeg_sequential.c: a baseline (sequential Huffman) scan, decoded at a reduced scale.
 *
 * Why: at 1/8 scale libjpeg makes each full-resolution block one sample from its DC coefficient, so
 * nearly all of a thumbnail's or a validation's time is Huffman decoding of AC coefficients that are
 * then thrown away; libjpeg-turbo decodes them one code at a time on its checked path (which
 * imgfetch's libjpeg adapter always takes, so that damaged data gets one verdict however the bytes
 * arrive). Here a table indexed by the next FAST_BITS bits resolves a code together with its
 * magnitude bits, so a skipped coefficient usually costs one lookup, and the bit buffer is refilled
 * eight bytes at a time. Blocks scaled to more than one sample (subsampled chroma, and everything at
 * 1/4) get their AC coefficients decoded and go through the engine's inverse DCTs.
 *
 * The engine decodes a sequential file only when its one scan carries every component of the frame
 * (so libjpeg decodes it in a single pass, as the rows arrive), checked before the scan starts.
 * It accepts only what libjpeg accepts without a warning that loses data: every code complete, no
 * bit read past the data, each restart marker where it belongs (bytes before it are skipped, as
 * libjpeg skips them with a harmless warning). On anything else (a bad code, data cut short,
 * another marker, a DC sum leaving int, a block outside the inverse DCT's exact range) it gives up.
 * Both decode the same symbols, so rows handed out before giving up are the rows libjpeg produces.
 */
#include "jpeg_sequential_internal.h"

#include <stdlib.h>

imc_jpeg_sequential *imc_jpeg_sequential_create(frame_info *frame, const scan_header *scan, imc_jpeg_output *output,
                                                const imc_jpeg_engine_request *request, const char **reason) {
  if (scan->count != frame->components) {
    *reason = "a sequential file in more than one scan";
    return NULL;
  }
  if (scan->Ss != 0 || scan->Se != 63 || scan->Ah != 0 || scan->Al != 0) {
    *reason = "a sequential scan with progressive parameters";
    return NULL;
  }
  imc_jpeg_sequential *s = calloc(1, sizeof *s);
  if (!s) {
    *reason = "out of memory";
    return NULL;
  }
  s->frame = frame;
  s->output = output;
  s->components_in_scan = scan->count;
  int interleaved = scan->count > 1;
  s->mcus_per_row = interleaved ? frame->mcus_per_row : frame->component[0].width_in_blocks;
  s->mcu_rows = interleaved ? frame->mcu_rows : frame->component[0].height_in_blocks;
  /* Each block of an MCU, planned once (T.81 A.2.3: components in scan order, each component's
   * blocks left to right, top to bottom). */
  int block = 0;
  for (int i = 0; i < scan->count; i++) {
    int c = scan->component[i];
    component_info *component = &frame->component[c];
    const huffman_table *dc = imc_jpeg_table_for(s->tables, frame, 0, scan->dc_table[i]);
    const huffman_table *ac = imc_jpeg_table_for(s->tables, frame, 1, scan->ac_table[i]);
    if (!dc || !ac) {
      *reason = "a scan's Huffman table is not defined or not valid";
      imc_jpeg_sequential_destroy(s);
      return NULL;
    }
    s->needed[i] = component->needed;
    int across = interleaved ? component->h : 1, down = interleaved ? component->v : 1;
    for (int y = 0; y < down; y++)
      for (int x = 0; x < across; x++, block++) {
        block_plan *plan = &s->blocks[block];
        plan->component = c;
        plan->scan_index = i;
        plan->dc = dc;
        plan->ac = ac;
        plan->scaled = component->scaled;
        plan->kind = !output || !component->needed ? BLOCK_SKIPPED
                     : component->scaled > 1       ? BLOCK_WITH_AC
                                                   : BLOCK_DC_PIXEL;
        plan->y = y * component->scaled;
        plan->x_step = (uint32_t)across * (uint32_t)component->scaled;
        plan->x_offset = (uint32_t)x * (uint32_t)component->scaled;
      }
  }
  s->block_count = block;
  s->restart_interval = frame->restart_interval;
  s->restarts_to_go = frame->restart_interval;
  return s;
}

void imc_jpeg_sequential_destroy(imc_jpeg_sequential *s) {
  free(s);
}

/* Decodes one MCU and makes its samples. Returns NULL, or why the engine gives up. */
static const char *decode_mcu(imc_jpeg_sequential *s) {
  bit_reader r = s->reader;
  const char *failure = NULL;
  for (int b = 0; b < s->block_count && !failure; b++) {
    const block_plan *plan = &s->blocks[b];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac && s->block_dirty) {
      memset(s->block, 0, sizeof s->block);
      s->block_dirty = 0;
    }
    int difference;
    int decoded = decode_block(&r, plan, with_ac ? s->block : NULL, &difference);
    if (decoded == 2) s->block_dirty = 1;
    if (!decoded) failure = "a code no table has";
    else if (!add_dc(s, plan, difference)) failure = "a DC sum beyond int";
    else if (!make_samples(s, plan, s->block, decoded == 2)) failure = "coefficients outside the inverse DCT's exact range";
  }
  s->reader = r;
  if (read_past_data(&r)) return "the scan's data ends early";
  return failure;
}

static void drop_bits(bit_reader *r) {
  r->bits = 0;
  r->count = 0;
  r->padded = 0;
}

/* At a restart (imc_jpeg_restart), with the scan's own state reset after the marker. */
static int restart(imc_jpeg_sequential *s, const uint8_t *input, size_t length, int eof) {
  int restarted = imc_jpeg_restart(&s->reader, &s->restarting, &s->next_restart, input, length, eof);
  if (restarted <= 0) return restarted;
  for (int i = 0; i < 4; i++) s->dc[i] = 0;
  s->restarts_to_go = s->restart_interval;
  return 1;
}

int imc_jpeg_sequential_step(imc_jpeg_sequential *s, const uint8_t *input, size_t length, int eof,
                             size_t *position, const char **reason) {
  bit_reader *r = &s->reader;
  /* The reader's pointers are rebuilt from the position: the bytes may have moved. */
  r->next = input + *position;
  r->end = input + length;
  if (!r->marker) r->ended = 0;
  int result;
  if (s->finished) {
    *reason = "the scan is over";
    return STEP_GIVE_UP;
  }
  mcu_start_limit safe;
  mcu_start_limit_reset(&safe, r->next, r->end, eof);
  while (s->mcu_x < s->mcus_per_row) {
    if (s->restart_interval && s->restarts_to_go == 0) {
      int restarted = restart(s, input, length, eof);
      if (restarted == 0) {
        result = STEP_INPUT;
        goto out;
      }
      if (restarted < 0) {
        *reason = "a restart marker out of place";
        result = STEP_GIVE_UP;
        goto out;
      }
      mcu_start_limit_reset(&safe, r->next, r->end, eof);
    }
    if (!mcu_may_start(&safe, r)) {
      result = STEP_INPUT;
      goto out;
    }
    const char *failure = decode_mcu(s);
    if (failure) {
      *reason = failure;
      result = STEP_GIVE_UP;
      goto out;
    }
    if (s->restart_interval) s->restarts_to_go--;
    s->mcu_x++;
  }
  /* A row of MCUs is complete. */
  if (s->output) imc_jpeg_output_convert(s->output);
  s->mcu_x = 0;
  s->mcu_y++;
  if (s->mcu_y >= s->mcu_rows) {
    drop_bits(r);
    s->finished = 1;
    imc_jpeg_count_scan();
  }
  result = STEP_ROWS;
out:
  /* A marker the reader stopped at stays in what the caller keeps: the position is at it. */
  *position = (size_t)(r->next - input);
  return result;
}

int imc_jpeg_sequential_finished(const imc_jpeg_sequential *s) { return s->finished; }
