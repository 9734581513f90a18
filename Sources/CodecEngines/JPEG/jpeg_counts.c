/* jpeg_counts.c: this thread's counts of what the engine did (the tests' way to see which path
 * decoded an image, since the engine and libjpeg give the same pixels by design). */
#include "jpeg_internal.h"

static _Thread_local imc_jpeg_engine_counts counts;

void imc_jpeg_count_scan(void) { counts.scans++; }
void imc_jpeg_count_give_up(void) { counts.given_up++; }
void imc_jpeg_count_dc_only(void) { counts.dc_only++; }
void imc_jpeg_engine_counts_of_thread(imc_jpeg_engine_counts *out) { *out = counts; }
