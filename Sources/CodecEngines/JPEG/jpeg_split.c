#define _GNU_SOURCE /* sched_getaffinity */
/* jpeg_split.c: two threads on one sequential scan.
 *
 * A scan without restart markers is one chain of variable-length codes: where a code starts is
 * known only by decoding everything before it. But Huffman codes resynchronize: decoding from an
 * arbitrary bit soon falls into step with the true code boundaries. So when all of a large scan's
 * bytes are here, a second thread starts at the middle byte as if an MCU began there, and records
 * where each MCU it decodes starts and what it decoded (DC differences, and AC coefficients where
 * an inverse DCT uses them). The first thread decodes from the start as usual; past the middle,
 * once one of its MCUs starts exactly where one of the second's did, both decoders are in the same
 * state (same bit, same place in the MCU), so the second's records from there on are what the
 * first would decode: it replays them, summing the DC differences from its own predictions. If
 * they never meet, the first decodes on alone. Any failure the second met after the meeting point
 * is a failure of the stream (give up).
 *
 * When: IMC_JPEG_ENGINE_SPLIT_LARGE splits a scan of split_min_bytes (1 MiB) or more when a second
 * CPU is usable (the caller decides whether other decodes run); SPLIT_ALWAYS splits any scan of
 * split_min_bytes or more, so that tests and fuzzing reach this path with small files.
 */
#include "jpeg_sequential_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct split_state {
  imc_jpeg_sequential *sequential; /* tables and plans, read-only while the thread runs */
  pthread_t thread;
  bit_reader reader;     /* from `origin` on */
  uint64_t origin_bits;  /* the first thread's position (data bits) at `origin` */
  size_t capacity;       /* MCUs the records hold */
  uint64_t *starts;      /* data bits after `origin` where each MCU starts */
  uint8_t *failed;       /* the MCU at starts[i] could not be decoded (then the next starts a bit later) */
  int16_t *differences;  /* block_count per MCU */
  uint32_t *ac_first;    /* per MCU: its first AC pair */
  uint8_t *ac_positions; /* (position, value) pairs of each AC-decoded block, 0 ends a block */
  int16_t *ac_values;
  size_t ac_count, ac_capacity; /* the pairs are allocated whole (untouched pages cost nothing), */
  int exhausted;                /* so they never move while the first thread reads them */
  int16_t block[64];
  _Atomic size_t recorded; /* starts[0, recorded) are written (release/acquire) */
  atomic_int stop;
  size_t ended;        /* records there are, once `finished` */
  atomic_int finished; /* set (release) when the thread is done */
  size_t cursor;       /* the first thread's search in starts[] */
  size_t replay;       /* after the meeting: the next record to replay */
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

/* The second thread's MCU: decoded and recorded, no samples. 0 when it cannot go on. */
static int record_mcu(split_state *split, size_t mcu) {
  imc_jpeg_sequential *s = split->sequential;
  bit_reader r = split->reader;
  int decoded = 1;
  for (int b = 0; b < s->block_count && decoded; b++) {
    const block_plan *plan = &s->blocks[b];
    int with_ac = plan->kind == BLOCK_WITH_AC;
    if (with_ac) memset(split->block, 0, sizeof split->block);
    int difference;
    if (!decode_block(&r, plan, with_ac ? split->block : NULL, &difference)) {
      decoded = 0;
      break;
    }
    split->differences[mcu * (size_t)s->block_count + (size_t)b] = (int16_t)difference;
    if (!with_ac) continue;
    for (int k = 1; k < 64 && decoded; k++)
      if (split->block[k] && !store_pair(split, (uint8_t)k, split->block[k])) decoded = 0;
    if (decoded && !store_pair(split, 0, 0)) decoded = 0;
  }
  split->reader = r;
  return decoded && r.count >= r.padded;
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
    if (split->reader.count < 1) imc_jpeg_refill(&split->reader);
    if (split->reader.count - split->reader.padded < 1) break;
    split->reader.bits <<= 1;
    split->reader.count -= 1;
  }
  split->ended = mcu;
  atomic_store_explicit(&split->finished, 1, memory_order_release);
  return NULL;
}

void imc_jpeg_split_join(split_state *split, int stop) {
  if (!split || split->joined) return;
  if (stop) atomic_store(&split->stop, 1);
  pthread_join(split->thread, NULL);
  split->joined = 1;
}

