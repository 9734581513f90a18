/* jpeg_markers.c: the marker segments around the scans, read as libjpeg-turbo reads them, for the
 * subset the engine decodes.
 *
 * The engine accepts a segment only where libjpeg accepts it without a warning that loses data
 * (the warnings imgfetch treats as harmless, extraneous bytes before a marker and the JFIF or Adobe
 * version notes, are as harmless here), and derives from it exactly what libjpeg derives. Anything
 * else, including everything libjpeg accepts that the engine does not decode (arithmetic coding,
 * 12-bit samples, DNL, lossless, four components), is a give-up: libjpeg then decides. The rules,
 * with the libjpeg behaviour each mirrors, are listed in README.md beside this file.
 */
#include "jpeg_internal.h"

static unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

int imc_jpeg_find_marker(const uint8_t *input, size_t length, int eof, size_t *position) {
  size_t at = *position;
  for (;;) {
    const uint8_t *ff = at < length ? memchr(input + at, 0xFF, length - at) : NULL;
    if (!ff) {
      at = length;
      break;
    }
    size_t code = (size_t)(ff - input) + 1;
    while (code < length && input[code] == 0xFF) code++;
    if (code >= length) { /* the bytes end in FFs: a marker may begin at the first */
      at = (size_t)(ff - input);
      break;
    }
    if (input[code] == 0x00) { /* a stuffed FF: data libjpeg discards */
      at = code + 1;
      continue;
    }
    *position = (size_t)(ff - input);
    return 1;
  }
  /* No marker yet: every byte before `at` is one libjpeg discards too (extraneous data), so the
   * search goes on from there. A caller that waits for more input can drop them: a window with no
   * marker then never stays full of bytes already searched. */
  *position = at;
  return eof ? -1 : 0;
}

/* The marker at *position (found by imc_jpeg_find_marker): its code; *position past it. */
static int take_marker(const uint8_t *input, size_t *position) {
  size_t at = *position + 1;
  while (input[at] == 0xFF) at++;
  *position = at + 1;
  return input[at];
}

static int give_up(const char **reason, const char *why) {
  *reason = why;
  return MARKERS_GIVE_UP;
}

/* APP0 and APP14, as libjpeg examines their first bytes for the colour space. */
static void examine_app(frame_info *frame, int code, const uint8_t *data, size_t length) {
  if (code == 0xE0 && length >= 14 && memcmp(data, "JFIF\0", 5) == 0) frame->saw_jfif = 1;
  if (code == 0xEE && length >= 12 && memcmp(data, "Adobe", 5) == 0) {
    frame->saw_adobe = 1;
    frame->adobe_transform = data[11];
  }
}

static int read_dqt(frame_info *frame, const uint8_t *data, size_t length, const char **reason) {
  size_t at = 0;
  while (at < length) {
    int precision = data[at] >> 4, slot = data[at] & 15;
    at++;
    if (slot >= QUANT_SLOTS || precision > 1) return give_up(reason, "DQT: table index or precision");
    size_t size = precision ? 128 : 64;
    if (length - at < size) return give_up(reason, "DQT: length");
    for (int i = 0; i < 64; i++) {
      unsigned value = precision ? be16(data + at + 2 * (size_t)i) : data[at + (size_t)i];
      frame->quant[slot][imc_jpeg_zigzag[i]] = (uint16_t)value;
    }
    frame->quant_defined[slot] = 1;
    at += size;
  }
  return MARKERS_NEED_INPUT; /* "go on" */
}

static int read_dht(frame_info *frame, const uint8_t *data, size_t length, const char **reason) {
  size_t at = 0;
  while (length - at > 16) {
    int index = data[at];
    int ac = (index & 0x10) != 0;
    int slot = index & 0x0F;
    if ((index & ~0x1F) != 0 || slot >= HUFFMAN_SLOTS) return give_up(reason, "DHT: table index");
    huffman_spec *spec = &frame->huffman[ac][slot];
    uint8_t counts[17] = {0};
    int count = 0;
    for (int i = 1; i <= 16; i++) count += counts[i] = data[at + (size_t)i];
    at += 17;
    if (count > 256 || (size_t)count > length - at) return give_up(reason, "DHT: counts");
    memcpy(spec->counts, counts, sizeof counts);
    memset(spec->values, 0, sizeof spec->values);
    memcpy(spec->values, data + at, (size_t)count);
    spec->defined = 1;
    spec->version++;
    at += (size_t)count;
  }
  if (at != length) return give_up(reason, "DHT: length");
  return MARKERS_NEED_INPUT;
}

