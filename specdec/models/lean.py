"""A Llama forward pass without the framework's per-call layers: the same numbers, less time.

Why. On this project's CPUs a small model's step is made of hundreds of small operations, and
transformers wraps each layer, attention and projection call in Python (keyword merging, output
capturing, deprecation shims, module hooks). The engine's own passes (runtime.forward, one
sequence) therefore run the same modules' own `forward` methods in the same order, on the same
tensors, without those wrappers. Measured on a 2-core Intel Xeon (AVX-512, 1 thread, 64 cached
positions, fastest of 21): SmolLM2-135M in int4, one token 32.2 -> 30.4 ms and five tokens
59.2 -> 55.4 ms; the stdlib target 7.2 -> 6.6 ms, a 64-token prefill 21.0 -> 17.8 ms.

- embeddings, rotary tables, norms, the activation and every linear layer: the modules' own
  `forward`; the rotary helper and the attention function: the ones transformers would call;
- the mask: none where the model attends row by row (attention.py: its causal rows then see
  the same prefixes the mask would give); otherwise transformers' own `create_causal_mask`;
- in int4, q, k and v are one product and gate and up another (one kernel call each instead
  of three and two): the kernel lays the weights out in blocks of output columns and computes
  each block on its own, so layers whose widths are whole blocks stack without changing a
  bit. The block width depends on the CPU's instruction set (torch packs for AVX-512 and AVX2
  differently), so nothing assumes it: the model's first pass checks (stacked and separate
  results must be equal bit for bit, else the layers keep separate calls), and `STACK = False`
  switches stacking off (tests/test_lean.py forces both branches). The layers keep views of
  the stacked weights, so nothing is held twice. In intdot (intdot/linear.py) every output
  column is its own record and sum, so stacked layers are equal by construction (still
  tested), and the layers keep views of the stack too;
- in intdot, where a layer's products, norms and activation all run in C, the whole layer is one
  C call (intdot/layer.py), made of the functions those modules call: the same bits again.

A batch of requests runs the same modules under the batch's mask (`forward_rows`); one request
alone in a batch, whose cache then has no holes, takes the single-sequence pass itself
(engine/batch.py). Everything else — a tree's mask, transformers' generate(), models of
other architectures or spread over devices by accelerate's hooks — goes through the model's
own forward. tests/test_lean.py checks the logits, the cache and the features are equal bit
for bit to that forward in every precision.
"""
from __future__ import annotations

import threading
import weakref

import torch
from torch import nn

from specdec.models import attention, rooms
from specdec.models.intdot import layer as c_layer
from specdec.models.intdot.linear import IntDotLinear, stacked
from specdec.models.intdot.linear import product as intdot_product
from specdec.models.intdot.rope import fits as rope_fits
from specdec.models.intdot.rope import rotated as rope_in_c
from specdec.models.precision import GROUP, Int4Linear

_collect = threading.local()          # id(model) -> list of final hidden states, per thread
# what the lean pass keeps per object, beside it rather than in it (weak: it goes with the object)
_FITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # model -> fits(model)'s static part
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # decoder layer -> its C call's plan
_STACKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # attention / MLP -> its intdot stack
_FUSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # attention / MLP -> its int4 stack
_building = threading.Lock()         # one thread builds a shared model's stacked weights
STACK = True                          # stack int4 layers into one product where it is bit-equal
QKV, GATE_UP = ("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj")


def fits(model) -> bool:
    """True when `model` is a plain Llama on one device that nobody hooks (the lean pass applies;
    final_hidden_states' own hook on the body is served by `collect` instead)."""
    plain = _FITS.get(model)
    if plain is None:
        plain = _FITS[model] = _llama(model) and not getattr(model, "hf_device_map", None) and not _accelerated(model)
    # torch has no public "is this module hooked?": its own dicts, checked on torch 2.13.0
    return plain and not (model._forward_hooks or model._forward_pre_hooks)


def _llama(model) -> bool:
    try:
        from transformers.models.llama import modeling_llama as llama
    except ImportError:                                        # pragma: no cover - transformers is pinned
        return False
    body = getattr(model, "model", None)
    return (type(model) is llama.LlamaForCausalLM and type(body) is llama.LlamaModel
            and all(type(layer) is llama.LlamaDecoderLayer and type(layer.self_attn) is llama.LlamaAttention
                    and type(layer.mlp) is llama.LlamaMLP for layer in body.layers))


def _accelerated(model) -> bool:
    # accelerate's mark of a hooked module, as accelerate.hooks itself tests it (checked on 1.15.0)
    return any(hasattr(m, "_hf_hook") for m in model.modules())


def collecting(model) -> list | None:
    return getattr(_collect, "lists", {}).get(id(model))


def collect(model, seen) -> object:
    """Make `seen` (None: nothing) receive this thread's final hidden states of `model`'s lean
    passes; returns what received them before (to restore after a nested block)."""
    if not hasattr(_collect, "lists"):
        _collect.lists = {}
    lists = _collect.lists
    before = lists.pop(id(model), None)
    if seen is not None:
        lists[id(model)] = seen
    return before


