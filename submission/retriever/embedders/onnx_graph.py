"""MiniLM's encoder layers on ONNX Runtime, from a model written without the onnx package.

ONNX Runtime runs the layers of a question ~1.7x faster than numpy (its products use weights packed once,
where BLAS packs them on every call), but a model is only a protobuf message: the few fields needed are
written here by hand (field numbers from onnx/onnx.proto) rather than depending on onnx and protobuf. The
weights stay out of the bytes, as external data the session is handed in memory: the model is ~10 KB, and
42 MB of weights are neither copied into it nor parsed back out (that took ~0.1 s of the server's start and
70 MB of its peak memory).
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

#: Opset 17 has LayerNormalization; IR version 8 is the one that goes with it.
IR_VERSION, OPSET = 8, 17
FLOAT, INT64 = 1, 7  # TensorProto.DataType
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7  # AttributeProto.AttributeType
_NP_TYPES = {np.dtype("<f4"): FLOAT, np.dtype("<i8"): INT64}
_EXTERNAL = 1  # TensorProto.DataLocation
Dim = int | str  # a fixed size, or the name of one given at run time
Pair = tuple[np.ndarray, np.ndarray]  # (weight, bias), or LayerNorm's (gamma, beta)


class Layer(NamedTuple):
    """One BERT layer's weights, matrices as (out, in) like the file's (memory-mapped, bar `qkv`: the query,
    key and value products in one, the score scale folded into its query third). MiniLM's numpy forward
    takes them too, cut in halves."""

    qkv: Pair
    out: Pair
    ln1: Pair
    up: Pair
    down: Pair
    ln2: Pair


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64 values are written as their two's complement
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n)


def _float(field: int, x: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", x)


def _bytes(field: int, payload: bytes | str) -> bytes:
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _head(name: str, array: np.ndarray) -> tuple[np.ndarray, bytes]:
    """The array as written (little-endian, row-major) and its TensorProto dims=1, data_type=2, name=8."""
    a = np.asarray(array)
    a = a.astype(a.dtype.newbyteorder("<"), order="C", copy=False)
    return a, b"".join(_int(1, d) for d in a.shape) + _int(2, _NP_TYPES[a.dtype]) + _bytes(8, name)


def tensor(name: str, array: np.ndarray) -> bytes:
    """TensorProto with its data in raw_data=9."""
    a, head = _head(name, array)
    return head + _bytes(9, a.tobytes())


def external(name: str, array: np.ndarray) -> tuple[bytes, np.ndarray]:
    """TensorProto whose data lives elsewhere (external_data=13 {key=1 "location", value=2 name},
    data_location=14), and that data: the session gets it from SessionOptions.add_external_initializers."""
    a, head = _head(name, array)
    return head + _bytes(13, _bytes(1, "location") + _bytes(2, name)) + _int(14, _EXTERNAL), a


def value_info(name: str, elem_type: int, shape: Sequence[Dim]) -> bytes:
    """ValueInfoProto name=1, type=2 -> TypeProto tensor_type=1 -> elem_type=1, shape=2 -> dim=1 (a
    Dimension: dim_value=1 or dim_param=2)."""
    dims = b"".join(_bytes(1, _int(1, d) if isinstance(d, int) else _bytes(2, d)) for d in shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, _int(1, elem_type) + _bytes(2, dims)))


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], **attrs: int | float | Sequence[int]
         ) -> bytes:
    """NodeProto input=1, output=2, op_type=4, attribute=5 (AttributeProto name=1, f=2, i=3, ints=8, type=20)."""
    msg = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs) + _bytes(4, op_type)
    for key, v in attrs.items():
        if isinstance(v, float):
            attr = _float(2, v) + _int(20, _ATTR_FLOAT)
        elif isinstance(v, int):
            attr = _int(3, v) + _int(20, _ATTR_INT)
        else:
            attr = b"".join(_int(8, i) for i in v) + _int(20, _ATTR_INTS)
        msg += _bytes(5, _bytes(1, key) + attr)
    return msg


def model(nodes: Sequence[bytes], initializers: Sequence[bytes], inputs: Sequence[bytes], outputs: Sequence[bytes],
          name: str = "graph") -> bytes:
    """ModelProto (ir_version=1, graph=7, opset_import=8 -> version=2; the default ONNX domain only) around
    GraphProto (node=1, name=2, initializer=5, input=11, output=12)."""
    graph = b"".join([*(_bytes(1, n) for n in nodes), _bytes(2, name), *(_bytes(5, t) for t in initializers),
                      *(_bytes(11, i) for i in inputs), *(_bytes(12, o) for o in outputs)])
    return _int(1, IR_VERSION) + _bytes(7, graph) + _bytes(8, _int(2, OPSET))


class _Builder:
    """Nodes with generated output names; constants written in the model, weights kept outside it."""

    def __init__(self) -> None:
        self.nodes: list[bytes] = []
        self.inits: list[bytes] = []
        self.weights: dict[str, np.ndarray] = {}

    def const(self, name: str, array: np.ndarray) -> str:
        self.inits.append(tensor(name, array))
        return name

    def weight(self, name: str, array: np.ndarray) -> str:
        proto, self.weights[name] = external(name, array)
        self.inits.append(proto)
        return name

    def op(self, op_type: str, *inputs: str, out: str | None = None, **attrs: int | float | Sequence[int]) -> str:
        out = out or f"t{len(self.nodes)}"
        self.nodes.append(node(op_type, inputs, [out], **attrs))
        return out


def encoder_model(layers: Sequence[Layer], heads: int, eps: float) -> tuple[bytes, dict[str, np.ndarray]]:
    """The BERT layers on packed tokens, as MiniLM's numpy forward runs them: (model bytes, its external
    weights by name: C-contiguous views of `layers`' arrays, for SessionOptions.add_external_initializers).

    Inputs: `hidden` (tokens, dim) float32, the real tokens of a batch after the embedding LayerNorm;
    `spread` (batch, width) int64, the row of `hidden` at each place of the padded layout (any row for
    padding); `rows` (tokens,) int64, each real token's place in that layout flattened; `bias` (batch, 1, 1,
    width) float32, 0 for a real key and -1e30 for padding. Output `out` (tokens, dim). Only attention sees
    the padded layout: the dense products cost the batch's real tokens, not its padding.
    """
    g = _Builder()
    dim = layers[0].out[0].shape[0]
    head_shape = g.const("head_shape", np.array([0, 0, 3, heads, dim // heads], dtype=np.int64))
    flat_shape = g.const("flat_shape", np.array([-1, dim], dtype=np.int64))
    half, root_half = g.const("half", np.array(0.5, np.float32)), g.const("root_half", np.array(0.5**0.5, np.float32))
    one = g.const("one", np.array(1.0, np.float32))
    part = [g.const(f"part{j}", np.array(j, np.int64)) for j in range(3)]
    x = "hidden"
    for i, layer in enumerate(layers):

        def dense(inp: str, pair: Pair, name: str, i: int = i) -> str:
            """x @ W.T + b, with W as (out, in) like the file's."""
            return g.op("Gemm", inp, g.weight(f"l{i}.{name}.w", pair[0]), g.weight(f"l{i}.{name}.b", pair[1]),
                        transB=1)

        def norm(inp: str, pair: Pair, name: str, i: int = i, out: str | None = None) -> str:
            gamma, beta = g.weight(f"l{i}.{name}.g", pair[0]), g.weight(f"l{i}.{name}.b", pair[1])
            return g.op("LayerNormalization", inp, gamma, beta, out=out, axis=-1, epsilon=eps)

        qkv = g.op("Reshape", g.op("Gather", dense(x, layer.qkv, "qkv"), "spread", axis=0), head_shape)
        q, k, v = (g.op("Gather", qkv, part[j], axis=2) for j in range(3))  # each (batch, width, heads, head_dim)
        scores = g.op("MatMul", g.op("Transpose", q, perm=[0, 2, 1, 3]), g.op("Transpose", k, perm=[0, 2, 3, 1]))
        probs = g.op("Softmax", g.op("Add", scores, "bias"), axis=-1)
        ctx = g.op("Transpose", g.op("MatMul", probs, g.op("Transpose", v, perm=[0, 2, 1, 3])), perm=[0, 2, 1, 3])
        ctx = g.op("Gather", g.op("Reshape", ctx, flat_shape), "rows", axis=0)
        x = norm(g.op("Add", dense(ctx, layer.out, "out"), x), layer.ln1, "ln1")
        up = dense(x, layer.up, "up")
        erf = g.op("Erf", g.op("Mul", up, root_half))
        gelu = g.op("Mul", g.op("Mul", up, half), g.op("Add", erf, one))  # exact GELU: x/2 * (1 + erf(x/sqrt 2))
        last = i == len(layers) - 1
        x = norm(g.op("Add", dense(gelu, layer.down, "down"), x), layer.ln2, "ln2", out="out" if last else None)
    inputs = [value_info("hidden", FLOAT, ["tokens", dim]), value_info("spread", INT64, ["batch", "width"]),
              value_info("rows", INT64, ["tokens"]), value_info("bias", FLOAT, ["batch", 1, 1, "width"])]
    return model(g.nodes, g.inits, inputs, [value_info("out", FLOAT, ["tokens", dim])], name="minilm"), g.weights


