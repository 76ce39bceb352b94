/* Integer dot products for a model's linear layers: GGUF blocks (Q4_1, Q8_0) times activations
 * quantised per row in blocks of 32 to 16-bit integers, one output column at a time.
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
 * Layouts (little-endian, contiguous; N records of one column's size, in groups of 8 columns):
 *   Each whole group of 8 consecutive columns is stored interleaved (8 records' bytes, see GROUP
 *   below): a 16-bit multiply-add then serves 8 columns at once and a block's float steps are
 *   paid once for 8 columns, so an extra row of a pass costs about half what it did one column at a
 *   time. The last N % 8 columns keep one record each:
 *   Q4_1 column: {uint8 qs[K/2]; float d[K/32]; float m[K/32]}: block b's entry j is
 *                (qs[16b + j] & 15) * d[b] + m[b], entry j + 16 is (qs[16b + j] >> 4) * d[b] + m[b]
 *                (llama.cpp's order within a block).
 *   Q8_0 column: {int8 qs[K]; float d[K/32]}: entry j of block b is qs[32b + j] * d[b].
 *   activations: xq int16 (M, K) in -32767..32767, xd float (M, K/32) the block scales,
 *                xs float (M, K/32) = xd * sum(xq).
 * Per row and column: y = sum_b d[b] * xd[b] * (integer dot of block b) + sum_b m[b] * xs[b].
 *
 * GROUP layout (8 columns c, nb blocks b), one stream: Q4_1 {{uint8 qs[8][16]; float d[8]} block[nb];
 *   float m[nb][8]}:
 *   byte (b, j, l) holds column l/2's entry 2j + l%2 of block b in its low nibble and entry
 *   16 + 2j + l%2 in its high nibble, so a widened 16-byte chunk is, lane by lane, the pairs a
 *   multiply-add needs; Q8_0 {{int8 qs[16][16]; float d[8]} block[nb]}: byte (b, p, l) is column l/2's
 *   entry 2p + l%2. Per block and row: s_c = exact integer sum over the 16 pairs, then
 *   acc_c = acc_c + (s_c * xd) * d_c (fused multiply-add in the vector kernel), blocks in order; the
 *   Q4_1 term sum_b m_c[b] * xs[b] afterwards in block order; y_c = acc_c + that.
 *
 * Why 16-bit activations: 8-bit ones (llama.cpp's Q8_1) moved SmolLM2's greedy text away from
 * its float32 text in 4 of 8 chats. AVX2 multiplies 16-bit pairs into 32-bit sums (vpmaddwd, then
 * vpaddd; AVX-512 VNNI's vpdpwssd does both in one instruction: group.h); a weight block is
 * widened to 16 bits once and serves every row of the tile.
 */
#include <math.h>
#include <stdint.h>
#include "simd.h"

#define QK 32
#define TILE 4       /* rows a column's weights serve at once */
#define GTILE 5      /* rows a group's widened weights serve at once (a pass of k = 4 drafts in one tile) */
#define QMAX 32767

/* Bytes of one column's record: Q4_1 {uint8 qs[K/2]; float d[K/32]; float m[K/32]},
 * Q8_0 {int8 qs[K]; float d[K/32]}. */
int64_t intdot_q4_1_bytes(int64_t K) { return K / 2 + 8 * (K / QK); }
int64_t intdot_q8_0_bytes(int64_t K) { return K + 4 * (K / QK); }

#define GTILES(call) do { int64_t r0 = 0; \
        for (; r0 + GTILE <= M; r0 += GTILE) call(GTILE); \
        switch (M - r0) { case 4: call(4); break; case 3: call(3); break; case 2: call(2); break; \
        case 1: call(1); break; default: break; } \
    } while (0)

/* Rows in tiles of TILE (a column's or group's weights are read once per tile), then the rest. */
#define TILES(call) do { int64_t r0 = 0; \
        for (; r0 + TILE <= M; r0 += TILE) call(TILE); \
        switch (M - r0) { case 3: call(3); break; case 2: call(2); break; case 1: call(1); break; default: break; } \
    } while (0)

/* x float (M, K) -> xq, xd, xs as above: q = round(x / d), d = max|x| / QMAX per block. */
void intdot_quantise(const float *x, int16_t *xq, float *xd, float *xs, int64_t M, int64_t K) {
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
                xq[at + j] = (int16_t) q;
                sum += q;
            }
            xd[r * nb + b] = d;
            xs[r * nb + b] = d * (float) sum;
        }
    }
}

#ifdef USE_AVX2
/* sum_b m[b] * xs[b] over nb blocks (8 lanes, then the tail) added to acc's lanes, one fixed order. */
static inline float finish(__m256 acc, const float *m, const float *xs, int64_t nb) {
    int64_t b = 0;
    for (; b + 8 <= nb; b += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(m + b), _mm256_loadu_ps(xs + b), acc);
    float y = hsum8(acc);
    for (; b < nb; b++) y = y + m[b] * xs[b];
    return y;
}

/* The exact integer dot of one block of a row with the weights w0 (entries 0..15) and w1
 * (16..31), widened to 16 bits: 8 int32 lanes. */
