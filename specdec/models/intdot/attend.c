/* Attention row by row: each query row against exactly the keys it sees, in one fixed order.
 *
 * For query row i and head h (key/value head g = h / G): s_j = (q . k_j) * scale over the
 * visible keys j in their cache order, p_j = exp(s_j - max s) / sum, out = sum_j p_j v_j.
 * Nothing a row computes depends on the other rows of the pass, or on how many there are:
 * a verification pass gives each row, bit for bit, what a one-row step at that position gives.
 * Dot products run over the head dimension in 8 lanes (AVX2) or one (portable), always in the
 * same order; built with -ffp-contract=off, so the compiler neither fuses nor reorders.
 */
#include <math.h>
#include <stdint.h>
#include "simd.h"

static inline float dot(const float *a, const float *b, int64_t n) {
#ifdef USE_AVX2
    if (n % 8 == 0) {
        __m256 acc = _mm256_setzero_ps();
        for (int64_t x = 0; x < n; x += 8)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + x), _mm256_loadu_ps(b + x), acc);
        return hsum8(acc);
    }
#endif
    float s = 0.0f;
    for (int64_t x = 0; x < n; x++) s = s + a[x] * b[x];
    return s;
}

/* out (D) += p * v (D) */
static inline void axpy(float *out, float p, const float *v, int64_t n) {
    int64_t x = 0;
#ifdef USE_AVX2
    const __m256 pp = _mm256_set1_ps(p);
    for (; x + 8 <= n; x += 8)
        _mm256_storeu_ps(out + x, _mm256_fmadd_ps(pp, _mm256_loadu_ps(v + x), _mm256_loadu_ps(out + x)));
#endif
    for (; x < n; x++) out[x] = out[x] + p * v[x];
}

/* q: row i, head h at q + h * q_head + i * q_row (D floats); k, v: key j of head g at
 * k + g * k_head + j * D (v likewise with v_head); row i sees counts[i] keys: the first ones
 * when index is NULL, else index[offsets[i] ...]; out (T, H, D) contiguous; scratch >= max count. */
void intdot_attend(const float *q, int64_t q_head, int64_t q_row, const float *k, int64_t k_head,
                   const float *v, int64_t v_head, int64_t H, int64_t G, int64_t T, int64_t D,
                   const int64_t *counts, const int64_t *offsets, const int64_t *index, float scale,
                   float *out, float *scratch) {
    for (int64_t i = 0; i < T; i++) {
        const int64_t n = counts[i];
        const int64_t *seen = index ? index + offsets[i] : 0;
        for (int64_t h = 0; h < H; h++) {
            const float *qi = q + h * q_head + i * q_row;
            const float *kg = k + (h / G) * k_head, *vg = v + (h / G) * v_head;
            float *o = out + (i * H + h) * D;
            float top = -INFINITY, sum = 0.0f;
            for (int64_t j = 0; j < n; j++) {
                const int64_t at = seen ? seen[j] : j;
                scratch[j] = dot(qi, kg + at * D, D) * scale;
                top = fmaxf(top, scratch[j]);
            }
            for (int64_t j = 0; j < n; j++) {
                scratch[j] = expf(scratch[j] - top);
                sum = sum + scratch[j];
            }
            for (int64_t x = 0; x < D; x++) o[x] = 0.0f;
            for (int64_t j = 0; j < n; j++) axpy(o, scratch[j] / sum, vg + (seen ? seen[j] : j) * D, D);
        }
    }
}
