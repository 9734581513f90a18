/* imc_jpeg_eighth.c: the 1/8-scale decode of a baseline JPEG's scan without libjpeg's entropy decoder.
 *
 * Why: at 1/8 scale libjpeg makes each full-resolution 8x8 block one pixel from its DC coefficient,
 * so nearly all of a thumbnail's or a validation's time is Huffman decoding of AC coefficients that
 * are then thrown away. libjpeg-turbo 2.1.5 decodes them on its checked path one code at a time
 * (imc_jpeg_decode.c hands it 511-byte windows so that damaged data gets one verdict). Here a table
 * indexed by the next FAST_BITS bits resolves a code together with its magnitude bits, so a skipped
 * coefficient usually costs one lookup, and the bit buffer is refilled eight bytes at a time.
 *
 * What stays libjpeg's: the headers, tables and every check up to the scan (jpeg_read_header and
 * jpeg_start_decompress ran), the inverse DCT of blocks scaled to more than one pixel (subsampled
 * chroma), upsampling and colour conversion: its own functions, called through its method tables
 * as its own buffer controllers call them, on the coefficients it would have decoded. So the
 * pixels are libjpeg's, SIMD and all.
 *
 * One verdict: this path only *accepts* what libjpeg decodes without a warning: every code
 * complete, no bit read past the data, each restart marker where it belongs, EOI after the scan
 * (stray restart markers and bytes before it are harmless to libjpeg too). On anything else (a bad
 * code, data cut short, another marker, a DC sum leaving int) it gives up, and the caller decodes
 * the file again with libjpeg, whose verdict and message stand. Both decode the same symbols, so
 * rows handed out before giving up are the rows libjpeg produces.
 */
#include "imc_internal.h"
#include "imc_jpeg_eighth_internal.h"

#include <stdlib.h>

/* ---- tables ---- */

/* Builds the decoding tables; 0 when the table is one libjpeg would refuse (it already checked). */
static int build_table(huffman_table *table, const JHUFF_TBL *source, int ac) {
  int lengths[256];
  uint32_t codes[256];
  int count = 0;
  if (!imc_huffman_assign(source, &table->codes, lengths, codes, &count)) return 0;
  memset(table->code, 0, sizeof table->code);
  memset(table->skip, 0, sizeof table->skip);
  for (int i = 0; i < count; i++) {
    int length = lengths[i];
    if (length > FAST_BITS) break;
    int symbol = table->codes.symbols[i];
    int run = symbol >> 4, magnitude = symbol & 15;
    uint32_t first = codes[i] << (FAST_BITS - length);
    for (uint32_t fill = 0; fill < 1u << (FAST_BITS - length); fill++) {
      table->code[first + fill] = (uint16_t)(length << 8 | symbol);
      if (!ac) continue;
      if (magnitude == 0) {
        table->skip[first + fill] = (uint16_t)(length | (run == 15 ? 16 << SKIP_ADVANCE_SHIFT : SKIP_END_OF_BLOCK));
      } else if (length + magnitude <= FAST_BITS) {
        table->skip[first + fill] = (uint16_t)((length + magnitude) | (run + 1) << SKIP_ADVANCE_SHIFT);
      }
    }
  }
  return 1;
}

static huffman_table *table_for(imc_eighth *eighth, int ac, int number) {
  if (number < 0 || number >= NUM_HUFF_TBLS) return NULL;
  JHUFF_TBL *source = ac ? eighth->cinfo->ac_huff_tbl_ptrs[number] : eighth->cinfo->dc_huff_tbl_ptrs[number];
  if (!source) return NULL;
  if (!eighth->built[ac][number]) {
    if (!build_table(&eighth->tables[ac][number], source, ac)) return NULL;
    eighth->built[ac][number] = 1;
  }
  return &eighth->tables[ac][number];
}

