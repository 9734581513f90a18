/* libheif, opened with dlopen on first use (imc_heif_library.c): a process that decodes no HEIF or
 * AVIF never loads it (with its HEVC and AV1 decoders it is the largest library imgfetch uses).
 * Private to the libheif adapter. */
#ifndef IMC_HEIF_LIBRARY_H
#define IMC_HEIF_LIBRARY_H

#include <libheif/heif.h>
#include <stddef.h>

/* Every libheif call the adapter makes. */
#define IMC_HEIF_CALLS(X)                                                                                              \
  X(heif_get_version_number) X(heif_context_alloc) X(heif_context_free)                                                \
  X(heif_context_read_from_memory_without_copy) X(heif_context_set_maximum_image_size_limit)                           \
  X(heif_context_set_max_decoding_threads) X(heif_context_get_number_of_top_level_images)                              \
  X(heif_image_handle_release) X(heif_image_handle_get_width) X(heif_image_handle_get_height)                          \
  X(heif_image_handle_get_ispe_width) X(heif_image_handle_get_ispe_height) X(heif_image_handle_has_alpha_channel)      \
  X(heif_image_handle_get_luma_bits_per_pixel) X(heif_image_handle_get_color_profile_type)                             \
  X(heif_image_handle_get_raw_color_profile_size) X(heif_image_handle_get_raw_color_profile)                           \
  X(heif_image_handle_get_nclx_color_profile) X(heif_nclx_color_profile_free) X(heif_decode_image)                     \
  X(heif_decoding_options_alloc) X(heif_decoding_options_free) X(heif_image_get_plane_readonly)                        \
  X(heif_image_get_width) X(heif_image_get_height) X(heif_image_release) X(heif_have_decoder_for_format)               \
  X(heif_main_brand) X(heif_has_compatible_brand) X(heif_context_get_primary_image_ID)                                 \
  X(heif_context_is_top_level_image_ID) X(heif_context_get_list_of_top_level_image_IDs)                                \
  X(heif_context_get_image_handle)

/* The calls, as pointers typed from heif.h's own declarations: `imc_heif.heif_decode_image(...)`. */
typedef struct {
#define IMC_HEIF_POINTER(name) __typeof__(&name) name;
  IMC_HEIF_CALLS(IMC_HEIF_POINTER)
#undef IMC_HEIF_POINTER
} imc_heif_calls;

/* Filled by the first imc_heif_load that succeeds; read only after it has. */
extern imc_heif_calls imc_heif;

/* Opens libheif once (thread-safe) and resolves every call: IMGFETCH_LIBHEIF's path when it is set
 * (a newer libheif built from upstream), else libheif.so.1 as the loader finds it. 1 when libheif
 * can be used, otherwise 0 with the reason in `reason`. */
int imc_heif_load(char *reason, size_t capacity);

#endif
