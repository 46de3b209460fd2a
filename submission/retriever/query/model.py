"""Conditional-logit (softmax over candidates) models: the fitted weights are a small versioned JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
WEIGHTS_VERSION = 1


def softmax(z: np.ndarray) -> np.ndarray:
    """Probabilities from logits (the planner also keeps a group's plan logits, which the route model reads)."""
    e = np.exp(z - z.max())
    return e / e.sum()


@dataclass(frozen=True)
class SoftmaxModel:
    names: tuple[str, ...]
    weights: np.ndarray
    #: Features are standardised with the training mean/scale before the dot product.
    mean: np.ndarray
    scale: np.ndarray

    def logits(self, x: np.ndarray, disabled: frozenset[str] = frozenset()) -> np.ndarray:
        w = self.weights
        if disabled:
            w = np.where([n in disabled for n in self.names], 0.0, w)
        return ((x - self.mean) / self.scale) @ w

    def probs(self, x: np.ndarray, disabled: frozenset[str] = frozenset()) -> np.ndarray:
        return softmax(self.logits(x, disabled))

    def term(self, name: str, x: np.ndarray, disabled: frozenset[str] = frozenset()) -> np.ndarray:
        """One feature's part of the logits for its values x (zero where it is switched off)."""
        if name in disabled:
            return np.zeros(np.shape(x))
        i = self.names.index(name)
        return self.weights[i] * (np.asarray(x, dtype=np.float64) - self.mean[i]) / self.scale[i]

    def to_json(self) -> dict[str, object]:
        return {"names": list(self.names), "weights": [round(float(v), 6) for v in self.weights],
                "mean": [round(float(v), 6) for v in self.mean], "scale": [round(float(v), 6) for v in self.scale]}

    @classmethod
    def from_json(cls, d: dict[str, object], expected: Sequence[str]) -> SoftmaxModel:
        names: tuple[str, ...] = tuple(d["names"])  # type: ignore[arg-type]
        if names != tuple(expected):
            raise ValueError(f"weights are for features {names}, code has {tuple(expected)}; run make fit")
        arr = {k: np.asarray(d[k], dtype=np.float64) for k in ("weights", "mean", "scale")}
        return cls(names, arr["weights"], arr["mean"], arr["scale"])

    @classmethod
    def uniform(cls, names: Sequence[str]) -> SoftmaxModel:
        n = len(names)
        return cls(tuple(names), np.zeros(n), np.zeros(n), np.ones(n))


def fit_softmax(
    samples: Sequence[tuple[np.ndarray, int]], names: Sequence[str], l2: float = 1e-3, iters: int = 300,
) -> SoftmaxModel:
    """Maximum likelihood of the gold candidate under a softmax, by damped Newton steps."""
    xs = [x.astype(np.float64) for x, _ in samples]
    allx = np.concatenate(xs)
    mean = allx.mean(axis=0)
    scale = allx.std(axis=0)
    scale[scale < 1e-6] = 1.0
    zs = [(x - mean) / scale for x in xs]
    golds = [g for _, g in samples]
    w = np.zeros(len(names))
    nll, grad, hess = _objective(w, zs, golds, l2)
    for _ in range(iters):
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(w)), grad)
        t = 1.0
        while t > 1e-6:  # backtracking keeps Newton from overshooting on near-separable data
            w_new = w - t * step
            nll_new, grad_new, hess_new = _objective(w_new, zs, golds, l2)
            if nll_new <= nll:
                break
            t /= 2
        else:
            break
        converged = nll - nll_new < 1e-9 * max(1.0, abs(nll))
        w, nll, grad, hess = w_new, nll_new, grad_new, hess_new
        if converged:
            break
    return SoftmaxModel(tuple(names), w, mean, scale)


def _objective(w: np.ndarray, zs: Sequence[np.ndarray], golds: Sequence[int], l2: float
               ) -> tuple[float, np.ndarray, np.ndarray]:
    """Negative log-likelihood with L2, its gradient and Hessian."""
    n = len(zs)
    nll = 0.5 * l2 * n * float(w @ w)
    grad = l2 * n * w
    hess = l2 * n * np.eye(len(w))
    for z, g in zip(zs, golds, strict=True):
        s = z @ w
        m = s.max()
        p = np.exp(s - m)
        tot = p.sum()
        p /= tot
        nll += float(m + np.log(tot) - s[g])
        mu = p @ z
        grad += mu - z[g]
        hess += (z * p[:, None]).T @ z - np.outer(mu, mu)
    return nll, grad, hess


def read_weights(path: Path = WEIGHTS_PATH) -> dict[str, Any]:
    """The whole weights file, checked to be of this code's version."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != WEIGHTS_VERSION:
        raise ValueError(f"weights file {str(path)!r} has version {data.get('version')!r}; run make fit")
    return dict(data)