/* Fills the buffer to more than 56 bits: data bytes, then zeros past a marker or the end. */
void imc_eighth_refill(bit_reader *reader) {
  while (reader->count <= 56) {
    if (reader->marker) {
      pad(reader);
      continue;
    }
    if (reader->end - reader->next >= 8) {
      uint64_t word;
      memcpy(&word, reader->next, 8);
      word = __builtin_bswap64(word);
      int take = (64 - reader->count) >> 3;
      if (!imc_jpeg_has_ff(word, take)) {
        uint64_t kept = take >= 8 ? word : word & ~(~0ull >> (8 * take));
        reader->bits |= kept >> reader->count;
        reader->count += 8 * take;
        reader->appended += 8 * (uint64_t)take;
        reader->next += take;
        continue;
      }
    }
    if (reader->next >= reader->end) {
      if (!reader->eof) reader->starved = 1;
      pad(reader);
      continue;
    }
    unsigned byte = *reader->next;
    if (byte != 0xFF) {
      reader->next++;
      append_byte(reader, byte);
      continue;
    }
    /* FF: fill bytes FF, then 00 (a data byte FF) or a marker code. */
    const uint8_t *after = reader->next + 1;
    while (after < reader->end && *after == 0xFF) after++;
    if (after >= reader->end) {
      if (!reader->eof) reader->starved = 1;
      reader->marker = 1; /* the end inside a marker: nothing more is data */
      continue;
    }
    if (*after == 0x00) {
      reader->next = after + 1;
      append_byte(reader, 0xFF);
    } else {
      reader->marker = 1;
    }
  }
}

/* ---- set-up ---- */

static int eligible(j_decompress_ptr cinfo) {
  if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8) return 0;
  if (cinfo->min_DCT_scaled_size != 1 || cinfo->output_width == 0 || cinfo->output_height == 0) return 0;
  if (cinfo->comps_in_scan != cinfo->num_components || (cinfo->num_components != 1 && cinfo->num_components != 3))
    return 0;
  if (cinfo->Ss != 0 || cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0) return 0;
  if (cinfo->out_color_space == JCS_CMYK || cinfo->out_color_space == JCS_YCCK) return 0;
  if (cinfo->quantize_colors || cinfo->raw_data_out || cinfo->buffered_image) return 0;
  if (cinfo->unread_marker != 0 || cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU) return 0;
  if (cinfo->num_components == 1 && (cinfo->comp_info[0].h_samp_factor != 1 || cinfo->comp_info[0].v_samp_factor != 1))
    return 0;
  /* An upsampler that needs the rows above and below (vertical fancy upsampling) is fed by
   * libjpeg's context buffer controller, which this path does not copy. */
  if (!cinfo->upsample || cinfo->upsample->need_context_rows) return 0;
  for (int i = 0; i < cinfo->comps_in_scan; i++) {
    const jpeg_component_info *component = cinfo->cur_comp_info[i];
    if (component->DCT_scaled_size < 1 || component->DCT_scaled_size > DCTSIZE) return 0;
  }
  return 1;
}

