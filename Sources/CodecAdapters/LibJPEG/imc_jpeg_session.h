/* A JPEG decode's state in the libjpeg adapter, shared by its libjpeg side (imc_jpeg_decode.c) and
 * the engine side (imc_jpeg_engine_path.c). Private to the adapter. */
#ifndef IMC_JPEG_SESSION_H
#define IMC_JPEG_SESSION_H

#include "imc_core.h"
#include "imc_jpeg_engine.h"

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <setjmp.h>

struct imc_jpeg_session {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr errors;
  struct jpeg_progress_mgr progress;
  jmp_buf jump;
  imc_status *status; /* where the current call reports */
  int32_t lenient;
  int32_t max_scans;
  int created;
  int exif_seen;
  int cmyk_to_layout; /* output needs our CMYK conversion */
  uint8_t *marker_buffer;
  uint8_t *scratch; /* one CMYK row when converting */
  imc_info *info;   /* the decoder's header facts, filled while markers are read */
  imc_decoder *decoder;
  /* APP2 ICC_PROFILE segments by sequence number (1...255) until the header's end joins them. */
  uint8_t *icc_parts[256];
  size_t icc_part_length[256];
  int icc_count;     /* the count the segments declare (0: none seen) */
  int32_t icc_state; /* IMC_ICC_* */
  size_t icc_total;
  int icc_joined; /* decoder->color has the profile: segments read again (a restart) are skipped */
  uint8_t *icc;   /* the joined profile */
  /* Every source hands libjpeg its bytes in windows of at most WINDOW bytes (imc_jpeg_decode.c). */
  struct jpeg_source_mgr source;
  /* Pull mode: the bytes in memory, or a buffer refilled from the file. */
  const uint8_t *bytes;
  size_t length; /* bytes[0, length) */
  size_t offset; /* end of the last window handed out */
  FILE *file;
  uint8_t *file_buffer;
  /* Push mode, handed back by the engine: the stream's source descriptor (the stream's, not owned),
   * read with pread from reread_offset; -1 otherwise. */
  int reread_fd;
  uint64_t reread_offset;
  int reread_ended;
  imc_info first_info; /* the header as first read: the one read again must be the same image */
  /* Push mode. */
  imc_stream *stream;         /* NULL when pulling from memory or a file */
  const JOCTET *window_start; /* the window we set last: unchanged means libjpeg has not synced since */
  size_t window_end;          /* offset in the stream's input where that window ends */
  size_t restart;             /* where libjpeg resumes after a suspension (its last sync point) */
  int phase;                  /* PUSH_* (imc_jpeg_decode.c) */
  int fed_fake_eoi;           /* the source is in the fake EOI: every real byte was used */
  int32_t scale_eighths;      /* push mode: the scale imc_stream_start chose */
  uint64_t rows_to_drop;      /* push mode: rows the engine already queued, which libjpeg makes again */
  int reading_file;           /* push mode: started over from the stream's source descriptor */
  int started_over;           /* push mode: libjpeg decodes the file again from its first byte */
  uint8_t *drop_row;
  /* imgfetch's JPEG engine, while it decodes (imc_jpeg_engine_path.c). */
  imc_jpeg_engine *engine;
  size_t engine_position;      /* push mode: its place in the stream's input */
  uint32_t engine_next, engine_count; /* push mode: its rows of the last step not yet queued */
  int engine_checked;          /* its reading of the header was compared with libjpeg's */
};

/* ---- the engine side (imc_jpeg_engine_path.c) ---- */

/* Whether the engine takes this decode at `scale_eighths` (`discard`: a validation), and its
 * request: strict decodes (lenient ones are libjpeg's) of a grayscale or YCbCr Huffman JPEG, to a
 * gray, RGB or RGBA output, at the scales where it pays (see the file). */
int imc_jpeg_engine_wanted(const struct imc_jpeg_session *session, const imc_decoder *decoder, int32_t scale_eighths,
                           int discard, imc_jpeg_engine_request *request);

/* Pull: the whole decode by the engine, from the decoder's bytes (`pixels` NULL: a validation).
 * 1 when it decoded the image (libjpeg's verdict and pixels), 0 when libjpeg must decode it (its
 * session is untouched: it goes on from the header it read). */
int imc_jpeg_engine_pull(struct imc_jpeg_session *session, imc_decoder *decoder, uint8_t *pixels, size_t row_bytes,
                         const imc_jpeg_engine_request *request);

/* Push: the engine decodes what the stream's bytes allow and queues its rows. */
enum { ENGINE_WAIT = 0, ENGINE_DONE = 1, ENGINE_HAND_BACK = 2 };
int imc_jpeg_engine_pump(struct imc_jpeg_session *session, imc_stream *stream);

#endif
