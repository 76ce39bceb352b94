/* Integer dot products for a model's linear layers: GGUF blocks (Q4_1, Q8_0) times activations
 * quantised per row in blocks of 32 to 15-bit integers, one output column at a time.
 *
 * Row-exact by construction: every output y[r][n] is computed by the same instructions in the
 * same order whatever the other rows of the pass are (rows go in tiles, but a row's accumulation
 * never mixes with another row's), a block's inner sum is an integer (exact in any order), and
 * the float accumulation over blocks runs in one fixed order. So a pass of many rows gives each
 * row, bit for bit, what a one-row pass gives it.
 *
 * Built with -ffp-contract=off and without -ffast-math: the compiler may neither fuse nor reorder
 * float operations; where AVX2 is used, the float steps are explicit intrinsics.
 *
 * Layouts (little-endian, contiguous; one record per output column, N records):
 *   Q4_1 column: {uint8 qs[K/2]; float d[K/32]; float m[K/32]}: block b's entry j is
 *                (qs[16b + j] & 15) * d[b] + m[b], entry j + 16 is (qs[16b + j] >> 4) * d[b] + m[b]
 *                (llama.cpp's order within a block).
 *   Q8_0 column: {int8 qs[K]; float d[K/32]}: entry j of block b is qs[32b + j] * d[b].
 *   activations: q = 128 * xh + xl, xh int8 (M, K) in -127..127, xl int8 (M, K) in 0..127;
 *                xd float (M, K/32) the block scales, xs float (M, K/32) = xd * sum(q).
 * Per row and column: y = sum_b d[b] * xd[b] * (integer dot of block b) + sum_b m[b] * xs[b].
 *
 * Why 15 bits in two halves: 8-bit activations (llama.cpp's Q8_1) moved SmolLM2's greedy text
 * away from its float32 text in 4 of 8 chats; each half multiplies with AVX2's 8-bit
 * instructions (no int16 x int8 product exists there), and the halves' sums join exactly.
 */
#include <math.h>
#include <stdint.h>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define USE_AVX2 1
#endif

#define QK 32
#define TILE 4
#define QMAX 16256                    /* 127 * 128: |xh| <= 127, so a sign flip never overflows */

int intdot_simd(void) {
#ifdef USE_AVX2
    return 2;
#else
    return 0;
#endif
}

/* x float (M, K) -> xh, xl, xd, xs as above: q = round(x / d), d = max|x| / QMAX per block. */
void intdot_quantise(const float *x, int8_t *xh, int8_t *xl, float *xd, float *xs, int64_t M, int64_t K) {
    const int64_t nb = K / QK;
    for (int64_t r = 0; r < M; r++) {
        for (int64_t b = 0; b < nb; b++) {
            const int64_t at = r * K + b * QK;
            float amax = 0.0f;
            for (int j = 0; j < QK; j++) amax = fmaxf(amax, fabsf(x[at + j]));
            const float d = amax / (float) QMAX;
            const float id = d != 0.0f ? 1.0f / d : 0.0f;
            int32_t sum = 0;
            for (int j = 0; j < QK; j++) {
                int32_t q = (int32_t) roundf(x[at + j] * id);
                q = q > QMAX ? QMAX : (q < -QMAX ? -QMAX : q);
                xh[at + j] = (int8_t) (q >> 7);                     /* floor(q / 128) */
                xl[at + j] = (int8_t) (q & 127);
                sum += q;
            }
            xd[r * nb + b] = d;
            xs[r * nb + b] = d * (float) sum;
        }
    }
}

#ifdef USE_AVX2
static inline float hsum8(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
    return _mm_cvtss_f32(lo);
}

/* sum_b m[b] * xs[b] over nb blocks (8 lanes, then the tail) added to acc's lanes, one fixed order. */
static inline float finish(__m256 acc, const float *m, const float *xs, int64_t nb) {
    int64_t b = 0;
    for (; b + 8 <= nb; b += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(m + b), _mm256_loadu_ps(xs + b), acc);
    float y = hsum8(acc);
    for (; b < nb; b++) y = y + m[b] * xs[b];
    return y;
}