imc_eighth *imc_eighth_create(j_decompress_ptr cinfo, int discard_pixels) {
  if (!eligible(cinfo)) return NULL;
  imc_eighth *eighth = calloc(1, sizeof *eighth);
  if (!eighth) return NULL;
  eighth->cinfo = cinfo;
  eighth->discard = discard_pixels;
  eighth->range = cinfo->sample_range_limit + CENTERJSAMPLE;
  eighth->component_count = cinfo->comps_in_scan;
  eighth->interleaved = cinfo->comps_in_scan > 1;
  eighth->mcus_per_row = cinfo->MCUs_per_row;
  eighth->mcu_rows = cinfo->MCU_rows_in_scan;
  eighth->rows_per_mcu_row = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
  if (!eighth->interleaved) eighth->rows_per_mcu_row = cinfo->cur_comp_info[0]->DCT_scaled_size;
  size_t plane_width = 0;
  for (int i = 0; i < eighth->component_count; i++) {
    component_state *state = &eighth->components[i];
    jpeg_component_info *component = cinfo->cur_comp_info[i];
    state->component = component;
    state->index = component->component_index;
    state->scaled = component->DCT_scaled_size;
    state->needed = component->component_needed;
    /* libjpeg's inverse DCTs take the quantizers as its MULTIPLIER type, short in a SIMD build and
     * int without: the same value only up to 32767 (never more in an 8-bit table). */
    if (!component->quant_table || component->quant_table->quantval[0] > 32767) goto refuse;
    state->dc_multiplier = component->quant_table->quantval[0];
    state->dc = table_for(eighth, 0, component->dc_tbl_no);
    state->ac = table_for(eighth, 1, component->ac_tbl_no);
    if (!state->dc || !state->ac) goto refuse;
    int across = eighth->interleaved ? component->MCU_width : 1;
    state->rows = (eighth->interleaved ? component->MCU_height : 1) * state->scaled;
    eighth->plane_row_count += state->rows;
    size_t width = (size_t)eighth->mcus_per_row * (size_t)across * (size_t)state->scaled;
    if (width > plane_width) plane_width = width;
  }
  /* Each block of an MCU, planned once: its component and place (T.81 A.2.3: components in scan
   * order, each component's blocks left to right, top to bottom), what is decoded of it and where
   * its pixels go. */
  int block = 0;
  for (int i = 0; i < eighth->component_count; i++) {
    component_state *state = &eighth->components[i];
    int across = eighth->interleaved ? state->component->MCU_width : 1;
    int down = eighth->interleaved ? state->component->MCU_height : 1;
    for (int y = 0; y < down; y++) {
      for (int x = 0; x < across; x++, block++) {
        if (block >= D_MAX_BLOCKS_IN_MCU) goto refuse;
        block_plan *plan = &eighth->blocks[block];
        plan->index = i;
        plan->state = state;
        plan->kind =
            discard_pixels || !state->needed ? BLOCK_SKIPPED : state->scaled > 1 ? BLOCK_WITH_AC : BLOCK_DC_PIXEL;
        plan->y = y * state->scaled;
        plan->x_step = (JDIMENSION)across * (JDIMENSION)state->scaled;
        plan->x_offset = (JDIMENSION)x * (JDIMENSION)state->scaled;
      }
    }
  }
  if (block != cinfo->blocks_in_MCU) goto refuse;
  eighth->restarts_to_go = cinfo->restart_interval;
  if (!discard_pixels) {
    int components = cinfo->out_color_components;
    if (components < 1 || components > 4) goto refuse;
    plane_width += 64; /* libjpeg's converters may read a little past a row, as in its own buffers */
    int rows = eighth->rows_per_mcu_row;
    size_t plane_rows = (size_t)eighth->plane_row_count;
    eighth->block = calloc(DCTSIZE2, sizeof(JCOEF));
    eighth->plane_rows = calloc(plane_rows, sizeof(JSAMPROW));
    eighth->plane_samples = calloc(plane_rows, plane_width);
    eighth->output_row_bytes = (size_t)cinfo->output_width * (size_t)components;
    eighth->output = malloc((size_t)rows * (eighth->output_row_bytes + 64));
    eighth->output_rows = calloc((size_t)rows, sizeof(JSAMPROW));
    if (!eighth->block || !eighth->plane_rows || !eighth->plane_samples || !eighth->output || !eighth->output_rows)
      goto refuse;
    size_t first = 0;
    for (int i = 0; i < eighth->component_count; i++) {
      component_state *state = &eighth->components[i];
      if (state->index < 0 || state->index >= MAX_COMPONENTS) goto refuse;
      state->plane = eighth->plane_rows + first;
      eighth->planes[state->index] = state->plane;
      for (int row = 0; row < state->rows; row++)
        state->plane[row] = eighth->plane_samples + (first + (size_t)row) * plane_width;
      first += (size_t)state->rows;
    }
    for (int row = 0; row < rows; row++)
      eighth->output_rows[row] = eighth->output + (size_t)row * (eighth->output_row_bytes + 64);
    /* Planes of components libjpeg does not need stay zero (the converter reads none of them). */
  }
  return eighth;
refuse:
  imc_eighth_destroy(eighth);
  return NULL;
}

