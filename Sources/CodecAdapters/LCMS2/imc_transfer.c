/* imc_transfer.c: see imc_transfer.h.
 *
 * HDR to SDR (a thumbnail is an SDR picture): the signal is taken to display light in cd/m² (PQ:
 * its EOTF, 0-10000; HLG: its inverse OETF and the reference OOTF of BT.2100 for a 1000 cd/m²
 * display, system gamma 1.2, applied per channel), then divided by BT.2408's reference white,
 * 203 cd/m², so that diffuse white and everything darker keep their SDR brightness; above 0.8 of
 * white, highlights are rolled off smoothly (an exponential shoulder, continuous with slope 1 at
 * the knee) towards 1 instead of clipping. Per channel, so very saturated highlights may shift hue
 * slightly; that is the trade for doing it inside the one lcms2 transform every image takes. */
#include "imc_transfer.h"

#include <math.h>

imc_curve_kind imc_curve_for_transfer(int transfer) {
  switch (transfer) {
  case 1:
  case 6:
  case 14:
  case 15: return IMC_CURVE_BT709;
  case 8: return IMC_CURVE_LINEAR;
  case 4: return IMC_CURVE_GAMMA22;
  case 5: return IMC_CURVE_GAMMA28;
  case 16: return IMC_CURVE_PQ;
  case 18: return IMC_CURVE_HLG;
  default: return IMC_CURVE_SRGB;
  }
}

#define REFERENCE_WHITE 203.0 /* cd/m², BT.2408 */
#define KNEE 0.8

static double pq_nits(double signal) {
  const double m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
  const double c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;
  double p = pow(signal, 1.0 / m2);
  double num = p - c1 > 0 ? p - c1 : 0;
  return 10000.0 * pow(num / (c2 - c3 * p), 1.0 / m1);
}

static double hlg_nits(double signal) {
  const double a = 0.17883277, b = 1.0 - 4.0 * 0.17883277, c = 0.5 - 0.17883277 * log(4.0 * 0.17883277);
  double scene = signal <= 0.5 ? signal * signal / 3.0 : (exp((signal - c) / a) + b) / 12.0;
  return 1000.0 * pow(scene, 1.2);
}

static double roll_off(double x) {
  if (x <= KNEE) return x;
  double room = 1.0 - KNEE;
  return KNEE + room * (1.0 - exp(-(x - KNEE) / room));
}

double imc_hdr_linear(imc_curve_kind kind, double signal) {
  if (signal <= 0) return 0;
  if (signal > 1) signal = 1;
  double nits = kind == IMC_CURVE_PQ ? pq_nits(signal) : hlg_nits(signal);
  return roll_off(nits / REFERENCE_WHITE);
}
