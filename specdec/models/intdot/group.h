/* The vector kernels of whole groups of 8 columns (kernel.c's GROUP layout), included by kernel.c
 * once per instruction set: GROUPS(name) names this copy's functions, TARGET its instruction set,
 * PAIR_DOT(s, w, x) adds to the 8 int32 lanes s the pair products of the 16-bit lanes w and x
 * (vpmaddwd + vpaddd with AVX2; one vpdpwssd with AVX-512 VNNI). Integer sums are exact in any
 * order, so every copy computes the same bits, and a row's result never depends on the others. */
#define INLINE static inline __attribute__((always_inline, target(TARGET)))

/* Rows r0..r0+R-1 of one group of 8 columns (GROUP layout); y points at row r0's first column. */
#define PAIR(i, at) _mm256_castps_si256(_mm256_broadcast_ss((const float *) (xq + (r0 + (i)) * K + b * QK + (at))))
/* The empty asm pins each row's sum in its register: without it GCC regroups the integer additions
 * (exact in any order) into a tree that spills every product to the stack (1.2-1.3x slower at 2 rows). */
#define MADD(i, w, at) do { s##i = PAIR_DOT(s##i, w, PAIR(i, at)); __asm__("" : "+x"(s##i)); } while (0)
#define MADD_T(i, w, at) do { t##i = PAIR_DOT(t##i, w, PAIR(i, at)); __asm__("" : "+x"(t##i)); } while (0)
/* A block's high halves go to a second sum where the rows are few, so that each sum's chain of
 * additions is half as long (one or two rows are otherwise bound by that chain, not by the
 * multiply-adds); the two integer sums are added at the block's end: the same exact integer. */
#define EACH_HI(w, at) do { if (R > 2) EACH(w, at); else { MADD_T(0, w, at); if (R > 1) MADD_T(1, w, at); } } while (0)
#define EACH(w, at) do { MADD(0, w, at); if (R > 1) MADD(1, w, at); if (R > 2) MADD(2, w, at); \
        if (R > 3) MADD(3, w, at); if (R > 4) MADD(4, w, at); } while (0)
#define SCALED(i) a##i = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s##i), \
        _mm256_broadcast_ss(xd + (r0 + (i)) * nb + b)), dv, a##i)
#define ALL_SCALED() do { SCALED(0); if (R > 1) SCALED(1); if (R > 2) SCALED(2); if (R > 3) SCALED(3); \
        if (R > 4) SCALED(4); } while (0)

/* y = acc + the Q4_1 term sum_b m[b] * xs[b], each row's in block order; the rows' sums advance
 * side by side (four independent chains of fused multiply-adds, not one after another). */
INLINE void GROUPS(group_out)(const __m256 *acc, const float *m, const float *xs,
        float *y, int64_t r0, const int R, int64_t N, int64_t nb) {
    __m256 low[GTILE] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                         _mm256_setzero_ps()};
    if (m)
        for (int64_t b = 0; b < nb; b++) {
            const __m256 mb = _mm256_loadu_ps(m + b * 8);
            for (int i = 0; i < R; i++)
                low[i] = _mm256_fmadd_ps(mb, _mm256_broadcast_ss(xs + (r0 + i) * nb + b), low[i]);
        }
    for (int i = 0; i < R; i++) _mm256_storeu_ps(y + i * N, _mm256_add_ps(acc[i], low[i]));
}

INLINE void GROUPS(q4_1_group)(
        const uint8_t *g, const int16_t *xq, const float *xd, const float *xs, float *y, int64_t r0,
        const int R, int64_t N, int64_t K) {
    const int64_t nb = K / QK;
    const float *m = (const float *) (g + nb * 160);
    const __m256i low4 = _mm256_set1_epi16(0x0F);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0;
    for (int64_t b = 0; b < nb; b++) {
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, t0 = s0, t1 = s0;
        for (int j = 0; j < 8; j++) {
            const __m256i bytes = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *) (g + b * 160 + j * 16)));
            const __m256i lo = _mm256_and_si256(bytes, low4), hi = _mm256_srli_epi16(bytes, 4);
            EACH(lo, 2 * j);
            EACH_HI(hi, 16 + 2 * j);
        }
        if (R <= 2) {
            s0 = _mm256_add_epi32(s0, t0);
            s1 = _mm256_add_epi32(s1, t1);
        }
        const __m256 dv = _mm256_loadu_ps((const float *) (g + b * 160 + 128));
        ALL_SCALED();
    }
    const __m256 acc[GTILE] = {a0, a1, a2, a3, a4};
    GROUPS(group_out)(acc, m, xs, y, r0, R, N, nb);
}

INLINE void GROUPS(q8_0_group)(
        const uint8_t *g, const int16_t *xq, const float *xd, float *y, int64_t r0, const int R, int64_t N,
        int64_t K) {
    const int64_t nb = K / QK;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0;
    for (int64_t b = 0; b < nb; b++) {
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, s4 = s0;
        for (int p = 0; p < 16; p++) {
            const __m256i w = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (g + b * 288 + p * 16)));
            EACH(w, 2 * p);
        }
        const __m256 dv = _mm256_loadu_ps((const float *) (g + b * 288 + 256));
        ALL_SCALED();
    }
    const __m256 acc[GTILE] = {a0, a1, a2, a3, a4};
    GROUPS(group_out)(acc, 0, 0, y, r0, R, N, nb);
}

/* y (M, N) for the first `whole` columns (whole groups), rows in tiles of TILE. */
static __attribute__((target(TARGET))) void GROUPS(q4_1_groups)(
        const uint8_t *weight, const int16_t *xq, const float *xd, const float *xs, float *y, int64_t M,
        int64_t N, int64_t K, int64_t whole) {
    const int64_t size = intdot_q4_1_bytes(K);
    for (int64_t n = 0; n < whole; n += 8) {
        const uint8_t *g = weight + n * size;
#define GROUP_Q4(R) GROUPS(q4_1_group)(g, xq, xd, xs, y + r0 * N + n, r0, R, N, K)
        GTILES(GROUP_Q4);
#undef GROUP_Q4
    }
}

static __attribute__((target(TARGET))) void GROUPS(q8_0_groups)(
        const uint8_t *weight, const int16_t *xq, const float *xd, float *y, int64_t M, int64_t N, int64_t K,
        int64_t whole) {
    const int64_t size = intdot_q8_0_bytes(K);
    for (int64_t n = 0; n < whole; n += 8) {
        const uint8_t *g = weight + n * size;
#define GROUP_Q8(R) GROUPS(q8_0_group)(g, xq, xd, y + r0 * N + n, r0, R, N, K)
        GTILES(GROUP_Q8);
#undef GROUP_Q8
    }
}

#undef INLINE
#undef PAIR
#undef MADD
#undef EACH
#undef EACH_HI
#undef MADD_T
#undef SCALED
#undef ALL_SCALED