static int read_sof(frame_info *frame, int code, const uint8_t *data, size_t length, const char **reason) {
  if (frame->have_frame) return give_up(reason, "a second frame header");
  if (length < 6) return give_up(reason, "SOF: length");
  if (data[0] != 8) return give_up(reason, "not 8-bit samples");
  frame->height = be16(data + 1);
  frame->width = be16(data + 3);
  frame->components = data[5];
  if (frame->width == 0 || frame->height == 0) return give_up(reason, "SOF: an empty image (or DNL)");
  if (frame->width > 65500 || frame->height > 65500) return give_up(reason, "SOF: over libjpeg's dimension limit");
  if (frame->components != 1 && frame->components != 3) return give_up(reason, "not one or three components");
  if (length != 6 + 3 * (size_t)frame->components) return give_up(reason, "SOF: length");
  frame->progressive = code == 0xC2;
  frame->max_h = frame->max_v = 1;
  for (int c = 0; c < frame->components; c++) {
    component_info *component = &frame->component[c];
    const uint8_t *spec = data + 6 + 3 * c;
    component->id = spec[0];
    component->h = spec[1] >> 4;
    component->v = spec[1] & 15;
    component->quant_slot = spec[2];
    if (component->h < 1 || component->h > 4 || component->v < 1 || component->v > 4)
      return give_up(reason, "SOF: sampling factors");
    if (component->quant_slot >= QUANT_SLOTS) return give_up(reason, "SOF: quantization table index");
    for (int other = 0; other < c; other++)
      if (frame->component[other].id == component->id) return give_up(reason, "SOF: two components with one id");
    if (component->h > frame->max_h) frame->max_h = component->h;
    if (component->v > frame->max_v) frame->max_v = component->v;
    for (int k = 0; k < 64; k++) component->coef_bits[k] = -1;
  }
  frame->have_frame = 1;
  return MARKERS_NEED_INPUT;
}

static int read_sos(frame_info *frame, const uint8_t *data, size_t length, scan_header *scan, const char **reason) {
  if (!frame->have_frame) return give_up(reason, "SOS before the frame header");
  if (length < 1) return give_up(reason, "SOS: length");
  int count = data[0];
  if (count < 1 || count > 4 || length != 4 + 2 * (size_t)count) return give_up(reason, "SOS: length");
  scan->count = count;
  int previous = -1;
  for (int i = 0; i < count; i++) {
    int id = data[1 + 2 * i], tables = data[2 + 2 * i];
    int found = -1;
    for (int c = 0; c < frame->components; c++)
      if (frame->component[c].id == id) found = c;
    /* In frame order and each once: what libjpeg's lookup always finds. */
    if (found < 0 || found <= previous) return give_up(reason, "SOS: component ids");
    previous = found;
    scan->component[i] = found;
    scan->dc_table[i] = tables >> 4;
    scan->ac_table[i] = tables & 15;
  }
  const uint8_t *rest = data + 1 + 2 * count;
  scan->Ss = rest[0];
  scan->Se = rest[1];
  scan->Ah = rest[2] >> 4;
  scan->Al = rest[2] & 15;
  frame->scans++;
  return MARKERS_SCAN;
}

int imc_jpeg_read_markers(frame_info *frame, const uint8_t *input, size_t length, int eof, size_t *position,
                          int first, scan_header *scan, const char **reason) {
  size_t at = *position;
  if (first) {
    if (length < 2 && !eof) return MARKERS_NEED_INPUT;
    if (length < 2 || input[0] != 0xFF || input[1] != 0xD8) return give_up(reason, "no SOI");
    at = *position = 2;
  }
  for (;;) {
    int found = imc_jpeg_find_marker(input, length, eof, &at);
    if (found == 0) {
      *position = at; /* the bytes searched are consumed: the request for more follows progress */
      return MARKERS_NEED_INPUT;
    }
    if (found < 0) return give_up(reason, "the data ends before EOI");
    size_t marker_start = at;
    int code = take_marker(input, &at);
    if (code == 0xD9) {
      *position = at;
      return MARKERS_EOI;
    }
    if ((code >= 0xD0 && code <= 0xD7) || code == 0x01) { /* RSTn, TEM: no parameters, ignored */
      *position = at;
      continue;
    }
    int known = (code >= 0xE0 && code <= 0xEF) || code == 0xFE || code == 0xDB || code == 0xC4 || code == 0xDD ||
                code == 0xC0 || code == 0xC1 || code == 0xC2 || code == 0xDA;
    if (!known) return give_up(reason, "a marker the engine does not decode");
    if (length - at < 2) {
      if (!eof) {
        *position = marker_start;
        return MARKERS_NEED_INPUT;
      }
      return give_up(reason, "the data ends in a marker segment");
    }
    size_t segment = be16(input + at);
    if (segment < 2) return give_up(reason, "a marker segment's length");
    if (length - at < segment) {
      if (!eof) {
        *position = marker_start;
        return MARKERS_NEED_INPUT;
      }
      return give_up(reason, "the data ends in a marker segment");
    }
    const uint8_t *data = input + at + 2;
    size_t data_length = segment - 2;
    at += segment;
    int result = MARKERS_NEED_INPUT;
    switch (code) {
    case 0xDB: result = read_dqt(frame, data, data_length, reason); break;
    case 0xC4: result = read_dht(frame, data, data_length, reason); break;
    case 0xDD:
      if (data_length != 2) return give_up(reason, "DRI: length");
      frame->restart_interval = be16(data);
      break;
    case 0xC0:
    case 0xC1:
    case 0xC2: result = read_sof(frame, code, data, data_length, reason); break;
    case 0xDA: result = read_sos(frame, data, data_length, scan, reason); break;
    default: examine_app(frame, code, data, data_length); break;
    }
    if (result != MARKERS_NEED_INPUT) {
      *position = at;
      return result;
    }
    *position = at;
  }
}

