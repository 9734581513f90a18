/* jpeg_engine.c: the engine's driver: marker segments, then the scans, then (for a progressive
 * image) the output from the coefficients, as a state machine fed by the caller's bytes. */
#include "jpeg_internal.h"

#include <stdlib.h>

enum { PHASE_MARKERS = 0, PHASE_SCAN, PHASE_OUTPUT, PHASE_DONE, PHASE_GAVE_UP };

struct imc_jpeg_engine {
  imc_jpeg_engine_request request;
  frame_info frame;
  int phase;
  int started;    /* SOI read */
  int prepared;   /* the frame's sizes derived (at the first scan) */
  scan_header scan;
  imc_jpeg_output output;
  imc_jpeg_sequential *sequential;
  imc_jpeg_progressive *progressive;
  uint32_t output_row; /* progressive output: the next iMCU row */
  const char *reason;
};

imc_jpeg_engine *imc_jpeg_engine_create(const imc_jpeg_engine_request *request) {
  if (request->scale_eighths != 1 && request->scale_eighths != 2) return NULL;
  if (request->output != IMC_JPEG_ENGINE_GRAY && request->output != IMC_JPEG_ENGINE_RGB &&
      request->output != IMC_JPEG_ENGINE_RGBA)
    return NULL;
  imc_jpeg_engine *engine = calloc(1, sizeof *engine);
  if (!engine) return NULL;
  engine->request = *request;
  if (engine->request.max_memory == 0) engine->request.max_memory = (uint64_t)1 << 30;
  if (engine->request.max_scans <= 0) engine->request.max_scans = 500;
  return engine;
}

void imc_jpeg_engine_destroy(imc_jpeg_engine *engine) {
  if (!engine) return;
  imc_jpeg_sequential_destroy(engine->sequential);
  imc_jpeg_progressive_destroy(engine->progressive);
  imc_jpeg_output_free(&engine->output);
  free(engine);
}

static int32_t give_up(imc_jpeg_engine *engine, const char *reason) {
  if (engine->phase != PHASE_GAVE_UP) imc_jpeg_count_give_up();
  engine->phase = PHASE_GAVE_UP;
  engine->reason = reason;
  return IMC_JPEG_ENGINE_GIVE_UP;
}

/* At the first scan: the frame's sizes, the output stage, and the decoder for the frame's kind. */
static int prepare(imc_jpeg_engine *engine) {
  frame_info *frame = &engine->frame;
  const char *reason = NULL;
  if (!imc_jpeg_prepare_frame(frame, &engine->request, &reason)) return give_up(engine, reason), 0;
  /* Checked for validations too: one rule for which layouts are the engine's. */
  if (!imc_jpeg_output_handles(frame, &reason)) return give_up(engine, reason), 0;
  if (!engine->request.discard_pixels &&
      !imc_jpeg_output_init(&engine->output, frame, engine->request.output, engine->request.scale_eighths,
                            (size_t)engine->request.max_memory))
    return give_up(engine, "no memory for the output rows (or over the engine's limit)"), 0;
  if (frame->progressive) {
    engine->progressive = imc_jpeg_progressive_create(frame, &engine->request, &reason);
    if (!engine->progressive) return give_up(engine, reason), 0;
  }
  engine->prepared = 1;
  return 1;
}

/* A scan's header was read: start decoding it. */
static int start_scan(imc_jpeg_engine *engine) {
  frame_info *frame = &engine->frame;
  const char *reason = NULL;
  if (!engine->prepared && !prepare(engine)) return 0;
  if (frame->scans > engine->request.max_scans) return give_up(engine, "more scans than the limit"), 0;
  if (!imc_jpeg_prepare_scan(frame, &engine->scan, &reason)) return give_up(engine, reason), 0;
  if (frame->progressive) {
    if (!imc_jpeg_progressive_start_scan(engine->progressive, &engine->scan, &reason))
      return give_up(engine, reason), 0;
  } else {
    if (engine->sequential) return give_up(engine, "a second scan in a sequential file"), 0;
    imc_jpeg_output *output = engine->request.discard_pixels ? NULL : &engine->output;
    engine->sequential = imc_jpeg_sequential_create(frame, &engine->scan, output, &engine->request, &reason);
    if (!engine->sequential) return give_up(engine, reason), 0;
  }
  engine->phase = PHASE_SCAN;
  return 1;
}

