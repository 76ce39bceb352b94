/* One Llama decoder layer in one call, made of the same functions the modules call one by one
 * (kernel.c's products, norm.c, rope.c, attend.c, act.c): the lean pass then computes, bit for
 * bit, what the model's own forward computes through its modules, without some twenty Python and
 * torch calls per layer (on SmolLM2 those cost more than the products themselves).
 *
 * x (T, H) <- x + attention(norm(x)); x <- x + mlp(norm(x)), for one sequence whose cache holds n
 * positions: the layer's new keys and values are written at rows n .. n+T-1 of its cache rooms
 * (Hkv, cap, D), and query row i sees the first n + i + 1 keys (causal), as attention.py's rows do.
 * Every step keeps its module's fixed order: a row's result never depends on the rows beside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void intdot_quantise(const float *x, int16_t *xq, float *xd, float *xs, int64_t M, int64_t K);
void intdot_q4_1(const uint8_t *weight, const int16_t *xq, const float *xd, const float *xs,
                 float *y, int64_t M, int64_t N, int64_t K);
void intdot_q8_0(const uint8_t *weight, const int16_t *xq, const float *xd,
                 float *y, int64_t M, int64_t N, int64_t K);
void intdot_rmsnorm(const float *x, const float *w, float *y, int64_t M, int64_t K, float eps);
void intdot_rotate(const float *x, int64_t x_row, float *out, int64_t out_row, int64_t out_head,
                   const float *cos, const float *sin, int64_t T, int64_t H, int64_t D);
void intdot_attend(const float *q, int64_t q_head, int64_t q_row, const float *k, int64_t k_head,
                   const float *v, int64_t v_head, int64_t H, int64_t G, int64_t T, int64_t D,
                   const int64_t *counts, const int64_t *offsets, const int64_t *index, float scale,
                   float *out, float *scratch);
void intdot_silu(const float *x, float *y, int64_t n);

/* A layer's weights and sizes (layer.py fills it; kinds: 0 = Q4_1 records, 1 = Q8_0). */
typedef struct {
    int64_t hidden, inter, heads, kv_heads, dim;
    const float *norm_in, *norm_post;
    const uint8_t *qkv, *o, *gate_up, *down;
    int32_t kind_qkv, kind_o, kind_gate_up, kind_down;
    float eps_in, eps_post, scaling;
} intdot_layer_t;

/* Scratch for the activations of one product's input. */
typedef struct { int16_t *xq; float *xd, *xs; } quantised_t;

/* y (M, N) = x (M, K) times a layer's records, as IntDotLinear.forward computes it. */
static void product(int32_t kind, const uint8_t *w, const float *x, float *y, int64_t M, int64_t N,
                    int64_t K, quantised_t s) {
    intdot_quantise(x, s.xq, s.xd, s.xs, M, K);
    if (kind == 0) intdot_q4_1(w, s.xq, s.xd, s.xs, y, M, N, K);
    else intdot_q8_0(w, s.xq, s.xd, y, M, N, K);
}

static void add(float *x, const float *y, int64_t n) {
    for (int64_t j = 0; j < n; j++) x[j] = x[j] + y[j];
}

/* Returns 0, or -1 when its scratch could not be allocated (nothing was written then). */
int intdot_layer(const intdot_layer_t *L, float *x, int64_t T, const float *cos, const float *sin,
                 float *keys, float *values, int64_t cap, int64_t n) {
    const int64_t H = L->hidden, I = L->inter, D = L->dim, Hq = L->heads, Hk = L->kv_heads;
    const int64_t wide = (Hq + 2 * Hk) * D, widest = I > H ? (I > Hq * D ? I : Hq * D) : (H > Hq * D ? H : Hq * D);
    const int64_t floats = T * (H + wide + 2 * Hq * D + 2 * I + I) + 2 * T * (widest / 32) + n + T;
    float *block = malloc(sizeof(float) * floats + sizeof(int16_t) * T * widest + sizeof(int64_t) * T);
    if (!block) return -1;
    float *h = block, *qkv = h + T * H, *q = qkv + T * wide, *att = q + T * Hq * D, *gu = att + T * Hq * D;
    float *act = gu + T * 2 * I, *xd = act + T * I, *xs = xd + T * (widest / 32), *scratch = xs + T * (widest / 32);
    int16_t *xq = (int16_t *) (scratch + n + T);
    int64_t *counts = (int64_t *) (xq + T * widest);
    const quantised_t s = {xq, xd, xs};

    intdot_rmsnorm(x, L->norm_in, h, T, H, L->eps_in);
    product(L->kind_qkv, L->qkv, h, qkv, T, wide, H, s);                          /* (T, q | k | v) */
    intdot_rotate(qkv, wide, q, Hq * D, D, cos, sin, T, Hq, D);                    /* (T, Hq, D) */
    intdot_rotate(qkv + Hq * D, wide, keys + n * D, D, cap * D, cos, sin, T, Hk, D);
    for (int64_t t = 0; t < T; t++)
        for (int64_t g = 0; g < Hk; g++)
            memcpy(values + g * cap * D + (n + t) * D, qkv + t * wide + (Hq + Hk + g) * D, sizeof(float) * D);
    for (int64_t i = 0; i < T; i++) counts[i] = n + i + 1;
    intdot_attend(q, D, Hq * D, keys, cap * D, values, cap * D, Hq, Hq / Hk, T, D, counts, 0, 0, L->scaling,
                  att, scratch);                                                   /* (T, Hq, D) */
    product(L->kind_o, L->o, att, h, T, H, Hq * D, s);
    add(x, h, T * H);

    intdot_rmsnorm(x, L->norm_post, h, T, H, L->eps_post);
    product(L->kind_gate_up, L->gate_up, h, gu, T, 2 * I, H, s);                   /* (T, gate | up) */
    for (int64_t t = 0; t < T; t++) {
        float *a = act + t * I;
        const float *up = gu + t * 2 * I + I;
        intdot_silu(gu + t * 2 * I, a, I);
        for (int64_t j = 0; j < I; j++) a[j] = a[j] * up[j];
    }
    product(L->kind_down, L->down, act, h, T, H, I, s);
    add(x, h, T * H);
    free(block);
    return 0;
}
