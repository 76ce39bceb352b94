"""Two edits to the built graph: a row's logits never depend on its pass's width, and the LM
head runs on the rows whose logits are wanted.

ONNX Runtime's `GroupQueryAttention` computes a pass of one query row on another path than a
pass of two or more (measured: the attention output of the same row differs in the last bits,
and after 30 layers the logits by up to 0.9), while every other op of the build (the int4
`MatMulNBits` with int8 activations, the norms, the activations) gives a row the same bits at
any width. So each attention node is fed one row more than the pass has: the last query row
again, at the position after the pass. The causal mask keeps it out of the real rows, its
output row is cut off, and the key and value it writes lie beyond the cache's valid length
(the next pass overwrites them). The rest of the network runs on the pass's own rows, so a
one-token step costs a one-token step plus one more attention row.

A pass of S tokens after L cached positions is therefore fed an attention mask of L + S + 1
(the padded attention's total length; onnx_target.py), and the context has one position less.
The padded graph is a second small file beside the builder's own `model.onnx` (both read the
same weights file): onnxruntime-genai's own generation loop, the bench's yardstick, feeds masks
of L + S and runs the graph as built.

The second edit is transformers' `logits_to_keep`: an input KEEP says how many of the pass's
last rows get logits, and the LM head (a 576 x 49152 int4 product, a sixth of the network's
weights) runs on those alone. Reading a prompt then needs the last row's logits only: measured
here, the prompt's pass costs 14-17 % less (40-100 tokens). A verification pass keeps all its
rows; every row kept is computed as before (the LM head's rows are width-independent).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

# recorded with the build: a change here builds it again
VERSION = "attention fed one row more by Gather, the LM head on the last KEEP rows (onnx_graph.py 4)"
PADDED = 1                                                  # rows the attention sees beyond the pass
FILE = "model_padded.onnx"        # beside the builder's own model.onnx (onnxruntime-genai's loop runs that)
ROWS, WIDE = "pad/rows", "pad/rows_and_last"    # [0 .. S-1] and [0 .. S-1, S-1], made once a pass
KEEP = "logits_rows"                # input, int64 (1,): the logits output holds the last KEEP rows


def adapt(model_path: Path, out_path: Path) -> int:
    """The engine's graph beside the builder's: `pad_attention`, then `keep_last_rows`.
    Returns how many attention nodes were padded."""
    import onnx
    model = onnx.load(str(model_path), load_external_data=False)
    padded = pad_attention(model.graph)
    keep_last_rows(model.graph)
    onnx.save(model, str(out_path))
    return padded


def pad_attention(graph) -> int:
    """Every GroupQueryAttention node of `graph` sees its inputs with the last row repeated, and
    hands on only the pass's own rows. Returns how many attention nodes were padded. Both are one
    Gather per input (measured here: ~6 us a node, where a Slice and a Concat took ~10 and ~8),
    of row indices made once a pass from the width of `input_ids`."""
    graph.initializer.extend(_constants())
    nodes, padded = _row_indices(), 0
    for node in graph.node:
        if node.op_type == "GroupQueryAttention":
            nodes.extend(_padded(node))
            padded += 1
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return padded


def keep_last_rows(graph) -> None:
    """The LM head (the node that makes `logits`) reads the last KEEP rows of its input:
    (1, S, H) -> (1, KEEP, H), one Slice from -KEEP to the end."""
    from onnx import TensorProto, helper, numpy_helper
    head = next(node for node in graph.node if "logits" in node.output)
    graph.input.append(helper.make_tensor_value_info(KEEP, TensorProto.INT64, [1]))
    graph.initializer.extend([numpy_helper.from_array(np.array([np.iinfo(np.int64).max], np.int64), "keep/end"),
                              numpy_helper.from_array(np.array([1], np.int64), "keep/axis")])
    rows = f"{head.input[0]}/last_rows"
    nodes = [helper.make_node("Neg", [KEEP], ["keep/start"], name="keep/Start"),
             helper.make_node("Slice", [head.input[0], "keep/start", "keep/end", "keep/axis"], [rows],
                              name="keep/Rows")]
    head.input[0] = rows
    at = list(graph.node).index(head)
    for node in reversed(nodes):
        graph.node.insert(at, node)


def _constants() -> list:
    from onnx import numpy_helper
    values = {"pad/zero": np.array(0, np.int64), "pad/one": np.array(1, np.int64), "pad/axis0": np.array([0], np.int64)}
    return [numpy_helper.from_array(v, k) for k, v in values.items()]


def _row_indices() -> list:
    """S = input_ids' width; ROWS = [0 .. S-1]; WIDE = ROWS and S-1 once more."""
    from onnx import helper
    return [helper.make_node("Shape", ["input_ids"], ["pad/shape"], name="pad/Shape"),
            helper.make_node("Gather", ["pad/shape", "pad/one"], ["pad/S"], axis=0, name="pad/Width"),
            helper.make_node("Range", ["pad/zero", "pad/S", "pad/one"], [ROWS], name="pad/Rows"),
            helper.make_node("Sub", ["pad/S", "pad/one"], ["pad/last"], name="pad/Last"),
            helper.make_node("Unsqueeze", ["pad/last", "pad/axis0"], ["pad/last1"], name="pad/Last1"),
            helper.make_node("Concat", [ROWS, "pad/last1"], [WIDE], axis=0, name="pad/Wide")]


def _padded(node) -> list:
    """Each of the node's query, key and value inputs (packed: the query alone) gathered at WIDE,
    (1, S, ·) -> (1, S+1, ·); the node on them; its output gathered back at ROWS, S rows."""
    from onnx import helper
    name, added = node.name, []
    for i in range(3):
        if node.input[i]:
            wide = f"{name}/pad/{i}/wide"
            added.append(helper.make_node("Gather", [node.input[i], WIDE], [wide], axis=1, name=f"{name}/pad/{i}"))
            node.input[i] = wide
    output, wide_out = node.output[0], f"{name}/pad/output"
    node.output[0] = wide_out
    cut = helper.make_node("Gather", [wide_out, ROWS], [output], axis=1, name=f"{name}/pad/Cut")
    return added + [node, cut]
