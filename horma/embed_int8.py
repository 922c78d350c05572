"""The embedding graph's weight products rewritten, in memory, to run as int8 dot products.

Why (issue 19, point 7: ingest at 500 units/s on two cores; figures in docs/benchmarks.md, session 17):
the shipped graph keeps its weights as int8 but casts them to float32 at load, so onnxruntime multiplies
in float. Its ``MatMulNBits`` with 8 bits (the rewrite before this one) multiplied at about 115
GFLOP/s a core here; ``MatMulInteger`` (uint8 activations by int8 weights, the VNNI kernels) at about
330. So each weight product ``MatMul(x, Mul(Cast(q), scale))`` becomes:

- ``x`` quantized to uint8 **per row** (each token's own range, with its minimum as the zero point): a
  row's code never depends on the other rows of a run, so padding and batching leave vectors alone;
- minus its **outlier channels**: BERT-style models carry a channel or two whose values are ten times
  the rest (28 against a median of 2 here), and a row's range stretched to hold them leaves the others a
  few levels. Those channels, found once at load by running the float graph on :data:`CALIBRATION`,
  are zeroed before quantizing and multiplied in float through a small side product, which also adds
  back the zero point's share (``min(row) * column sums``).

The weights stay exactly the graph's int8 (the outlier rows moved to float with their scale). Vectors
agree with the float path to a cosine of 0.999 on LoCoMo turns and one-word texts, closer than the 8-bit
blocks before it; quantized per row without the outlier split they fell to 0.995 (one-word texts), and
per tensor (onnxruntime's ``quantize_dynamic``) to 0.977.

Built from a protobuf descriptor rather than importing ``onnx`` (31 MB, not a dependency); ``protobuf``
comes with onnxruntime. Fields not declared here survive a parse and serialize as unknown fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# The float graph runs on these once at load to find each product input's outlier channels: a few plain
# sentences of the kinds a memory holds (the channels are the model's, not the text's: the same ones in
# every layer here), and the one-word texts whose vectors per-row codes hurt most.
CALIBRATION = (
    "I moved to Lisbon last spring and I still miss the rain in Leeds.",
    "Can you suggest a vegetarian dinner that takes less than thirty minutes?",
    "The physio says my knee is fine now, so I'm back on the bike three times a week.",
    "Assistant: A good first step is to write down what you spend for one month.",
    "We adopted a cat from the shelter on Saturday; Tiago named her Nata.",
    "ok",
    "Yes!",
    "x",
)
# channels of each product's input multiplied in float; the worst cosine to the float graph on 2,000 LoCoMo turns
# and on one-word texts with 0: 0.9974 / 0.9929, 1: 0.9987 / 0.9988, 2: 0.9995 / 0.9989, 4: 0.9996 / 0.9992
OUTLIERS = 2
_FLOAT, _UINT8, _INT8, _INT32, _INT64 = 1, 2, 3, 6, 7  # TensorProto.DataType
_A_FLOAT, _A_INT, _A_INTS = 1, 2, 7  # AttributeProto.AttributeType


def onnx_classes() -> tuple[Any, Any, Any]:
    """(Model, Node, Tensor): the few fields of ONNX's protobuf messages the rewrite touches, and those a
    one-node graph needs (``horma.int8_dot``)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    f = descriptor_pb2.FieldDescriptorProto
    one, many = f.LABEL_OPTIONAL, f.LABEL_REPEATED
    proto = descriptor_pb2.FileDescriptorProto(name="horma_onnx_subset.proto", package="h", syntax="proto2")
    for name, fields in {
        "Model": [("ir_version", 1, f.TYPE_INT64, one, ""), ("graph", 7, f.TYPE_MESSAGE, one, "Graph"),
                  ("opset_import", 8, f.TYPE_MESSAGE, many, "Opset")],
        "Opset": [("domain", 1, f.TYPE_STRING, one, ""), ("version", 2, f.TYPE_INT64, one, "")],
        "Graph": [("node", 1, f.TYPE_MESSAGE, many, "Node"), ("name", 2, f.TYPE_STRING, one, ""),
                  ("initializer", 5, f.TYPE_MESSAGE, many, "Tensor"), ("input", 11, f.TYPE_MESSAGE, many, "Value"),
                  ("output", 12, f.TYPE_MESSAGE, many, "Value")],
        "Value": [("name", 1, f.TYPE_STRING, one, ""), ("type", 2, f.TYPE_MESSAGE, one, "Type")],
        "Type": [("tensor_type", 1, f.TYPE_MESSAGE, one, "TensorType")],
        "TensorType": [("elem_type", 1, f.TYPE_INT32, one, "")],
        "Node": [("input", 1, f.TYPE_STRING, many, ""), ("output", 2, f.TYPE_STRING, many, ""),
                 ("name", 3, f.TYPE_STRING, one, ""), ("op_type", 4, f.TYPE_STRING, one, ""),
                 ("attribute", 5, f.TYPE_MESSAGE, many, "Attr"), ("domain", 7, f.TYPE_STRING, one, "")],
        "Attr": [("name", 1, f.TYPE_STRING, one, ""), ("f", 2, f.TYPE_FLOAT, one, ""),
                 ("i", 3, f.TYPE_INT64, one, ""), ("ints", 8, f.TYPE_INT64, many, ""),
                 ("type", 20, f.TYPE_INT32, one, "")],
        "Tensor": [("dims", 1, f.TYPE_INT64, many, ""), ("data_type", 2, f.TYPE_INT32, one, ""),
                   ("name", 8, f.TYPE_STRING, one, ""), ("raw_data", 9, f.TYPE_BYTES, one, "")],
    }.items():
        msg = proto.message_type.add(name=name)
        for field, number, kind, label, ref in fields:
            msg.field.add(name=field, number=number, type=kind, label=label, type_name=f".h.{ref}" if ref else None)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    model, node, tensor = (message_factory.GetMessageClass(pool.FindMessageTypeByName(f"h.{n}"))
                           for n in ("Model", "Node", "Tensor"))
    return model, node, tensor


