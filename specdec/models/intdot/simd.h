/* What the intdot C files share: AVX2 + FMA detection and the fixed-order sum of 8 lanes. */
#ifndef INTDOT_SIMD_H
#define INTDOT_SIMD_H
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define USE_AVX2 1

/* lanes 0..7 summed as (0+4, 1+5, 2+6, 3+7), then pairs, then the last two: one order always */
static inline float hsum8(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
    return _mm_cvtss_f32(lo);
}
#endif
#endif