void imc_eighth_destroy(imc_eighth *eighth) {
  if (!eighth) return;
  imc_eighth_destroy_split(eighth->split);
  free(eighth->block);
  free(eighth->plane_rows);
  free(eighth->plane_samples);
  free(eighth->output);
  free(eighth->output_rows);
  free(eighth);
}

/* Decodes one MCU and makes its pixels in the planes. Returns 0 to give up. */
static int decode_mcu(imc_eighth *eighth) {
  j_decompress_ptr cinfo = eighth->cinfo;
  bit_reader *reader = &eighth->reader;
  hot_bits hot = load_bits(reader);
  int decoded = 1;
  for (int block = 0; block < cinfo->blocks_in_MCU; block++) {
    const block_plan *plan = &eighth->blocks[block];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac) memset(eighth->block, 0, DCTSIZE2 * sizeof(JCOEF));
    int difference;
    if (!decode_block(&hot, reader, plan->state, with_ac ? eighth->block : NULL, &difference) ||
        !add_dc(eighth, plan->state, plan->index, difference)) {
      decoded = 0;
      break;
    }
    make_pixels(eighth, plan);
  }
  store_bits(reader, hot);
  if (!decoded) return 0;
  if (reader->count < reader->padded) return 0; /* read past the data */
  if (reader->starved) return 0;
  return 1;
}

/* Finds the marker after the data: where the reader stopped at one, or the first one from its
 * position on (bytes between are data libjpeg discards, a harmless warning). 1 found (*code, and
 * *after just past it), 0 not yet (more input may come), -1 never (the input ended). */
static int find_marker(bit_reader *reader, int *code, const uint8_t **after) {
  const uint8_t *at = reader->next;
  while (at < reader->end) {
    const uint8_t *ff = memchr(at, 0xFF, (size_t)(reader->end - at));
    if (!ff) break;
    const uint8_t *next = ff + 1;
    while (next < reader->end && *next == 0xFF) next++;
    if (next >= reader->end) break;
    if (*next == 0x00) {
      at = next + 1;
      continue;
    }
    *code = *next;
    *after = next + 1;
    return 1;
  }
  return reader->eof ? -1 : 0;
}

static void drop_bits(bit_reader *reader) {
  reader->bits = 0;
  reader->count = 0;
  reader->padded = 0;
}

/* At a restart: the marker must be the next RSTn. 1 done, 0 more input, -1 give up. */
static int restart(imc_eighth *eighth) {
  bit_reader *reader = &eighth->reader;
  if (!eighth->restarting) {
    drop_bits(reader);
    eighth->restarting = 1;
  }
  int code = 0;
  const uint8_t *after = NULL;
  int found = find_marker(reader, &code, &after);
  if (found <= 0) return found;
  if (code != JPEG_RST0 + (int)eighth->next_restart) return -1;
  reader->next = after;
  reader->marker = 0;
  for (int i = 0; i < MAX_COMPS_IN_SCAN; i++) eighth->dc[i] = 0;
  eighth->next_restart = (eighth->next_restart + 1) & 7;
  eighth->restarts_to_go = eighth->cinfo->restart_interval;
  eighth->restarting = 0;
  return 1;
}

