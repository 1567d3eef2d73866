"""Deciding whether a decoded answer is really an answer, or something else said.

A grammar forces any speech onto one of its answers, so every answer is
checked against what a free phone loop heard in the same audio. The
:class:`Features` of one decode are combined by a small logistic model whose
coefficients are fitted by ``tools/fit_rejection.py`` on a calibration set
(espeak-ng voices and words that the benchmark never uses, and half of the
real spoken digits) and stored in ``voicehost/data/speech_rejection.json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "speech_rejection.json"


@dataclass(frozen=True)
class Features:
    """Evidence about one decoded answer.

    diff
        Grammar acoustic log-likelihood minus the phone loop's, per speech frame
        (near 0 when the answer explains the audio as well as any sounds would).
    distance
        Phone edit distance between what the loop heard and the answer's
        pronunciation, over the answer's length.
    frames, phones
        Speech frames (10 ms) of the answer and phones in its pronunciation:
        their ratio tells an answer stretched over a longer word.
    loop_phones
        Phones the free loop heard.
    words
        Words in the decoded answer (carrier phrases included).
    """

    diff: float
    distance: float
    frames: int
    phones: int
    loop_phones: int
    words: int

    def vector(self) -> list[float]:
        """The inputs of the logistic model, in :data:`FEATURE_NAMES` order."""
        rate = self.frames / self.phones
        return [
            self.diff,
            self.distance,
            math.log(max(rate, 1.0)),
            math.log(max(self.loop_phones, 1) / self.phones),
        ]


#: No feature grows with the answer's length: the calibration answers are one
#: to three words, and a question may have longer ones (a card name).
FEATURE_NAMES = ("diff", "distance", "log_frames_per_phone", "log_loop_over_ref")


@dataclass
class RejectionModel:
    """``p(right) = sigmoid(bias + weights . standardised features)``; reject below ``threshold``."""

    weights: list[float]
    bias: float
    mean: list[float]
    scale: list[float]
    threshold: float
    meta: dict = field(default_factory=dict)

    def probability(self, f: Features) -> float:
        z = self.bias + sum(
            w * (x - m) / s for w, x, m, s in zip(self.weights, f.vector(), self.mean, self.scale)
        )
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def accept(self, f: Features) -> bool:
        return self.probability(f) >= self.threshold

    def to_json(self) -> dict:
        return {"features": list(FEATURE_NAMES), "weights": self.weights, "bias": self.bias,
                "mean": self.mean, "scale": self.scale, "threshold": self.threshold,
                "meta": self.meta}

    @classmethod
    def load(cls, path: Path = DATA) -> "RejectionModel | None":
        """The fitted model, or ``None`` when the data file is missing or for other features."""
        try:
            d = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            return None
        if tuple(d.get("features", ())) != FEATURE_NAMES:
            return None
        return cls(d["weights"], d["bias"], d["mean"], d["scale"], d["threshold"], d.get("meta", {}))