@torch.no_grad()
def forward(model, ids: torch.Tensor, cache, keep: int = 0) -> torch.Tensor:
    """ids (1, T) after what `cache` holds -> logits (1, T', V) for the last T' = `keep`
    positions (0 = all), exactly as model(input_ids=ids, cache=cache, logits_to_keep=keep)."""
    x = hidden(model, model.model.embed_tokens.forward(ids), cache)
    seen = collecting(model)
    if seen is not None:
        seen.append(x)
    return model.lm_head.forward(x[:, -keep:] if keep else x)


@torch.no_grad()
def forward_rows(model, ids: torch.Tensor, cache, positions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """A batch of requests (engine/batch.py): ids (B, R) at `positions` (B, R), each row seeing
    the cache slots and new tokens `mask` (B, 1, R, T + R) shows it -> logits (B, R, V), as
    model(input_ids=ids, attention_mask=mask, position_ids=positions, cache=cache) computes them.
    For a model whose attention takes a boolean mask as it is (`batch_fits`)."""
    x = hidden(model, model.model.embed_tokens.forward(ids), cache, (positions, mask))
    seen = collecting(model)
    if seen is not None:
        seen.append(x)
    return model.lm_head.forward(x)


def batch_fits(model) -> bool:
    """The lean pass takes a batch's mask: `fits`, and attention that reads a boolean mask as
    it is (row by row, attention.py, or torch's sdpa; eager attention adds the mask as numbers)."""
    return fits(model) and model.config._attn_implementation in (attention.NAME, "sdpa")


@torch.no_grad()
def hidden(model, x: torch.Tensor, cache, batch: tuple | None = None) -> torch.Tensor:
    """Embeddings x (1, T, H) after what `cache` holds -> the body's final hidden states
    (1, T, H), exactly as model.model(inputs_embeds=x, cache=cache).last_hidden_state.
    `batch`: (positions (B, T), mask (B, 1, T, T_cache + T)) of a batch's pass (forward_rows)."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
    body = model.model
    if batch is None:
        positions = (torch.arange(x.shape[1], device=x.device) + cache.get_seq_length())[None]
        mask = _mask(model, x, cache, positions)
    else:
        positions, mask = batch
    cos, sin = body.rotary_emb(x, position_ids=positions)
    in_c = mask is None and x.shape[0] == 1 and x.dtype == cos.dtype == torch.float32 and cos.shape[0] == 1
    if in_c:                                    # the one-call layers write x in place: our own copy
        x, cos, sin = x.contiguous().clone(), cos.contiguous(), sin.contiguous()
    for i, layer in enumerate(body.layers):
        if in_c and _in_c(layer, x, cos, sin, cache, i):
            continue
        x = x + _attend(layer.self_attn, layer.input_layernorm.forward(x), cos, sin, mask, cache, i,
                        apply_rotary_pos_emb)
        x = x + _mlp(layer.mlp, layer.post_attention_layernorm.forward(x))
    return body.norm.forward(x)


def _in_c(layer, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, cache, index: int) -> bool:
    """The whole layer in one C call on x (1, T, H) in place (intdot/layer.py: the same functions
    the modules call, so the same bits); False where it does not apply (then the modules run)."""
    plan = _PLANS.get(layer)
    if plan is None and type(layer.mlp.down_proj) is not IntDotLinear:       # bfloat16, int4: the modules
        return False
    if plan is None or not plan.still():
        attn = layer.self_attn
        qkv, gate_up = _intdot_stack(attn, QKV), _intdot_stack(layer.mlp, GATE_UP)
        plan = _PLANS[layer] = c_layer.plan(layer, qkv and qkv[0], gate_up and gate_up[0])
        if plan is None:
            return False
    room = rooms.reserve(cache, index, x.shape[1], plan.empty)
    if room is None:
        return False
    c_layer.run(plan.described, x, cos, sin, *room)
    return True


def _mask(model, x, cache, positions):
    # the attention a model runs: transformers' own field, read as its models read it (5.24.0)
    if model.config._attn_implementation == attention.NAME:
        return None                                                           # causal rows (attention.py)
    from transformers.masking_utils import create_causal_mask
    return create_causal_mask(config=model.config, inputs_embeds=x, attention_mask=None, cache=cache,
                              position_ids=positions)


def _attend(attn, h, cos, sin, mask, cache, index: int, rotate) -> torch.Tensor:
    """LlamaAttention.forward: h (1, T, H) -> (1, T, H)."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.llama.modeling_llama import eager_attention_forward
    shape = (*h.shape[:-1], -1, attn.head_dim)
    q, k, v = _products(attn, QKV, h)
    q, k = q.view(shape), k.view(shape)                                                     # (1, T, heads, d)
    if rope_fits(q, k, cos, sin):                          # one C call, the same bits (intdot/rope.py)
        q, k = rope_in_c(q, k, cos, sin)
    else:
        q, k = rotate(q.transpose(1, 2), k.transpose(1, 2), cos, sin)                       # (1, heads, T, d)
    k, v = rooms.append(cache, index, k, v.view(shape).transpose(1, 2))
    function = ALL_ATTENTION_FUNCTIONS.get_interface(attn.config._attn_implementation, eager_attention_forward)
    out, _ = function(attn, q, k, v, mask, dropout=0.0, scaling=attn.scaling)  # (1, T, heads, d)
    return attn.o_proj.forward(out.reshape(*h.shape[:-1], -1).contiguous())


def _mlp(mlp, h) -> torch.Tensor:
    """LlamaMLP.forward: down(act(gate(h)) * up(h))."""
    gate, up = _products(mlp, GATE_UP, h)
    return mlp.down_proj.forward(mlp.act_fn(gate) * up)


def _products(owner: nn.Module, names: tuple[str, ...], h: torch.Tensor) -> list[torch.Tensor]:
    """owner.<name>(h) for each name: one product over the stacked weights where the layers
    allow it (int4: checked equal; intdot: equal by construction), else one call per layer."""
    together = _intdot_stack(owner, names)
    if together is not None:
        records, sizes = together
        return list(intdot_product(getattr(owner, names[0]).kind, records, h).split(sizes, -1))
    fused = _fused(owner, names, h)
    if not fused:
        return [getattr(owner, name).forward(h) for name in names]
    weight, offsets, sizes = fused
    flat = h.reshape(-1, h.shape[-1]).to(torch.bfloat16)                                    # (rows, K)
    out = torch.ops.aten._weight_int4pack_mm_for_cpu(flat, weight, GROUP, offsets).float()   # (rows, ΣN)
    return [part.reshape(*h.shape[:-1], -1) for part in out.split(sizes, -1)]


def _intdot_stack(owner: nn.Module, names: tuple[str, ...]):
    """(records, sizes) of the layers' stacked records, built on first use (each layer then
    holds a view of the stack); None when they are not all bias-free intdot layers of one kind
    and width."""
    layers = [getattr(owner, name) for name in names]
    if not all(type(m) is IntDotLinear for m in layers):
        return None
    saved = _STACKS.get(owner)
    if saved is None or not all(m.records() is part for m, part in zip(layers, saved[2])):
        with _building:
            records, start = stacked(layers), 0
            for m in layers if records is not None else ():
                m._records, start = records[start:start + m.out_features], start + m.out_features
            saved = (records, [m.out_features for m in layers], [m.records() for m in layers])
            _STACKS[owner] = saved
    return None if saved[0] is None else saved[:2]


def _fused(owner: nn.Module, names: tuple[str, ...], h: torch.Tensor):
    """(weight, offsets, sizes) of the stacked int4 layers, built on first use; falsy when the
    layers are not all bias-free int4 of one input size, or stacking would change a bit."""
    layers = [getattr(owner, name) for name in names]
    if not all(type(m) is Int4Linear and m.bias is None for m in layers):
        return None
    saved = _saved(owner, layers)
    if saved is not None:
        return saved
    with _building:                     # a shared model: two sessions' first passes may race here
        saved = _saved(owner, layers)
        return saved if saved is not None else _build(owner, layers, h)


def _saved(owner: nn.Module, layers: list):
    """The stack built before for these layers' current weights, if any (None: build it)."""
    parts = [m.packed() for m in layers]
    saved = _FUSED.get(owner)
    if saved is not None and all(a is b for a, b in zip(saved[3], parts)):
        return saved[:3] if saved[0] is not None else ()
    return None


def _build(owner: nn.Module, layers: list, h: torch.Tensor):
    parts = [m.packed() for m in layers]
    fused = _stack(layers, parts, h) if STACK and len({m.in_features for m in layers}) == 1 else None
    parts = [m.packed() for m in layers]                         # views of the stack, if stacked
    _FUSED[owner] = (*fused, parts) if fused else (None, None, None, parts)
    return fused


def stacked_equal(products, layers, h) -> bool:
    """Each layer's slice of the stacked product equals its own product, bit for bit."""
    return all(torch.equal(a, m.forward(h).reshape(a.shape)) for a, m in zip(products, layers))


def _stack(layers, parts, h):
    """Stack the packed weights (N rows each) and their offsets; every layer then multiplies
    by a view of the stack. None when the stacked product differs from the separate ones."""
    weight = torch.cat([w for w, _ in parts])                                   # (ΣN, K/2)
    offsets = torch.cat([o for _, o in parts], dim=1).contiguous()              # (K/G, ΣN, 2)
    sizes = [m.out_features for m in layers]
    flat = h.reshape(-1, h.shape[-1]).to(torch.bfloat16)
    together = torch.ops.aten._weight_int4pack_mm_for_cpu(flat, weight, GROUP, offsets).float()
    if not stacked_equal(together.split(sizes, -1), layers, h):
        return None
    start = 0
    for m, n in zip(layers, sizes):
        m._int4 = (weight[start:start + n], m._int4[1])                        # a view: held once
        start += n
    return weight, offsets, sizes
