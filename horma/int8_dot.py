"""Exact products of uint8 by int8 matrices (int32 results) through onnxruntime's ``MatMulInteger``.

Why: the host keeps a workspace's unit vectors in memory as their stored codes, a byte a dimension
(``horma.vectors``): 384 bytes a unit where float32 rows took 1.5 KB, so a server holding 10^6 units keeps
0.4 GB, not 1.5 GB. numpy multiplies integers without BLAS: at 10^5 units a query's product takes about
40 ms in int8 (and wraps around), 680 ms in int32, against 6.5-8 ms for the float32 rows (bound by
reading a 150 MB matrix). ``MatMulInteger`` reads the 38 MB of codes in about 2 ms, exactly, with the
codes as uint8 (int8 by int8 took 7 ms: the CPU's dot-product instructions take one unsigned operand).
Without VNNI its kernel sums pairs of products in int16, so a caller keeps ``2 * max|a| * max|b|`` under
32767 (``horma.vectors.QUERY_STEPS``).
onnxruntime is here already for the embedding model; the one-node graph is made from the same protobuf
subset as the model's rewrite (``horma.embed_int8``), without the ``onnx`` package.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

_session: Any = None
_lock = threading.Lock()


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` as int32, for uint8 ``a`` [n, k] and int8 ``b`` [k, m]."""
    return _graph().run(None, {"a": np.ascontiguousarray(a, dtype=np.uint8),
                               "b": np.ascontiguousarray(b, dtype=np.int8)})[0]


def _graph() -> Any:
    """The one-node graph's session, made once a process (``run`` is thread-safe)."""
    global _session
    with _lock:
        if _session is None:
            import onnxruntime as ort

            from horma.embed_int8 import _INT8, _INT32, _UINT8, onnx_classes

            model_cls, _, _ = onnx_classes()
            model = model_cls(ir_version=8)
            model.opset_import.add(domain="", version=13)
            graph = model.graph
            graph.name = "int8_dot"
            for name, kind in (("a", _UINT8), ("b", _INT8)):
                graph.input.add(name=name).type.tensor_type.elem_type = kind
            graph.output.add(name="y").type.tensor_type.elem_type = _INT32
            graph.node.add(input=["a", "b"], output=["y"], op_type="MatMulInteger", name="dot")
            opts = ort.SessionOptions()
            # onnxruntime's threads (one a core): at 10^5 units two take 1.2 ms where one takes 2.5; no busy
            # waiting between products, so a server holding the session spins no core while idle
            opts.inter_op_num_threads = 1
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            _session = ort.InferenceSession(bytes(model.SerializeToString()), opts,
                                            providers=["CPUExecutionProvider"])
        return _session
