#define _GNU_SOURCE /* sched_getaffinity */
/* imc_jpeg_eighth_split.c: two threads on one scan of the 1/8-scale decoder (imc_jpeg_eighth.c).
 *
 * A scan without restart markers is one chain of variable-length codes: where a code starts is
 * known only by decoding everything before it. But Huffman codes resynchronize: decoding from an
 * arbitrary bit soon falls into step with the true code boundaries. So when all of a large scan's
 * bytes are here and no other fast decode runs, a second thread starts at the middle byte as if an
 * MCU began there, and records where each MCU it decodes starts and what it decoded (DC
 * differences, and AC coefficients where an inverse DCT uses them). The first thread decodes from
 * the start as usual; past the middle, once one of its MCUs starts exactly where one of the
 * second's did, both decoders are in the same state (same bit, same place in the MCU), so the
 * second's records from there on are what the first would decode: it replays them, summing the
 * DC differences from its own predictions. If they never meet, the first decodes on alone. Any
 * failure the second met after the meeting point is a failure of the stream (give up). */
#include "imc_internal.h"
#include "imc_jpeg_eighth_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct split_state {
  imc_eighth *eighth; /* tables and components, read-only while the thread runs */
  pthread_t thread;
  bit_reader reader;     /* from `origin` on */
  uint64_t origin_bits;  /* the first thread's position (data bits) at `origin` */
  size_t capacity;       /* MCUs the records hold */
  uint64_t *starts;      /* data bits after `origin` where each MCU starts */
  uint8_t *failed;       /* the MCU at starts[i] could not be decoded (then the next starts a bit later) */
  int16_t *differences;  /* blocks_in_MCU per MCU */
  uint32_t *ac_first;    /* per MCU: its first AC pair */
  uint8_t *ac_positions; /* (position, value) pairs of each AC-decoded block, 0 ends a block */
  int16_t *ac_values;
  size_t ac_count, ac_capacity; /* the pairs are allocated whole (untouched pages cost nothing), */
  int exhausted;                 /* so they never move while the first thread reads them */
  JCOEF block[DCTSIZE2];
  _Atomic size_t recorded; /* starts[0, recorded) are written (release/acquire) */
  atomic_int stop;
  size_t ended;        /* records there are, once `finished` */
  atomic_int finished; /* set (release) when the thread is done */
  size_t cursor; /* the first thread's search in starts[] */
  size_t replay; /* after the meeting: the next record to replay */
  int joined;
} split_state;

static int store_pair(split_state *split, uint8_t position, int16_t value) {
  if (split->ac_count == split->ac_capacity) {
    split->exhausted = 1;
    return 0;
  }
  split->ac_positions[split->ac_count] = position;
  split->ac_values[split->ac_count++] = value;
  return 1;
}

/* The second thread's MCU: decoded and recorded, no pixels. 0 when it cannot go on. */
static int record_mcu(split_state *split, size_t mcu) {
  imc_eighth *eighth = split->eighth;
  bit_reader *reader = &split->reader;
  int blocks = eighth->cinfo->blocks_in_MCU;
  hot_bits hot = load_bits(reader);
  int decoded = 1;
  for (int block = 0; block < blocks && decoded; block++) {
    const block_plan *plan = &eighth->blocks[block];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac) memset(split->block, 0, sizeof split->block);
    int difference;
    if (!decode_block(&hot, reader, plan->state, with_ac ? split->block : NULL, &difference)) {
      decoded = 0;
      break;
    }
    split->differences[mcu * (size_t)blocks + (size_t)block] = (int16_t)difference;
    if (!with_ac) continue;
    for (int k = 1; k < DCTSIZE2 && decoded; k++)
      if (split->block[k] && !store_pair(split, (uint8_t)k, split->block[k])) decoded = 0;
    if (decoded && !store_pair(split, 0, 0)) decoded = 0;
  }
  store_bits(reader, hot);
  return decoded && reader->count >= reader->padded;
}

/* Until it falls into step, the thread decodes garbage, which may hold codes no table has: then it
 * marks the record failed and tries again one bit later. The data's end stops it. */
static void *speculate(void *argument) {
  split_state *split = argument;
  size_t mcu = 0;
  while (mcu < split->capacity) {
    if (atomic_load_explicit(&split->stop, memory_order_relaxed)) break;
    bit_reader before = split->reader;
    split->starts[mcu] = consumed_bits(&split->reader);
    split->ac_first[mcu] = (uint32_t)split->ac_count;
    split->failed[mcu] = split->ac_count > UINT32_MAX / 2 || !record_mcu(split, mcu);
    atomic_store_explicit(&split->recorded, mcu + 1, memory_order_release);
    mcu++;
    if (!split->failed[mcu - 1]) continue;
    if (split->reader.count < split->reader.padded || split->exhausted) break; /* the data's end, or memory */
    split->reader = before;
    if (split->reader.count < 1) imc_eighth_refill(&split->reader);
    if (split->reader.count - split->reader.padded < 1) break;
    split->reader.bits <<= 1;
    split->reader.count -= 1;
  }
  split->ended = mcu;
  atomic_store_explicit(&split->finished, 1, memory_order_release);
  return NULL;
}

/* Waits for the thread; `stop`: tells it to stop first. */
void imc_eighth_join_split(split_state *split, int stop) {
  if (split->joined) return;
  if (stop) atomic_store(&split->stop, 1);
  pthread_join(split->thread, NULL);
  split->joined = 1;
}

void imc_eighth_destroy_split(split_state *split) {
  if (!split) return;
  imc_eighth_join_split(split, 1);
  free(split->starts);
  free(split->failed);
  free(split->differences);
  free(split->ac_first);
  free(split->ac_positions);
  free(split->ac_values);
  free(split);
}

