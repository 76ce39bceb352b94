/* RMS normalisation of each row, in one fixed order: y = w * (x / sqrt(mean(x^2) + eps)).
 * A row's result does not depend on the other rows; the sum of squares runs in 8 lanes (AVX2)
 * or one (portable), then the lanes in a fixed order. */
#include <math.h>
#include <stdint.h>
#include "simd.h"

static float squares(const float *x, int64_t n) {
    int64_t j = 0;
    float s = 0.0f;
#ifdef USE_AVX2
    __m256 acc = _mm256_setzero_ps();
    for (; j + 8 <= n; j += 8) {
        const __m256 v = _mm256_loadu_ps(x + j);
        acc = _mm256_fmadd_ps(v, v, acc);
    }
    s = hsum8(acc);
#endif
    for (; j < n; j++) s = s + x[j] * x[j];
    return s;
}

void intdot_rmsnorm(const float *x, const float *w, float *y, int64_t M, int64_t K, float eps) {
    for (int64_t r = 0; r < M; r++) {
        const float scale = 1.0f / sqrtf(squares(x + r * K, K) / (float) K + eps);
        for (int64_t j = 0; j < K; j++) y[r * K + j] = w[j] * (x[r * K + j] * scale);
    }
}
