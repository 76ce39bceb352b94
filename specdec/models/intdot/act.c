/* SiLU, x / (1 + exp(-x)), element by element in one fixed order: the activation of an intdot
 * model's MLPs, whoever calls it (act.py for the modules, layer.c for the lean pass), so both paths
 * give the same bits (torch's own silu rounds differently in the last bit). */
#include <math.h>
#include <stdint.h>

void intdot_silu(const float *x, float *y, int64_t n) {
    for (int64_t j = 0; j < n; j++) y[j] = x[j] / (1.0f + expf(-x[j]));
}
