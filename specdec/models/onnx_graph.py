"""One edit to the built graph, so that a row's logits never depend on its pass's width.

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
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

# recorded with the build: a change here builds it again
VERSION = "attention fed one row more, in model_padded.onnx (onnx_graph.py 2)"
PADDED = 1                                                  # rows the attention sees beyond the pass
FILE = "model_padded.onnx"        # beside the builder's own model.onnx (onnxruntime-genai's loop runs that)


def pad_attention(model_path: Path, out_path: Path) -> int:
    """Write `model_path`'s graph to `out_path` (beside it: the weights stay in their shared
    external file) so that every GroupQueryAttention node sees its inputs with the last row
    repeated, and hands on only the pass's own rows. Returns how many attention nodes were padded."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(model_path), load_external_data=False)
    graph = model.graph
    consts = {"pad/last": -1, "pad/end": 2 ** 62, "pad/start": 0, "pad/axis": 1}
    graph.initializer.extend(numpy_helper.from_array(np.array([v], np.int64), k) for k, v in consts.items())
    nodes, padded = [], 0
    for node in graph.node:
        if node.op_type == "GroupQueryAttention":
            nodes.extend(_padded(node))
            padded += 1
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.save(model, str(out_path))
    return padded


def _padded(node) -> list:
    """Each of the node's query, key and value inputs (packed: the query alone) with its last
    row appended, (1, S, ·) -> (1, S+1, ·); the node on them; its output cut back to S rows."""
    from onnx import helper
    name, added = node.name, []
    for i in range(3):
        source = node.input[i]
        if not source:
            continue
        last, wide = f"{name}/pad/{i}/last_row", f"{name}/pad/{i}/wide"
        added += [helper.make_node("Slice", [source, "pad/last", "pad/end", "pad/axis"], [last],
                                   name=f"{name}/pad/{i}/Slice"),
                  helper.make_node("Concat", [source, last], [wide], axis=1, name=f"{name}/pad/{i}/Concat")]
        node.input[i] = wide
    output, wide_out = node.output[0], f"{name}/pad/output"
    node.output[0] = wide_out
    cut = helper.make_node("Slice", [wide_out, "pad/start", "pad/last", "pad/axis"], [output], name=f"{name}/pad/Cut")
    return added + [node, cut]