/* CPUs this thread may run on. */
static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

#define SPLIT_MIN_BYTES ((size_t)1 << 20)

void imc_eighth_always_split(imc_eighth *eighth) { eighth->always_split = 1; }

void imc_eighth_split(imc_eighth *eighth, const uint8_t *input, size_t length, size_t position) {
  j_decompress_ptr cinfo = eighth->cinfo;
  if (eighth->split || eighth->split_tried || eighth->rows_done) return;
  eighth->split_tried = 1;
  if (cinfo->restart_interval || length < position || length - position < SPLIT_MIN_BYTES) return;
  if (!eighth->always_split && (imc_busy_count() > 1 || usable_cpus() < 2)) return;
  size_t middle = position + (length - position) / 2;
  if (input[middle - 1] == 0xFF) middle++;
  /* The first thread's position at the middle, in data bits: those it has read, then every byte
   * up to the middle less the stuffed zeros. Anything else (fill bytes, a marker): no split. */
  if (eighth->reader.marker) return;
  uint64_t data_bytes = 0;
  const uint8_t *at = input + position;
  const uint8_t *stop = input + middle;
  while (at < stop) {
    const uint8_t *ff = memchr(at, 0xFF, (size_t)(stop - at));
    if (!ff) {
      data_bytes += (uint64_t)(stop - at);
      break;
    }
    if (ff + 1 >= stop || ff[1] != 0x00) return;
    data_bytes += (uint64_t)(ff - at) + 1;
    at = ff + 2;
  }
  split_state *split = calloc(1, sizeof *split);
  if (!split) return;
  split->eighth = eighth;
  split->origin_bits = eighth->reader.appended + data_bytes * 8;
  size_t mcus = (size_t)eighth->mcus_per_row * (size_t)eighth->mcu_rows;
  split->capacity = mcus + 1;
  split->starts = malloc(split->capacity * sizeof *split->starts);
  split->failed = malloc(split->capacity);
  split->differences = malloc(split->capacity * (size_t)cinfo->blocks_in_MCU * sizeof *split->differences);
  split->ac_first = malloc(split->capacity * sizeof *split->ac_first);
  /* At most 63 pairs and an end per block whose AC coefficients are decoded. */
  size_t ac_blocks = 0;
  for (int block = 0; block < cinfo->blocks_in_MCU; block++)
    ac_blocks += eighth->blocks[block].kind == BLOCK_WITH_AC;
  split->ac_capacity = split->capacity * ac_blocks * DCTSIZE2;
  if (split->ac_capacity) {
    split->ac_positions = malloc(split->ac_capacity);
    split->ac_values = malloc(split->ac_capacity * sizeof *split->ac_values);
    if (!split->ac_positions || !split->ac_values) {
      imc_eighth_destroy_split(split);
      return;
    }
  }
  split->reader.next = input + middle;
  split->reader.end = input + length;
  split->reader.eof = 1;
  split->joined = 1;
  if (!split->starts || !split->failed || !split->differences || !split->ac_first ||
      pthread_create(&split->thread, NULL, speculate, split) != 0) {
    imc_eighth_destroy_split(split);
    return;
  }
  split->joined = 0;
  eighth->split = split;
}

/* Before each of the first thread's MCUs: whether it starts where one of the second's did. */
void imc_eighth_look_for_meeting(imc_eighth *eighth) {
  split_state *split = eighth->split;
  uint64_t here = consumed_bits(&eighth->reader);
  if (here < split->origin_bits) return;
  uint64_t there = here - split->origin_bits;
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  while (split->cursor < recorded && split->starts[split->cursor] < there) split->cursor++;
  if (split->cursor < recorded && split->starts[split->cursor] == there) {
    split->replay = split->cursor;
    eighth->replaying = 1;
  }
}

/* One MCU from the second thread's records. Returns 0 to give up. */
int imc_eighth_replay_mcu(imc_eighth *eighth) {
  split_state *split = eighth->split;
  /* The thread may still be decoding: wait for the record (it is usually far ahead). */
  while (split->replay >= atomic_load_explicit(&split->recorded, memory_order_acquire) &&
         !atomic_load_explicit(&split->finished, memory_order_acquire))
    sched_yield();
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  /* A record that failed, or none: from the same state the first thread fails the same way. */
  if (split->replay >= recorded || split->failed[split->replay]) return 0;
  int blocks = eighth->cinfo->blocks_in_MCU;
  const int16_t *differences = split->differences + split->replay * (size_t)blocks;
  size_t pair = split->ac_first[split->replay];
  for (int block = 0; block < blocks; block++) {
    const block_plan *plan = &eighth->blocks[block];
    if (!add_dc(eighth, plan->state, plan->index, differences[block])) return 0;
    if (plan->kind == BLOCK_WITH_AC) {
      memset(eighth->block, 0, DCTSIZE2 * sizeof(JCOEF));
      for (; split->ac_positions[pair] != 0; pair++) eighth->block[split->ac_positions[pair]] = split->ac_values[pair];
      pair++;
    }
    make_pixels(eighth, plan);
  }
  split->replay++;
  return 1;
}

/* After the last replayed MCU: the first thread's reader takes the place where the second's stopped
 * (at the first marker after the middle, or the end), to look for EOI. */
void imc_eighth_take_over_reader(imc_eighth *eighth) {
  split_state *split = eighth->split;
  bit_reader *reader = &eighth->reader;
  reader->marker = split->reader.marker;
  reader->next = split->reader.next;
  reader->bits = 0;
  reader->count = reader->padded = 0;
}