void imc_jpeg_split_destroy(split_state *split) {
  if (!split) return;
  imc_jpeg_split_join(split, 1);
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

void imc_jpeg_split_start(imc_jpeg_sequential *s, const uint8_t *input, size_t length, size_t position) {
  if (s->split || s->split_tried || s->mcu_y >= s->mcu_rows) return;
  s->split_tried = 1;
  if (s->restart_interval || length < position || length - position < s->split_min_bytes) return;
  if (s->split_mode != IMC_JPEG_ENGINE_SPLIT_ALWAYS && usable_cpus() < 2) return;
  size_t middle = position + (length - position) / 2;
  if (middle > position && input[middle - 1] == 0xFF) middle++;
  /* The first thread's position at the middle, in data bits: those it has read, then every byte
   * up to the middle less the stuffed zeros. Anything else (fill bytes, a marker): no split. */
  if (s->reader.marker) return;
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
  split->sequential = s;
  split->origin_bits = s->reader.appended + data_bytes * 8;
  size_t mcus = (size_t)s->mcus_per_row * (size_t)s->mcu_rows;
  split->capacity = mcus + 1;
  split->starts = malloc(split->capacity * sizeof *split->starts);
  split->failed = malloc(split->capacity);
  split->differences = malloc(split->capacity * (size_t)s->block_count * sizeof *split->differences);
  split->ac_first = malloc(split->capacity * sizeof *split->ac_first);
  /* At most 63 pairs and an end per block whose AC coefficients are decoded. */
  size_t ac_blocks = 0;
  for (int b = 0; b < s->block_count; b++) ac_blocks += s->blocks[b].kind == BLOCK_WITH_AC;
  split->ac_capacity = split->capacity * ac_blocks * 64;
  split->joined = 1;
  if (split->ac_capacity) {
    split->ac_positions = malloc(split->ac_capacity);
    split->ac_values = malloc(split->ac_capacity * sizeof *split->ac_values);
    if (!split->ac_positions || !split->ac_values) {
      imc_jpeg_split_destroy(split);
      return;
    }
  }
  split->reader.next = input + middle;
  split->reader.end = input + length;
  if (!split->starts || !split->failed || !split->differences || !split->ac_first ||
      pthread_create(&split->thread, NULL, speculate, split) != 0) {
    imc_jpeg_split_destroy(split);
    return;
  }
  split->joined = 0;
  s->split = split;
  imc_jpeg_count_split();
}

void imc_jpeg_split_look_for_meeting(imc_jpeg_sequential *s) {
  split_state *split = s->split;
  uint64_t here = consumed_bits(&s->reader);
  if (here < split->origin_bits) return;
  uint64_t there = here - split->origin_bits;
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  while (split->cursor < recorded && split->starts[split->cursor] < there) split->cursor++;
  if (split->cursor < recorded && split->starts[split->cursor] == there) {
    split->replay = split->cursor;
    s->replaying = 1;
  }
}

int imc_jpeg_split_replay_mcu(imc_jpeg_sequential *s) {
  split_state *split = s->split;
  /* The thread may still be decoding: wait for the record (it is usually far ahead). */
  while (split->replay >= atomic_load_explicit(&split->recorded, memory_order_acquire) &&
         !atomic_load_explicit(&split->finished, memory_order_acquire))
    sched_yield();
  size_t recorded = atomic_load_explicit(&split->recorded, memory_order_acquire);
  /* A record that failed, or none: from the same state the first thread fails the same way. */
  if (split->replay >= recorded || split->failed[split->replay]) return 0;
  const int16_t *differences = split->differences + split->replay * (size_t)s->block_count;
  size_t pair = split->ac_first[split->replay];
  for (int b = 0; b < s->block_count; b++) {
    const block_plan *plan = &s->blocks[b];
    if (!add_dc(s, plan, differences[b])) return 0;
    int has_ac = 0;
    if (plan->kind == BLOCK_WITH_AC) {
      memset(s->block, 0, sizeof s->block);
      s->block_dirty = 0;
      has_ac = split->ac_positions[pair] != 0;
      for (; split->ac_positions[pair] != 0; pair++) s->block[split->ac_positions[pair]] = split->ac_values[pair];
      pair++;
      if (has_ac) s->block_dirty = 1;
    }
    if (!make_samples(s, plan, s->block, has_ac)) return 0;
  }
  split->replay++;
  return 1;
}

void imc_jpeg_split_take_over_reader(imc_jpeg_sequential *s) {
  split_state *split = s->split;
  bit_reader *r = &s->reader;
  r->marker = split->reader.marker;
  r->ended = split->reader.ended;
  r->next = split->reader.next;
  r->bits = 0;
  r->count = r->padded = 0;
}
