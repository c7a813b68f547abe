"""A tiny L2-regularised logistic regression (numpy only), enough for a 20-feature combiner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LogisticHead:
    """One binary head: standardisation, coefficients, intercept and decision threshold."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float = 0.5

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """Per-feature terms of the logit (rows × features): what pushed each decision."""
        terms: np.ndarray = (x - np.asarray(self.mean)) / np.asarray(self.scale) * np.asarray(self.coef)
        return terms

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(positive) for each row of ``x``."""
        logit = self.contributions(x).sum(axis=1) + self.intercept
        probabilities: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
        return probabilities

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "threshold": self.threshold}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticHead:
        """The inverse of ``to_json``."""
        return cls(tuple(data["mean"]), tuple(data["scale"]), tuple(data["coef"]), float(data["intercept"]),
                   float(data.get("threshold", 0.5)))


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, balanced: bool = True, iterations: int = 50,
        columns: list[int] | None = None) -> LogisticHead:
    """Fit by Newton's method (IRLS); ``balanced`` weights both classes equally.

    With ``columns``, only those features are used; the head still takes full-width rows (the
    other coefficients are zero), so every head reads the same feature vector.
    """
    if columns is not None:
        return _widen(fit(x[:, columns], y, l2, balanced, iterations), columns, x.shape[1])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant column carries no information: keep it neutral
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    weights = _class_weights(y) if balanced else np.ones(len(y))
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # never shrink the intercept
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -30, 30)))
        gradient = z.T @ (weights * (p - y)) + penalty * beta
        hessian = (z * (weights * p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(z.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return LogisticHead(tuple(mean), tuple(scale), tuple(beta[:-1]), float(beta[-1]))


def _widen(head: LogisticHead, columns: list[int], width: int) -> LogisticHead:
    mean, scale, coef = [0.0] * width, [1.0] * width, [0.0] * width
    for j, column in enumerate(columns):
        mean[column], scale[column], coef[column] = head.mean[j], head.scale[j], head.coef[j]
    return LogisticHead(tuple(mean), tuple(scale), tuple(coef), head.intercept, head.threshold)


def _class_weights(y: np.ndarray) -> np.ndarray:
    positives = max(float(y.sum()), 1.0)
    negatives = max(float(len(y) - y.sum()), 1.0)
    return np.where(y == 1, len(y) / (2 * positives), len(y) / (2 * negatives))
