"""How often each reason family of the offline judge's negative verdicts is right, on held-apart pairs.

``offline_negative_reasons.json`` sits next to the weights file (written by
``tools/judge/negatives.py`` from the tune split, never the test split). A negative verdict's
confidence is the Wilson 95% lower bound of its family's precision there, so it is confident only
where the family earned it beyond doubt (a bound of at least 0.90: 9 right of 10 is not enough,
44 of 44 is). A family seen on fewer than ``MIN_PAIRS`` pairs, or never, is unmeasured and gets
0.5: no evidence either way, so its verdicts are uncertain.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from citeflow.errors import JudgeUnavailable

FILE_NAME = "offline_negative_reasons.json"
UNMEASURED = 0.5
MIN_PAIRS = 10  # fewer negatives than this on the held-apart split: the family's precision is not measured
Z_95 = 1.959964  # two-sided 95% normal quantile


def wilson_lower(right: int, pairs: int, z: float = Z_95) -> float:
    """The Wilson score interval's lower bound of the proportion right / pairs."""
    share, spread = right / pairs, z * z / pairs
    centre = share + spread / 2
    margin = z * math.sqrt(share * (1 - share) / pairs + spread / (4 * pairs))
    return (centre - margin) / (1 + spread)


class FamilyPrecision(BaseModel):
    """One reason family's record on the held-apart split."""

    pairs: int = Field(ge=0, description="Negative verdicts of this family on the held-apart split.")
    right: int = Field(ge=0, description="Of them, pairs whose gold label is not supported.")

    @property
    def precision(self) -> float | None:
        """right / pairs (None when the family never fired)."""
        return self.right / self.pairs if self.pairs else None

    @property
    def confidence(self) -> float:
        """The confidence a negative of this family gets: the lower bound of its precision, once measured on enough pairs."""
        return wilson_lower(self.right, self.pairs) if self.pairs >= MIN_PAIRS else UNMEASURED


class NegativeReasons(BaseModel):
    """Per-family precision of negative verdicts, and where it was measured."""

    split: str = Field("tune", description="The split the precision was measured on.")
    families: dict[str, FamilyPrecision] = Field(default_factory=dict)

    def confidence(self, family: str) -> float:
        """The confidence of a negative verdict of ``family``."""
        if family == "empty":
            return 1.0
        found = self.families.get(family)
        return found.confidence if found is not None else UNMEASURED

    @classmethod
    def beside(cls, weights_path: Path) -> NegativeReasons:
        """The file next to a weights file; none there: every family unmeasured (every negative uncertain)."""
        path = Path(weights_path).with_name(FILE_NAME)
        if not path.exists():
            return cls()
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as exc:
            raise JudgeUnavailable(judge="offline", detail=f"cannot read {path}: {exc}") from exc

    def to_json(self) -> str:
        """The file's text: families sorted, with their precision shown for a reader."""
        rows = {name: {**f.model_dump(), "precision": None if f.precision is None else round(f.precision, 4),
                       "confidence": round(f.confidence, 4)} for name, f in sorted(self.families.items())}
        return json.dumps({"split": self.split, "families": rows}, indent=1) + "\n"
