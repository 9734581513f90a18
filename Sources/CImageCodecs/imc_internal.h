/* Shared between the shim's .c files; never seen by Swift. */
#ifndef IMC_INTERNAL_H
#define IMC_INTERNAL_H

/* The shim's warnings, on in every build (Package.swift may not carry unsafeFlags, which SwiftPM
   refuses in a versioned dependency). Every .c file includes this header first. */
#pragma clang diagnostic warning "-Wall"
#pragma clang diagnostic warning "-Wextra"
#pragma clang diagnostic ignored "-Wunused-parameter"

#include "CImageCodecs.h"
#include <stdio.h>

/* Where the compressed bytes come from: a memory range or an open file. */
typedef struct {
  const uint8_t *data;
  size_t length;
  size_t offset;
  FILE *file;
  int hit_end; /* set when a read asked for more than there was */
} imc_source;

/* Defaults applied where the request leaves a limit at zero. */
#define IMC_DEFAULT_MAX_PIXELS ((uint64_t)100000000)
#define IMC_DEFAULT_MAX_DIMENSION 65500u
#define IMC_DEFAULT_MAX_SCANS 500
#define IMC_DEFAULT_MAX_CHUNK_BYTES ((uint64_t)8000000)

typedef struct imc_png_session imc_png_session;
typedef struct imc_jpeg_session imc_jpeg_session;

struct imc_decoder {
  int32_t format;
  imc_source source;
  imc_request request;
  imc_info info;
  imc_png_session *png;
  imc_jpeg_session *jpeg;
};

/* Status helpers. */
void imc_status_set(imc_status *status, int32_t code, const char *message);
void imc_status_setf(imc_status *status, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills the request's zero limits with the defaults. */
void imc_request_normalize(imc_request *request);

/* Checks width/height against the request's limits; sets status and returns nonzero when over. */
int imc_check_limits(const imc_request *request, uint32_t width, uint32_t height, imc_status *status);

/* Reads up to n bytes; returns how many were read. */
size_t imc_source_read(imc_source *source, uint8_t *out, size_t n);

/* Format back ends. Each open reads the header into decoder->info; each read fills the pixels. */
int32_t imc_png_open(imc_decoder *decoder, imc_status *status);
int32_t imc_png_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
void imc_png_close(imc_decoder *decoder);

int32_t imc_jpeg_open(imc_decoder *decoder, imc_status *status);
int32_t imc_jpeg_read(imc_decoder *decoder, uint8_t *pixels, size_t row_bytes, imc_status *status);
void imc_jpeg_close(imc_decoder *decoder);

#endif