/* After the last MCU: EOI, after any stray restart markers. */
static int finish(imc_eighth *eighth) {
  bit_reader *reader = &eighth->reader;
  drop_bits(reader);
  for (;;) {
    int code = 0;
    const uint8_t *after = NULL;
    int found = find_marker(reader, &code, &after);
    if (found == 0) return IMC_EIGHTH_INPUT;
    if (found < 0) return IMC_EIGHTH_GIVE_UP;
    if (code == JPEG_EOI) return IMC_EIGHTH_DONE;
    if (code < JPEG_RST0 || code > JPEG_RST0 + 7) return IMC_EIGHTH_GIVE_UP;
    reader->next = after;
    reader->marker = 0;
  }
}

int imc_eighth_step(imc_eighth *eighth, const uint8_t *input, size_t length, int eof, size_t *position) {
  bit_reader *reader = &eighth->reader;
  /* The reader's pointers are rebuilt from the position: the input may have moved. */
  reader->next = input + *position;
  reader->end = input + length;
  reader->eof = eof;
  int result;
  if (eighth->rows_done) {
    result = finish(eighth);
    goto out;
  }
  while (eighth->mcu_x < eighth->mcus_per_row) {
    if (eighth->cinfo->restart_interval) {
      if (eighth->restarts_to_go == 0) {
        int restarted = restart(eighth);
        if (restarted == 0) {
          result = IMC_EIGHTH_INPUT;
          goto out;
        }
        if (restarted < 0) {
          result = IMC_EIGHTH_GIVE_UP;
          goto out;
        }
      }
    }
    if (eighth->split && !eighth->replaying) imc_eighth_look_for_meeting(eighth);
    if (eighth->replaying) {
      if (!imc_eighth_replay_mcu(eighth)) {
        result = IMC_EIGHTH_GIVE_UP;
        goto out;
      }
      eighth->mcu_x++;
      continue;
    }
    if (!eof && !reader->marker && reader->end - reader->next < MCU_MARGIN) {
      result = IMC_EIGHTH_INPUT;
      goto out;
    }
    if (!decode_mcu(eighth)) {
      result = IMC_EIGHTH_GIVE_UP;
      goto out;
    }
    if (eighth->cinfo->restart_interval) eighth->restarts_to_go--;
    eighth->mcu_x++;
  }
  /* A row of MCUs is complete. */
  j_decompress_ptr cinfo = eighth->cinfo;
  JDIMENSION left = cinfo->output_height - eighth->rows_out;
  unsigned count = left < (JDIMENSION)eighth->rows_per_mcu_row ? (unsigned)left : (unsigned)eighth->rows_per_mcu_row;
  if (!eighth->discard && count > 0) {
    /* One row group per row of MCUs at 1/8 scale, as libjpeg's simple main controller hands it. */
    JDIMENSION group = 0, made = 0;
    cinfo->upsample->upsample(cinfo, eighth->planes, &group, 1, eighth->output_rows, &made, (JDIMENSION)count);
    if (made != count) {
      result = IMC_EIGHTH_GIVE_UP;
      goto out;
    }
  }
  eighth->output_count = count;
  eighth->rows_out += count;
  eighth->mcu_x = 0;
  eighth->mcu_y++;
  if (eighth->mcu_y >= eighth->mcu_rows) {
    eighth->rows_done = 1;
    /* After replaying, the thread's reader ends where the data does (imc_eighth_take_over_reader). */
    if (eighth->split) imc_eighth_join_split(eighth->split, !eighth->replaying);
    if (eighth->replaying) imc_eighth_take_over_reader(eighth);
  }
  result = IMC_EIGHTH_ROWS;
out:
  /* A marker the reader stopped at stays in the input the caller keeps: the position is at it. */
  *position = (size_t)(reader->next - input);
  return result;
}

uint8_t *imc_eighth_rows(const imc_eighth *eighth, unsigned *count) {
  *count = eighth->discard ? 0 : eighth->output_count;
  return eighth->discard ? NULL : eighth->output;
}

size_t imc_eighth_row_bytes(const imc_eighth *eighth) { return eighth->output_row_bytes + 64; }
