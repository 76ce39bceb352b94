"""A whole Llama decoder layer in one C call (layer.c) for the lean pass of an intdot model.

Why. On SmolLM2 a one-token step made some twenty Python and torch calls per layer (six
products, two norms, the rotary embedding, attention, the cache, the activation, the residual
sums): more time than the products themselves. layer.c chains the very functions those modules
call (kernel.c, norm.c, rope.c, attend.c, act.c) on the same numbers in the same order, so the
lean pass still equals the model's own forward bit for bit (tests/test_lean.py, test_intdot.py).

It applies to a layer whose linear layers are bias-free intdot layers (q, k, v of one kind and
gate, up of one kind, so each group is one stacked product), whose norms and activation run in
C, with hidden, intermediate and attention widths in whole blocks of 32; `plan` says None
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


class Plan:
    """A layer's C description and what it was made from: `still()` checks in a few
    microseconds that nothing it points at has changed (a weight replaced or written, records
    remade, a norm or the activation swapped back), so a pass need not rebuild it."""

    def __init__(self, layer: nn.Module, described: Layer, parts: tuple):
        self.described, self.parts = described, parts                  # parts: keeps the records alive
        attn, mlp = layer.self_attn, layer.mlp
        self.empty = torch.empty(1, described.kv_heads, 0, described.dim, dtype=torch.float32)  # (1, Hkv, 0, D)
        linears = (attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj, mlp.gate_proj, mlp.up_proj, mlp.down_proj)
        self.linears = [(m, m.__dict__.get("_records"), *_stamp(m)) for m in linears]
        self.others = [(m, type(m), *_stamp(m)) for m in (layer.input_layernorm, layer.post_attention_layernorm)]
        self.act = (mlp, mlp.act_fn, type(mlp.act_fn))

    def still(self) -> bool:
        return (all(m.__dict__.get("_records") is r and _stamp(m) == (w, v, at) for m, r, w, v, at in self.linears)
                and all(type(m) is t and _stamp(m) == (w, v, at) for m, t, w, v, at in self.others)
                and self.act[0].act_fn is self.act[1] and type(self.act[1]) is self.act[2])


def _stamp(module: nn.Module) -> tuple:
    w = module._parameters["weight"]
    return w, w._version, w.data_ptr()


def plan(layer: nn.Module, qkv: torch.Tensor | None, gate_up: torch.Tensor | None) -> Plan | None:
    """The layer's Plan, or None where it does not fit layer.c. qkv and gate_up: the stacked
    records of q, k, v and of gate, up (lean.py keeps them)."""
    parts = _parts(layer, qkv, gate_up)
    return None if parts is None else Plan(layer, _described(layer, parts), parts)


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
        values: torch.Tensor, n: int) -> None:
    """x (1, T, H) float32 contiguous <- the layer's output, in place; cos, sin (1, T, D)
    contiguous; keys / values: the cache rooms (1, Hkv, cap, D), rows n .. n+T-1 written here."""
    code = library().intdot_layer(ctypes.byref(described), x.data_ptr(), x.shape[1], cos.data_ptr(), sin.data_ptr(),
                                  keys.data_ptr(), values.data_ptr(), keys.shape[-2], n)
    if code != 0:
        raise MemoryError("intdot: no memory for a layer's scratch")
