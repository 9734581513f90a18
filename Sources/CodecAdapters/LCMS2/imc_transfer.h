/* imc_transfer.h: the transfer functions an nclx box names (ITU-T H.273), as curves from the stored
 * signal (0...1) to relative linear light (0...1, 1 = SDR white), for the profile an nclx image is
 * converted through (imc_profile_from_nclx). Pure arithmetic: no lcms2 here. Private to the lcms2
 * adapter. */
#ifndef IMC_TRANSFER_H
#define IMC_TRANSFER_H

/* How a transfer characteristic is modelled. */
typedef enum {
  IMC_CURVE_SRGB,    /* 13 (IEC 61966-2-1), and 2 (unspecified) and every code not below */
  IMC_CURVE_BT709,   /* 1, 6, 14, 15: BT.709's curve (its OETF, inverted) */
  IMC_CURVE_LINEAR,  /* 8 */
  IMC_CURVE_GAMMA22, /* 4: BT.470 System M */
  IMC_CURVE_GAMMA28, /* 5: BT.470 System B, G */
  IMC_CURVE_PQ,      /* 16: SMPTE ST 2084 (HDR), tone-mapped */
  IMC_CURVE_HLG,     /* 18: ARIB STD-B67 (HDR), tone-mapped */
} imc_curve_kind;

imc_curve_kind imc_curve_for_transfer(int transfer);

/* The HDR curves' value at `signal` (0...1): linear light with SDR white at 1 and highlights rolled
 * off below 1 (see imc_transfer.c). */
double imc_hdr_linear(imc_curve_kind kind, double signal);

#endif