#define ROW_X(i, half) _mm256_loadu_si256((const __m256i *) (xq + (r0 + (i)) * K + b * QK + 16 * (half)))
#define ROW_D(i) _mm256_broadcast_ss(xd + (r0 + (i)) * nb + b)
#define DOT(i) _mm256_add_epi32(_mm256_madd_epi16(w0, ROW_X(i, 0)), _mm256_madd_epi16(w1, ROW_X(i, 1)))
/* A block's integer dot, scaled by the row's block scale and the weight's, added to acc
 * (blocks alternate between two accumulators so consecutive additions do not wait on each
 * other; the order is the same for every row). */
#define STEP(acc, i) acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(DOT(i)), ROW_D(i)), scale, acc)
#define EACH_ROW(a0, a1, a2, a3) do { \
        STEP(a0, 0); if (R > 1) STEP(a1, 1); if (R > 2) STEP(a2, 2); if (R > 3) STEP(a3, 3); } while (0)

/* Block b's 32 weights as 16-bit lanes: w0 entries 0..15 (low nibbles), w1 entries 16..31 (high
 * nibbles); one widening load, no lane crossing. */
#define Q4_WIDEN(b) do { \
        const __m256i bytes_ = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *) (qs + (b) * 16))); \
        w0 = _mm256_and_si256(bytes_, low4); \
        w1 = _mm256_srli_epi16(bytes_, 4); } while (0)

/* Rows r0..r0+R-1 (R <= TILE, a constant where inlined) of one Q4_1 column: qs (K/2 bytes),
 * d and m (nb floats each) are the column's record; y points at row r0's output. */
static inline __attribute__((always_inline)) void q4_1_rows(
        const uint8_t *qs, const float *d, const float *m, const int16_t *xq, const float *xd,
        const float *xs, float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    const __m256i low4 = _mm256_set1_epi16(0x0F);
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    __m256i w0, w1;
    int64_t b = 0;
    while (b < nb) {
        Q4_WIDEN(b);
        __m256 scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(e0, e1, e2, e3);
        if (++b == nb) break;
        Q4_WIDEN(b);
        scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(o0, o1, o2, o3);
        b++;
    }
    const __m256 sum[TILE] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2),
                              _mm256_add_ps(e3, o3)};
    for (int i = 0; i < R; i++) y[i * N] = finish(sum[i], m, xs + (r0 + i) * nb, nb);
}

static inline __attribute__((always_inline)) void q8_0_rows(
        const int8_t *qs, const float *d, const int16_t *xq, const float *xd,
        float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    int64_t b = 0;
    while (b < nb) {
        __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (qs + b * QK)));
        __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (qs + b * QK + 16)));
        __m256 scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(e0, e1, e2, e3);
        if (++b == nb) break;
        w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (qs + b * QK)));
        w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (qs + b * QK + 16)));
        scale = _mm256_broadcast_ss(d + b);
        EACH_ROW(o0, o1, o2, o3);
        b++;
    }
    const __m256 sum[TILE] = {_mm256_add_ps(e0, o0), _mm256_add_ps(e1, o1), _mm256_add_ps(e2, o2),
                              _mm256_add_ps(e3, o3)};
    for (int i = 0; i < R; i++) y[i * N] = hsum8(sum[i]);
}

/* Whole groups of 8 columns: group.h, once with AVX2's multiply-add and once with AVX-512 VNNI's
 * (chosen at run time where the CPU has it, intdot_vnni). */
#define TARGET "avx2,fma"
#define GROUPS(f) f##_avx2
#define PAIR_DOT(s, w, x) _mm256_add_epi32(s, _mm256_madd_epi16(w, x))
#include "group.h"
#undef TARGET
#undef GROUPS
#undef PAIR_DOT
#define TARGET "avx2,fma,avx512vnni,avx512vl"
#define GROUPS(f) f##_vnni
#define PAIR_DOT(s, w, x) _mm256_dpwssd_epi32(s, w, x)
#include "group.h"
#undef TARGET
#undef GROUPS
#undef PAIR_DOT

static int vnni = 0;

/* Switch the VNNI copy on (1) or off (0); returns 1 when it is on (only where the CPU has it). */
int intdot_vnni(int on) {
    vnni = on && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
    return vnni;
}

static void q4_1_groups(const uint8_t *weight, const int16_t *xq, const float *xd, const float *xs, float *y,
                        int64_t M, int64_t N, int64_t K, int64_t whole) {
    if (vnni) q4_1_groups_vnni(weight, xq, xd, xs, y, M, N, K, whole);
    else q4_1_groups_avx2(weight, xq, xd, xs, y, M, N, K, whole);
}