/* The exact integer dot of block b of row (r0 + i) with weights w (unsigned bytes, multiplied
 * by the signed halves hs, ls of the row): 8 int32 lanes. */
static inline __m256i halves(__m256i w, __m256i hs, __m256i ls, __m256i ones) {
    const __m256i ph = _mm256_madd_epi16(_mm256_maddubs_epi16(w, hs), ones);
    const __m256i pl = _mm256_madd_epi16(_mm256_maddubs_epi16(w, ls), ones);
    return _mm256_add_epi32(_mm256_slli_epi32(ph, 7), pl);
}

#define ROW_H(i) _mm256_loadu_si256((const __m256i *) (xh + (r0 + (i)) * K + b * QK))
#define ROW_L(i) _mm256_loadu_si256((const __m256i *) (xl + (r0 + (i)) * K + b * QK))
#define ROW_D(i) _mm256_broadcast_ss(xd + (r0 + (i)) * nb + b)
/* A block's integer dot p, scaled by the row's block scale and the weight's, added to acc
 * (blocks alternate between two accumulators so consecutive additions do not wait on each
 * other; the order is the same for every row). */
#define Q4_STEP(acc, i) \
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(halves(q, ROW_H(i), ROW_L(i), ones)), ROW_D(i)), scale, acc)
#define Q8_STEP(acc, i) \
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps( \
        halves(mag, _mm256_sign_epi8(ROW_H(i), q), _mm256_sign_epi8(ROW_L(i), q), ones)), ROW_D(i)), scale, acc)
#define EACH_ROW(STEP, a0, a1, a2, a3) do { \
        STEP(a0, 0); if (R > 1) STEP(a1, 1); if (R > 2) STEP(a2, 2); if (R > 3) STEP(a3, 3); } while (0)

static inline __m256i q4_unpack(const uint8_t *qs, int64_t b) {
    const __m128i raw = _mm_loadu_si128((const __m128i *) (qs + b * 16));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(raw, 4), raw), _mm256_set1_epi8(0x0F));
}

/* Rows r0..r0+R-1 (R <= TILE, a constant where inlined) of one Q4_1 column: qs (K/2 bytes),
 * d and m (nb floats each) are the column's record; y points at row r0's output. */
static inline __attribute__((always_inline)) void q4_1_rows(
        const uint8_t *qs, const float *d, const float *m, const int8_t *xh, const int8_t *xl,
        const float *xd, const float *xs, float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int64_t b = 0;
    while (b < nb) {
        __m256i q = q4_unpack(qs, b);
        __m256 scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(Q4_STEP, e0, e1, e2, e3);
        if (++b == nb) break;
        q = q4_unpack(qs, b);
        scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(Q4_STEP, o0, o1, o2, o3);
        b++;
    }
    const __m256 sum[TILE] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2),
                              _mm256_add_ps(e3, o3)};
    for (int i = 0; i < R; i++) y[i * N] = finish(sum[i], m, xs + (r0 + i) * nb, nb);
}

static inline __attribute__((always_inline)) void q8_0_rows(
        const int8_t *qs, const float *d, const int8_t *xh, const int8_t *xl, const float *xd,
        float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int64_t b = 0;
    while (b < nb) {
        __m256i q = _mm256_loadu_si256((const __m256i *) (qs + b * QK));
        __m256i mag = _mm256_sign_epi8(q, q);                                 /* |q|, 0..128 */
        __m256 scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(Q8_STEP, e0, e1, e2, e3);
        if (++b == nb) break;
        q = _mm256_loadu_si256((const __m256i *) (qs + b * QK));
        mag = _mm256_sign_epi8(q, q);
        scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(Q8_STEP, o0, o1, o2, o3);
        b++;
    }
    const __m256 sum[TILE] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2),
                              _mm256_add_ps(e3, o3)};
    for (int i = 0; i < R; i++) y[i * N] = hsum8(sum[i]);
}
#else
static inline void q4_1_rows(const uint8_t *qs, const float *d, const float *m, const int8_t *xh,
                             const int8_t *xl, const float *xd, const float *xs, float *y, int64_t r0,
                             const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    for (int i = 0; i < R; i++) {
        const int64_t r = r0 + i;
        float acc = 0.0f, sm = 0.0f;
        for (int64_t b = 0; b < nb; b++) {
            const int8_t *h = xh + r * K + b * QK, *l = xl + r * K + b * QK;
            const uint8_t *q = qs + b * 16;
            int32_t s = 0;
            for (int j = 0; j < 16; j++)
                s += (q[j] & 15) * (h[j] * 128 + l[j]) + (q[j] >> 4) * (h[j + 16] * 128 + l[j + 16]);
            acc = acc + ((float) s * xd[r * nb + b]) * d[b];
            sm = sm + m[b] * xs[r * nb + b];
        }
        y[i * N] = acc + sm;
    }
}