class OnnxLayers:
    """The encoder layers on an onnxruntime session (inputs and output as encoder_model gives them).

    Its threads (one or two: the same numbers either way) sleep between calls (spinning ones stalled the numpy
    model 10x+ on busy cores), and only errors are logged (to stderr: the server's stdout carries its answers).
    """

    def __init__(self, ort: Any, layers: Sequence[Layer], heads: int, eps: float, threads: int) -> None:
        graph, weights = encoder_model(layers, heads, eps)
        ort.set_default_logger_severity(3)
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        opts.intra_op_num_threads, opts.inter_op_num_threads = threads, 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # The session copies them in while it is created (so the arrays may go once it exists).
        opts.add_external_initializers(list(weights), [ort.OrtValue.ortvalue_from_numpy(a) for a in weights.values()])
        self.session = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])

    def __call__(self, x: np.ndarray, bias: np.ndarray, mask: np.ndarray) -> np.ndarray:
        rows = np.flatnonzero(mask.reshape(-1)).astype(np.int64)
        spread = np.zeros(mask.size, dtype=np.int64)
        spread[rows] = np.arange(len(rows))
        feed = {"hidden": x, "spread": spread.reshape(mask.shape), "rows": rows, "bias": bias}
        return self.session.run(None, feed)[0]


def onnx_layers(layers: Sequence[Layer], heads: int, eps: float, threads: int) -> OnnxLayers | None:
    """The layers on ONNX Runtime, or None when onnxruntime is not installed or cannot run them here (a
    wheel built for another CPU or library: numpy still can, so the model keeps working)."""
    try:
        import onnxruntime
    except ImportError:
        return None
    try:
        return OnnxLayers(onnxruntime, layers, heads, eps, threads)
    except Exception as e:  # noqa: BLE001 - whatever the runtime raises, numpy is the answer
        print(f"onnxruntime cannot run the local model ({type(e).__name__}: {e}); using numpy", file=sys.stderr)
        return None