static void q8_0_groups(const uint8_t *weight, const int16_t *xq, const float *xd, float *y, int64_t M,
                        int64_t N, int64_t K, int64_t whole) {
    if (vnni) q8_0_groups_vnni(weight, xq, xd, y, M, N, K, whole);
    else q8_0_groups_avx2(weight, xq, xd, y, M, N, K, whole);
}
#else
static inline void q4_1_rows(const uint8_t *qs, const float *d, const float *m, const int16_t *xq,
                             const float *xd, const float *xs, float *y, int64_t r0,
                             const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    for (int i = 0; i < R; i++) {
        const int64_t r = r0 + i;
        float acc = 0.0f, sm = 0.0f;
        for (int64_t b = 0; b < nb; b++) {
            const int16_t *x = xq + r * K + b * QK;
            const uint8_t *q = qs + b * 16;
            int32_t s = 0;
            for (int j = 0; j < 16; j++) s += (q[j] & 15) * x[j] + (q[j] >> 4) * x[j + 16];
            acc = acc + ((float) s * xd[r * nb + b]) * d[b];
            sm = sm + m[b] * xs[r * nb + b];
        }
        y[i * N] = acc + sm;
    }
}

static inline void q8_0_rows(const int8_t *qs, const float *d, const int16_t *xq,
                             const float *xd, float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    for (int i = 0; i < R; i++) {
        const int64_t r = r0 + i;
        float acc = 0.0f;
        for (int64_t b = 0; b < nb; b++) {
            const int16_t *x = xq + r * K + b * QK;
            int32_t s = 0;
            for (int j = 0; j < QK; j++) s += qs[b * QK + j] * x[j];
            acc = acc + ((float) s * xd[r * nb + b]) * d[b];
        }
        y[i * N] = acc;
    }
}

/* One group of 8 columns (GROUP layout), rows r0..r0+R-1, in the documented order. */
static void group_rows(int q4, const uint8_t *g, const int16_t *xq, const float *xd, const float *xs,
                       float *y, int64_t r0, const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK, bytes = q4 ? 128 : 256, stride = bytes + 32;
    const float *m = (const float *) (g + nb * stride);
    for (int i = 0; i < R; i++) {
        const int64_t r = r0 + i;
        for (int c = 0; c < 8; c++) {
            float acc = 0.0f, low = 0.0f;
            for (int64_t b = 0; b < nb; b++) {
                const int16_t *x = xq + r * K + b * QK;
                const uint8_t *q = g + b * stride;
                const float *d = (const float *) (q + bytes);
                int32_t s = 0;
                for (int j = 0; j < (q4 ? 8 : 16); j++)
                    for (int e = 0; e < 2; e++) {
                        const uint8_t v = q[j * 16 + 2 * c + e];
                        if (q4) s += (v & 15) * x[2 * j + e] + (v >> 4) * x[16 + 2 * j + e];
                        else s += (int8_t) v * x[2 * j + e];
                    }
                acc = acc + ((float) s * xd[r * nb + b]) * d[c];
            }
            if (q4)
                for (int64_t b = 0; b < nb; b++) low = low + m[b * 8 + c] * xs[r * nb + b];
            y[i * N + c] = acc + low;
        }
    }
}
static void q4_1_groups(const uint8_t *weight, const int16_t *xq, const float *xd, const float *xs, float *y,
                        int64_t M, int64_t N, int64_t K, int64_t whole) {
    for (int64_t n = 0; n < whole; n += 8) group_rows(1, weight + n * intdot_q4_1_bytes(K), xq, xd, xs, y + n, 0, M, N, K);
}

static void q8_0_groups(const uint8_t *weight, const int16_t *xq, const float *xd, float *y, int64_t M,
                        int64_t N, int64_t K, int64_t whole) {
    for (int64_t n = 0; n < whole; n += 8) group_rows(0, weight + n * intdot_q8_0_bytes(K), xq, xd, 0, y + n, 0, M, N, K);
}

int intdot_vnni(int on) { (void) on; return 0; }
#endif

/* y (M, N) = x (M, K) times a Q4_1 layer's (N, K) weight, x given quantised: whole groups of 8
 * columns, then the last N % 8 columns one by one; each row's sums as in a one-row pass. */
void intdot_q4_1(const uint8_t *weight, const int16_t *xq, const float *xd, const float *xs,
                 float *y, int64_t M, int64_t N, int64_t K) {
    const int64_t nb = K / QK, size = intdot_q4_1_bytes(K), whole = N - N % 8;
    q4_1_groups(weight, xq, xd, xs, y, M, N, K, whole);
    for (int64_t n = whole; n < N; n++) {
        const uint8_t *col = weight + n * size;
        const float *d = (const float *) (col + K / 2), *m = d + nb;
#define COLUMN_Q4(R) q4_1_rows(col, d, m, xq, xd, xs, y + r0 * N + n, r0, R, N, K)
        TILES(COLUMN_Q4);
    }
}

void intdot_q8_0(const uint8_t *weight, const int16_t *xq, const float *xd,
                 float *y, int64_t M, int64_t N, int64_t K) {
    const int64_t size = intdot_q8_0_bytes(K), whole = N - N % 8;
    q8_0_groups(weight, xq, xd, y, M, N, K, whole);
    for (int64_t n = whole; n < N; n++) {
        const int8_t *col = (const int8_t *) (weight + n * size);
        const float *d = (const float *) (col + K);
#define COLUMN_Q8(R) q8_0_rows(col, d, xq, xd, y + r0 * N + n, r0, R, N, K)
        TILES(COLUMN_Q8);
    }
}
