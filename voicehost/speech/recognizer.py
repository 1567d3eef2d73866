"""One interface for both recognisers: a question and an utterance in, an :class:`Answer` out.

The host never cares which engine listened. A backend turns the question
into its own grammar (:meth:`Recognizer.prepare`, once per question, where
words the model cannot say are reported) and decodes one utterance of 16 kHz
mono float32 audio (:meth:`Recognizer.recognize`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from voicehost.errors import VoicehostError
from voicehost.speech.grammar import Question

BACKENDS = ("pocketsphinx", "vosk")


@dataclass(frozen=True)
class Answer:
    """What was heard, and which answer it is.

    ``choice`` is one of the question's choices, or ``None`` when the speech
    was outside the grammar, too unsure, or silence: then the host asks again.
    ``confidence`` is 0..1; ``heard`` is the decoded words ("" for nothing).
    """

    choice: str | None
    confidence: float
    heard: str
    backend: str = ""

    def to_json(self) -> dict:
        return {"heard": self.heard, "choice": self.choice,
                "confidence": round(float(self.confidence), 3), "backend": self.backend}


@dataclass
class Prepared:
    """A question compiled for one backend, and the words it could not take."""

    question: Question
    missing: list[str] = field(default_factory=list)
    handle: object = None


def missing_notes(backend: str, missing: list[str]) -> list[str]:
    """What a user should know about the words a model lacks, one sentence each."""
    notes = []
    words = [w for w in missing if w != "[unk]"]
    if words:
        notes.append(f"the {backend} model does not know the words {', '.join(words)}; "
                     "the answers and phrases using them are left out of its grammar.")
    if "[unk]" in missing:
        notes.append(f"the {backend} model has no [unk] word, so speech that is none of the "
                     "answers cannot be rejected: it is taken as the nearest answer.")
    return notes


class Recognizer(Protocol):
    """A speech recogniser restricted to one question's answers at a time."""

    name: str
    rate: int

    def prepare(self, question: Question) -> Prepared:
        """Compile ``question``; raises :class:`~voicehost.errors.ModelError` when no answer can be said."""

    def recognize(self, samples: np.ndarray, question: Question | Prepared) -> Answer:
        """Decode one utterance (mono float32 at :attr:`rate`)."""


def open_recognizer(backend: str = "auto", model: str | None = None) -> Recognizer:
    """The recogniser to use: ``"pocketsphinx"``, ``"vosk"`` or ``"auto"``.

    ``auto`` takes Vosk when a Vosk model is installed (or ``model`` is given)
    and PocketSphinx, whose wheel ships its English model, otherwise.
    """
    if backend == "auto":
        from voicehost.speech import models

        if model or os.environ.get(models.ENV_VAR) or models.discover():
            backend = "vosk"
        else:
            backend = "pocketsphinx"
    if backend == "pocketsphinx":
        from voicehost.speech.sphinx import SphinxRecognizer

        return SphinxRecognizer()
    if backend == "vosk":
        from voicehost.speech.vosk_backend import VoskRecognizer

        return VoskRecognizer(model)
    raise VoicehostError(
        f"unknown speech backend '{backend}'; use pocketsphinx, vosk or auto."
    )