/* EOI: the sequential image's rows are all out; a progressive image's output can start. */
static int32_t end_of_image(imc_jpeg_engine *engine) {
  if (!engine->prepared || engine->frame.scans == 0) return give_up(engine, "no scan before EOI");
  if (engine->sequential && !imc_jpeg_sequential_finished(engine->sequential))
    return give_up(engine, "EOI inside the scan");
  if (engine->progressive && !engine->request.discard_pixels) {
    if (imc_jpeg_progressive_would_smooth(engine->progressive))
      return give_up(engine, "libjpeg would smooth an incomplete progression");
    for (int c = 0; c < engine->frame.components; c++)
      if (engine->frame.component[c].needed && engine->frame.component[c].scaled == 1) {
        imc_jpeg_count_dc_only();
        break;
      }
    engine->phase = PHASE_OUTPUT;
    return -1;
  }
  engine->phase = PHASE_DONE;
  return IMC_JPEG_ENGINE_DONE;
}

int32_t imc_jpeg_engine_step(imc_jpeg_engine *engine, const uint8_t *input, size_t length, int eof,
                             size_t *position) {
  const char *reason = NULL;
  for (;;) {
    switch (engine->phase) {
    case PHASE_MARKERS: {
      int result = imc_jpeg_read_markers(&engine->frame, input, length, eof, position, !engine->started, &engine->scan,
                                         &reason);
      if (result == MARKERS_GIVE_UP) return give_up(engine, reason);
      if (*position >= 2) engine->started = 1;
      if (result == MARKERS_NEED_INPUT) return IMC_JPEG_ENGINE_INPUT;
      if (result == MARKERS_EOI) {
        int32_t ended = end_of_image(engine);
        if (ended >= 0) return ended;
        continue;
      }
      if (engine->sequential && imc_jpeg_sequential_finished(engine->sequential))
        return give_up(engine, "a second scan in a sequential file");
      if (!start_scan(engine)) return IMC_JPEG_ENGINE_GIVE_UP;
      continue;
    }
    case PHASE_SCAN: {
      int result;
      if (engine->sequential) {
        result = imc_jpeg_sequential_step(engine->sequential, input, length, eof, position, &reason);
        if (result == STEP_ROWS) {
          if (imc_jpeg_sequential_finished(engine->sequential)) engine->phase = PHASE_MARKERS;
          if (engine->request.discard_pixels) continue;
          return IMC_JPEG_ENGINE_ROWS;
        }
      } else {
        result = imc_jpeg_progressive_step(engine->progressive, input, length, eof, position, &reason);
        if (result == STEP_DONE) {
          engine->phase = PHASE_MARKERS;
          continue;
        }
      }
      if (result == STEP_INPUT) {
        if (eof) return give_up(engine, "the data ends in a scan");
        return IMC_JPEG_ENGINE_INPUT;
      }
      return give_up(engine, reason);
    }
    case PHASE_OUTPUT:
      if (engine->output_row >= engine->frame.imcu_rows) {
        engine->phase = PHASE_DONE;
        return IMC_JPEG_ENGINE_DONE;
      }
      imc_jpeg_progressive_output_row(engine->progressive, &engine->output, engine->output_row++);
      if (engine->output.inexact) return give_up(engine, "coefficients outside the inverse DCT's exact range");
      imc_jpeg_output_convert(&engine->output);
      return IMC_JPEG_ENGINE_ROWS;
    case PHASE_DONE: return IMC_JPEG_ENGINE_DONE;
    default: return IMC_JPEG_ENGINE_GIVE_UP;
    }
  }
}

int imc_jpeg_engine_facts_of(const imc_jpeg_engine *engine, imc_jpeg_engine_facts *facts) {
  const frame_info *frame = &engine->frame;
  if (!engine->prepared) return 0;
  memset(facts, 0, sizeof *facts);
  facts->width = frame->width;
  facts->height = frame->height;
  facts->output_width = (uint32_t)(((uint64_t)frame->width * (uint64_t)engine->request.scale_eighths + 7) / 8);
  facts->output_height = (uint32_t)(((uint64_t)frame->height * (uint64_t)engine->request.scale_eighths + 7) / 8);
  facts->components = frame->components;
  facts->color_space = frame->color_space;
  facts->progressive = frame->progressive;
  for (int c = 0; c < frame->components; c++) {
    facts->h_sampling[c] = frame->component[c].h;
    facts->v_sampling[c] = frame->component[c].v;
  }
  return 1;
}

const uint8_t *imc_jpeg_engine_rows(const imc_jpeg_engine *engine, uint32_t *count, size_t *stride) {
  *count = engine->request.discard_pixels ? 0 : engine->output.count;
  *stride = engine->output.row_stride;
  return engine->output.rows;
}

const char *imc_jpeg_engine_reason(const imc_jpeg_engine *engine) {
  return engine->reason ? engine->reason : "";
}