def products(graph: Any) -> list[tuple[Any, Any, Any, Any, Any]]:
    """(MatMul, Mul, Cast, int8 weight [K, N], float scale [N]) for each ``MatMul(x, Mul(Cast(q), scale))``
    whose weight and scale serve that product alone."""
    tensors = {t.name: t for t in graph.initializer}
    made = {out: n for n in graph.node for out in n.output}
    uses = Counter(i for n in graph.node for i in n.input)
    found = []
    for node in graph.node:
        mul = made.get(node.input[1]) if node.op_type == "MatMul" and not node.domain else None
        cast = made.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        q = tensors.get(cast.input[0]) if cast is not None and cast.op_type == "Cast" else None
        scale = tensors.get(mul.input[1]) if q is not None and mul is not None else None
        if (mul is None or cast is None or q is None or scale is None or q.data_type != _INT8 or len(q.dims) != 2
                or scale.data_type != _FLOAT or uses[node.input[1]] != 1 or uses[cast.output[0]] != 1
                or len(q.raw_data) != q.dims[0] * q.dims[1] or len(scale.raw_data) != 4 * q.dims[1]):
            continue
        found.append((node, mul, cast, q, scale))
    return found


def int8_graph(model: Path, peaks: Callable[[bytes, list[str]], dict[str, np.ndarray]]) -> bytes | None:
    """``model`` with each int8 weight product run as uint8 x int8 ``MatMulInteger``; None if it has none.

    ``peaks(graph, names)`` runs ``graph`` (the float model with ``names`` as extra outputs) on
    :data:`CALIBRATION` and returns each name's largest magnitude per channel.
    """
    model_cls, node_cls, tensor_cls = onnx_classes()
    source = model.read_bytes()
    m = model_cls.FromString(source)
    g = m.graph
    found = products(g)
    if not found:
        return None
    inputs = sorted({node.input[0] for node, *_ in found})
    probe = model_cls.FromString(source)
    for name in inputs:
        probe.graph.output.add(name=name).type.tensor_type.elem_type = _FLOAT
    peak = peaks(bytes(probe.SerializeToString()), inputs)

    def tensor(name: str, dtype: int, array: np.ndarray) -> str:
        g.initializer.append(tensor_cls(name=name, data_type=dtype, dims=list(array.shape),
                                        raw_data=np.ascontiguousarray(array).tobytes()))
        return name

    def node(op: str, ins: list[str], out: str, **attrs: Any) -> Any:
        n = node_cls(input=ins, output=[out], name=out, op_type=op)
        for key, value in attrs.items():
            if isinstance(value, list):
                n.attribute.add(name=key, ints=value, type=_A_INTS)
            elif isinstance(value, float):
                n.attribute.add(name=key, f=value, type=_A_FLOAT)
            else:
                n.attribute.add(name=key, i=value, type=_A_INT)
        return n

    eps = tensor("hq/eps", _FLOAT, np.array(1e-12, dtype=np.float32))
    step = tensor("hq/step", _FLOAT, np.array(1 / 255, dtype=np.float32))
    coded: dict[str, tuple[str, str, str, np.ndarray]] = {}  # input -> (uint8 code, row step, side input, outliers)
    replaced: dict[str, list[Any]] = {}  # a MatMul's name -> the nodes that stand for it
    dead: set[str] = set()  # the Cast and Mul outputs and the weights the rewrite replaces
    for mm, mul, cast, q, scale in found:
        x = mm.input[0]
        k, n = q.dims
        new: list[Any] = []
        if x not in coded:
            p = f"hq/{x}/"
            keep = min(OUTLIERS, k - 1)
            out = np.sort(np.argsort(-peak[x].reshape(-1, k).max(axis=0), kind="stable")[:keep]).astype(np.int64)
            mask = np.ones(k, dtype=np.float32)
            mask[out] = 0.0
            new += [node("Mul", [x, tensor(p + "mask", _FLOAT, mask)], p + "rest"),
                    node("Gather", [x, tensor(p + "outliers", _INT64, out)], p + "out", axis=-1),
                    node("ReduceMax", [p + "rest"], p + "hi", axes=[-1], keepdims=1),
                    node("ReduceMin", [p + "rest"], p + "lo", axes=[-1], keepdims=1),
                    node("Sub", [p + "hi", p + "lo"], p + "span"),
                    node("Max", [p + "span", eps], p + "span1"),
                    node("Mul", [p + "span1", step], p + "step"),
                    node("Sub", [p + "rest", p + "lo"], p + "up"),
                    node("Div", [p + "up", p + "step"], p + "levels"),
                    node("Round", [p + "levels"], p + "round"),
                    node("Cast", [p + "round"], p + "code", to=_UINT8),
                    node("Concat", [p + "out", p + "lo"], p + "side", axis=-1)]
            coded[x] = (p + "code", p + "step", p + "side", out)
        code, row_step, side, out = coded[x]
        p = f"hq/{mm.name}/"
        w = np.frombuffer(q.raw_data, dtype=np.int8).reshape(k, n).copy()
        col = np.frombuffer(scale.raw_data, dtype=np.float32)
        float_rows = w[out].astype(np.float32) * col  # the outlier rows, in float, scaled
        w[out] = 0
        zero_share = w.astype(np.int64).sum(axis=0).astype(np.float32) * col  # what the zero point adds, per min
        new += [node("MatMulInteger", [code, tensor(p + "w", _INT8, w)], p + "int"),
                node("Cast", [p + "int"], p + "float", to=_FLOAT),
                node("Mul", [p + "float", row_step], p + "rows"),
                node("Mul", [p + "rows", scale.name], p + "main"),
                node("MatMul", [side, tensor(p + "side_w", _FLOAT, np.vstack([float_rows, zero_share]))], p + "side"),
                node("Add", [p + "main", p + "side"], mm.output[0])]
        new[-1].name = p + "sum"
        replaced[mm.name] = new
        dead |= {cast.output[0], mul.output[0], q.name}
    nodes = []
    for n in g.node:
        if n.op_type == "MatMul" and n.name in replaced:
            nodes.extend(replaced[n.name])
        elif n.output[0] not in dead:
            nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    live = [t for t in g.initializer if t.name not in dead]
    del g.initializer[:]
    g.initializer.extend(live)
    return bytes(m.SerializeToString())