static inline void q8_0_rows(const int8_t *qs, const float *d, const int8_t *xh, const int8_t *xl,
                             const float *xd, float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    for (int i = 0; i < R; i++) {
        const int64_t r = r0 + i;
        float acc = 0.0f;
        for (int64_t b = 0; b < nb; b++) {
            const int8_t *h = xh + r * K + b * QK, *l = xl + r * K + b * QK;
            int32_t s = 0;
            for (int j = 0; j < QK; j++) s += qs[b * QK + j] * (h[j] * 128 + l[j]);
            acc = acc + ((float) s * xd[r * nb + b]) * d[b];
        }
        y[i * N] = acc;
    }
}
#endif

/* Bytes of one column's record: Q4_1 {uint8 qs[K/2]; float d[K/32]; float m[K/32]},
 * Q8_0 {int8 qs[K]; float d[K/32]}. */
int64_t intdot_q4_1_bytes(int64_t K) { return K / 2 + 8 * (K / QK); }
int64_t intdot_q8_0_bytes(int64_t K) { return K + 4 * (K / QK); }

/* y (M, N) = x (M, K) times a Q4_1 layer's (N, K) weight, x given quantised. Rows go in tiles
 * of TILE (a column's weights are read once per tile); each row's sums as in a one-row pass. */
void intdot_q4_1(const uint8_t *weight, const int8_t *xh, const int8_t *xl, const float *xd, const float *xs,
                 float *y, int64_t M, int64_t N, int64_t K) {
    const int64_t nb = K / QK, size = intdot_q4_1_bytes(K);
    for (int64_t n = 0; n < N; n++) {
        const uint8_t *col = weight + n * size;
        const float *d = (const float *) (col + K / 2), *m = d + nb;
        int64_t r0 = 0;
        for (; r0 + TILE <= M; r0 += TILE) q4_1_rows(col, d, m, xh, xl, xd, xs, y + r0 * N + n, r0, TILE, N, K);
        switch (M - r0) {
            case 3: q4_1_rows(col, d, m, xh, xl, xd, xs, y + r0 * N + n, r0, 3, N, K); break;
            case 2: q4_1_rows(col, d, m, xh, xl, xd, xs, y + r0 * N + n, r0, 2, N, K); break;
            case 1: q4_1_rows(col, d, m, xh, xl, xd, xs, y + r0 * N + n, r0, 1, N, K); break;
            default: break;
        }
    }
}

void intdot_q8_0(const uint8_t *weight, const int8_t *xh, const int8_t *xl, const float *xd,
                 float *y, int64_t M, int64_t N, int64_t K) {
    const int64_t size = intdot_q8_0_bytes(K);
    for (int64_t n = 0; n < N; n++) {
        const int8_t *col = (const int8_t *) (weight + n * size);
        const float *d = (const float *) (col + K);
        int64_t r0 = 0;
        for (; r0 + TILE <= M; r0 += TILE) q8_0_rows(col, d, xh, xl, xd, y + r0 * N + n, r0, TILE, N, K);
        switch (M - r0) {
            case 3: q8_0_rows(col, d, xh, xl, xd, y + r0 * N + n, r0, 3, N, K); break;
            case 2: q8_0_rows(col, d, xh, xl, xd, y + r0 * N + n, r0, 2, N, K); break;
            case 1: q8_0_rows(col, d, xh, xl, xd, y + r0 * N + n, r0, 1, N, K); break;
            default: break;
        }
    }
}