/* libjpeg's colour space for a three-component frame (its default_decompress_parms). */
static int three_component_space(const frame_info *frame) {
  if (frame->saw_jfif) return 3;
  if (frame->saw_adobe) return frame->adobe_transform == 0 ? 2 : 3; /* other transforms: YCbCr, warned */
  int a = frame->component[0].id, b = frame->component[1].id, c = frame->component[2].id;
  if (a == 82 && b == 71 && c == 66) return 2; /* 'R', 'G', 'B' */
  return 3;
}

static uint32_t round_up_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

int imc_jpeg_prepare_frame(frame_info *frame, const imc_jpeg_engine_request *request, const char **reason) {
  int scale = request->scale_eighths;
  frame->color_space = frame->components == 1 ? 1 : three_component_space(frame);
  if (frame->color_space != 1 && frame->color_space != 3) {
    *reason = "RGB-coded JPEG";
    return 0;
  }
  if (frame->components == 1 && (frame->component[0].h != 1 || frame->component[0].v != 1)) {
    *reason = "grayscale with sampling factors";
    return 0;
  }
  uint64_t W = frame->width, H = frame->height;
  int max_h = frame->max_h, max_v = frame->max_v;
  frame->mcus_per_row = round_up_div(W, (uint64_t)max_h * 8);
  frame->mcu_rows = round_up_div(H, (uint64_t)max_v * 8);
  frame->imcu_rows = frame->mcu_rows;
  int gray_out = request->output == IMC_JPEG_ENGINE_GRAY;
  for (int c = 0; c < frame->components; c++) {
    component_info *component = &frame->component[c];
    component->width_in_blocks = round_up_div(W * (uint64_t)component->h, (uint64_t)max_h * 8);
    component->height_in_blocks = round_up_div(H * (uint64_t)component->v, (uint64_t)max_v * 8);
    component->block_stride = frame->mcus_per_row * (uint32_t)component->h;
    component->block_rows = frame->imcu_rows * (uint32_t)component->v;
    if (frame->components == 1) {
      component->block_stride = component->width_in_blocks;
      component->block_rows = component->height_in_blocks;
    }
    /* libjpeg scales a subsampled component up by a larger inverse DCT where the factors allow. */
    int size = scale;
    while (size < 8 && (max_h * scale) % (component->h * size * 2) == 0 &&
           (max_v * scale) % (component->v * size * 2) == 0)
      size *= 2;
    component->scaled = size;
    component->downsampled_width = round_up_div(W * (uint64_t)component->h * (uint64_t)size, (uint64_t)max_h * 8);
    component->needed = !(gray_out && c > 0);
    if (!component->needed) continue;
    if (size > 4) {
      *reason = "an 8x8 inverse DCT";
      return 0;
    }
    /* libjpeg's upsampler (its jdsample.c) for this component; fancy only above 1/8. */
    int h_in = component->h * size / scale, v_in = component->v * size / scale;
    if (h_in == max_h && v_in == max_v) {
      component->upsample = UPSAMPLE_NONE;
    } else if (h_in * 2 == max_h && v_in == max_v) {
      component->upsample =
          scale > 1 && component->downsampled_width > 2 ? UPSAMPLE_H2V1_FANCY : UPSAMPLE_H2V1_REPLICATE;
    } else {
      *reason = "upsampling other than none or horizontal 2:1";
      return 0;
    }
  }
  return 1;
}

int imc_jpeg_prepare_scan(frame_info *frame, const scan_header *scan, const char **reason) {
  int blocks = 0;
  for (int i = 0; i < scan->count; i++) {
    component_info *component = &frame->component[scan->component[i]];
    if (scan->count > 1) blocks += component->h * component->v;
    else blocks += 1;
    /* Latched at the component's first scan, as libjpeg latches it. */
    if (!component->latched) {
      if (!frame->quant_defined[component->quant_slot]) {
        *reason = "a scan's quantization table is not defined";
        return 0;
      }
      for (int k = 0; k < 64; k++) {
        if (frame->quant[component->quant_slot][k] > 32767) {
          *reason = "a quantizer over 32767";
          return 0;
        }
        component->quant[k] = frame->quant[component->quant_slot][k];
      }
      component->latched = 1;
    }
  }
  if (blocks > MAX_BLOCKS_IN_MCU) {
    *reason = "more than ten blocks in an MCU";
    return 0;
  }
  return 1;
}
