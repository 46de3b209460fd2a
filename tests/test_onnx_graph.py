"""The hand-written ONNX protobuf: ONNX Runtime must load what onnx_graph.py writes and compute with it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from retriever.embedders import onnx_graph as g


def test_varints_are_protobuf_varints() -> None:
    assert g._varint(0) == b"\x00" and g._varint(1) == b"\x01" and g._varint(300) == b"\xac\x02"
    assert g._varint(-1) == b"\xff" * 9 + b"\x01"  # a negative int64 is its 64-bit two's complement
    assert g._int(1, 150) == b"\x08\x96\x01" and g._bytes(2, "testing") == b"\x12\x07testing"


def _session(model: bytes, weights: dict[str, np.ndarray] | None = None) -> Any:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed (submission/requirements-nodeps.txt)")
    opts = ort.SessionOptions()
    if weights:
        opts.add_external_initializers(list(weights), [ort.OrtValue.ortvalue_from_numpy(a) for a in weights.values()])
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def test_a_tiny_graph_loads_and_computes() -> None:
    """MatMul + Add with the weight in the model, then Softmax over the last axis (a negative attribute)."""
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    b = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    nodes = [g.node("MatMul", ["x", "w"], ["xw"]), g.node("Add", ["xw", "b"], ["y"]),
             g.node("Softmax", ["y"], ["p"], axis=-1)]
    model = g.model(nodes, [g.tensor("w", w), g.tensor("b", b)], [g.value_info("x", g.FLOAT, ["n", 2])],
                    [g.value_info("y", g.FLOAT, ["n", 3]), g.value_info("p", g.FLOAT, ["n", 3])])
    x = np.array([[1.0, 2.0], [-3.0, 0.5]], dtype=np.float32)
    y, p = _session(model).run(None, {"x": x})
    np.testing.assert_allclose(y, x @ w + b, rtol=1e-6)
    e = np.exp(y - y.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


def test_external_weights_and_int_attributes() -> None:
    """Gemm(transB=1) on weights handed to the session apart from the model, then a Transpose (ints)."""
    w = np.arange(12, dtype=np.float32).reshape(4, 3)  # (out, in)
    b = np.linspace(-1, 1, 4).astype(np.float32)
    nodes = [g.node("Gemm", ["x", "w", "b"], ["y"], transB=1), g.node("Transpose", ["y"], ["t"], perm=[1, 0])]
    proto_w, data_w = g.external("w", w)
    proto_b, data_b = g.external("b", b)
    model = g.model(nodes, [proto_w, proto_b], [g.value_info("x", g.FLOAT, ["n", 3])],
                    [g.value_info("t", g.FLOAT, [4, "n"])])
    x = np.array([[1.0, 0.0, -1.0], [2.0, 3.0, 4.0]], dtype=np.float32)
    (t,) = _session(model, {"w": data_w, "b": data_b}).run(None, {"x": x})
    np.testing.assert_allclose(t, (x @ w.T + b).T, rtol=1e-6)
    assert len(model) < 1000  # the weights are not in the bytes


def test_int64_constants_and_scalars() -> None:
    """Reshape by an int64 shape constant (0 keeps a size) and Gather by a 0-d index (drops the axis)."""
    nodes = [g.node("Reshape", ["x", "shape"], ["r"]), g.node("Gather", ["r", "one"], ["s"], axis=1)]
    inits = [g.tensor("shape", np.array([0, 2, -1], dtype=np.int64)), g.tensor("one", np.array(1, dtype=np.int64))]
    model = g.model(nodes, inits, [g.value_info("x", g.FLOAT, ["n", 6])], [g.value_info("s", g.FLOAT, ["n", 3])])
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    (s,) = _session(model).run(None, {"x": x})
    np.testing.assert_array_equal(s, x.reshape(2, 2, 3)[:, 1])
