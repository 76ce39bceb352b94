"""A whole Llama decoder layer in one C call (layer.c) for the lean pass of an intdot model.

Why. On SmolLM2 a one-token step made some twenty Python and torch calls per layer (six
products, two norms, the rotary embedding, attention, the cache, the activation, the residual
sums): more time than the products themselves. layer.c chains the very functions those modules
call (kernel.c, norm.c, rope.c, attend.c, act.c) on the same numbers in the same order, so the
lean pass still equals the model's own forward bit for bit (tests/test_lean.py, test_intdot.py).

It applies to a layer whose linear layers are bias-free intdot layers (q, k, v of one kind and
gate, up of one kind, so each group is one stacked product), whose norms and activation run in
C, with hidden, intermediate and attention widths in whole blocks of 32; `spec` says None
otherwise and the lean pass runs the modules one by one.
"""
from __future__ import annotations

import ctypes

import torch
from torch import nn

from specdec.models.intdot import QK, act, library, norm
from specdec.models.intdot.linear import IntDotLinear

KIND = {"q4_1": 0, "q8_0": 1}
_ptr, _i64, _f32, _i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_int32


class Layer(ctypes.Structure):
    """layer.c's intdot_layer_t."""
    _fields_ = [("hidden", _i64), ("inter", _i64), ("heads", _i64), ("kv_heads", _i64), ("dim", _i64),
                ("norm_in", _ptr), ("norm_post", _ptr), ("qkv", _ptr), ("o", _ptr), ("gate_up", _ptr),
                ("down", _ptr), ("kind_qkv", _i32), ("kind_o", _i32), ("kind_gate_up", _i32),
                ("kind_down", _i32), ("eps_in", _f32), ("eps_post", _f32), ("scaling", _f32)]


def spec(layer: nn.Module, qkv: torch.Tensor | None, gate_up: torch.Tensor | None) -> Layer | None:
    """The C description of `layer` (kept while its records stay the same), or None. qkv and
    gate_up: the stacked records of q, k, v and of gate, up (lean.py keeps them)."""
    saved = layer.__dict__.get("_intdot_layer")
    parts = _parts(layer, qkv, gate_up)
    if parts is None:
        return None
    if saved is None or not all(a is b for a, b in zip(saved[1], parts)):
        saved = (_described(layer, parts), parts)
        layer.__dict__["_intdot_layer"] = saved
    return saved[0]


def _linear(m) -> bool:
    return type(m) is IntDotLinear and m.bias is None and m.in_features % QK == 0


def _parts(layer, qkv, gate_up) -> tuple | None:
    """(qkv, o, gate_up, down) records, or None where the layer does not fit layer.c."""
    attn, mlp = layer.self_attn, layer.mlp
    if qkv is None or gate_up is None or not (_linear(attn.o_proj) and _linear(mlp.down_proj)):
        return None
    if not act.in_c(mlp.act_fn) or not all(norm.in_c(n) for n in (layer.input_layernorm,
                                                                    layer.post_attention_layernorm)):
        return None
    if not all(m.in_features % QK == 0 for m in (attn.q_proj, mlp.gate_proj)):
        return None
    return qkv, attn.o_proj.records(), gate_up, mlp.down_proj.records()


def _described(layer, parts) -> Layer:
    attn, mlp = layer.self_attn, layer.mlp
    kinds = [KIND[g.kind] for g in (attn.q_proj, attn.o_proj, mlp.gate_proj, mlp.down_proj)]
    return Layer(mlp.gate_proj.in_features, mlp.gate_proj.out_features, attn.config.num_attention_heads,
                 attn.config.num_key_value_heads, attn.head_dim, layer.input_layernorm.weight.data_ptr(),
                 layer.post_attention_layernorm.weight.data_ptr(), *(p.data_ptr() for p in parts), *kinds,
                 layer.input_layernorm.variance_epsilon, layer.post_attention_layernorm.variance_epsilon,
                 attn.scaling)


def run(described: Layer, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, keys: torch.Tensor,
        values: torch.Tensor, n: int) -> torch.Tensor:
    """x (1, T, H) float32 -> the layer's output (a new tensor); cos, sin (1, T, D) contiguous;
    keys / values: the cache rooms (1, Hkv, cap, D), rows n .. n+T-1 written here."""
    out = x.contiguous().clone()
    code = library().intdot_layer(ctypes.byref(described), out.data_ptr(), x.shape[1], cos.data_ptr(),
                                  sin.data_ptr(), keys.data_ptr(), values.data_ptr(), keys.shape[-2], n)
    if code != 0:
        raise MemoryError("intdot: no memory for a layer's scratch")
    return out
