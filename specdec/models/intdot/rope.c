/* Rotary position embedding, element by element as transformers writes it:
 * out = x * cos + rotate_half(x) * sin, rotate_half(x) = (-x[D/2:], x[:D/2]).
 * Two products and one sum per element, each rounded once (-ffp-contract=off: never fused), so
 * the bits equal torch's own operations; one call rotates every row and head of q and k. */
#include <stdint.h>

/* Row t, head h of x at x + t * x_row + h * D -> out + t * out_row + h * out_head; cos, sin (T, D). */
void intdot_rotate(const float *x, int64_t x_row, float *out, int64_t out_row, int64_t out_head,
                   const float *cos, const float *sin, int64_t T, int64_t H, int64_t D) {
    const int64_t half = D / 2;
    for (int64_t t = 0; t < T; t++) {
        const float *c = cos + t * D, *s = sin + t * D;
        for (int64_t h = 0; h < H; h++) {
            const float *a = x + t * x_row + h * D;
            float *o = out + t * out_row + h * out_head;
            for (int64_t j = 0; j < half; j++) o[j] = a[j] * c[j] + (-a[j + half]) * s[j];
            for (int64_t j = half; j < D; j++) o[j] = a[j] * c[j] + a[j - half] * s[j];
        }
    }
}

/* q (T, Hq, D), k (T, Hk, D), cos and sin (T, D), all contiguous -> qo, ko of the same shapes. */
void intdot_rope(const float *q, const float *k, float *qo, float *ko, const float *cos, const float *sin,
                 int64_t T, int64_t Hq, int64_t Hk, int64_t D) {
    intdot_rotate(q, Hq * D, qo, Hq * D, D, cos, sin, T, Hq, D);
    intdot_rotate(k, Hk * D, ko, Hk * D, D, cos, sin, T, Hk, D);
}
