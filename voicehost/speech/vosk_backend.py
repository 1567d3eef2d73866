"""Vosk (Kaldi), used when a model is installed: better acoustic models, same interface.

Each question becomes a runtime grammar: ``KaldiRecognizer(model, rate,
json_list)`` with every accepted phrase plus ``"[unk]"``, so speech outside
the answers comes back as ``[unk]`` (rejected) instead of being forced onto
the nearest answer. A known Vosk pitfall: words missing from the model's
vocabulary are silently dropped from the grammar. They are looked up when the
question is prepared and reported in :attr:`Prepared.missing`; a choice that
cannot be said at all is an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from voicehost.errors import ModelError
from voicehost.speech import models
from voicehost.speech.grammar import Question
from voicehost.speech.recognizer import Answer, Prepared

UNK = "[unk]"


def check_vocabulary(question: Question, knows: Callable[[str], bool]) -> tuple[set[str], list[str]]:
    """Split the question's words into known and missing; fail if a choice is unsayable."""
    known, missing = set(), []
    for word in question.vocabulary():
        (known.add(word) if knows(word) else missing.append(word))
    unsayable = [
        c for c in question.choices
        if not any(all(w in known for w in p.split()) for p in question.phrases[c])
    ]
    if unsayable:
        raise ModelError(
            f"the Vosk model's vocabulary lacks the words of {', '.join(repr(c) for c in unsayable)}; "
            "give those answers another name the model knows, or use --backend pocketsphinx "
            "(it generates pronunciations for new words)."
        )
    return known, missing


def grammar_json(question: Question, known: set[str], unk: bool = True) -> str:
    """The JSON phrase list for ``KaldiRecognizer``, ending with ``[unk]`` when the model has it.

    Written as UTF-8, not with ``\\u`` escapes: Vosk's own JSON reader takes
    an escaped word literally ("\\ud558\\ub098"), finds no such word and
    drops it, so an answer outside ASCII could never be heard.
    """
    return json.dumps(question.vosk_phrases(known) + ([UNK] if unk else []), ensure_ascii=False)


class VoskRecognizer:
    """Vosk with a per-question grammar; the model is loaded once, on first use."""

    name = "vosk"
    rate = 16000

    def __init__(self, model: str | Path | None = None):
        self.model_path = models.find_model(model)
        self._model = None

    @property
    def model(self):
        if self._model is None:
            try:
                import vosk
            except ImportError:  # pragma: no cover - declared dependency
                raise ModelError("Vosk is not installed; run `pip install vosk`.") from None
            vosk.SetLogLevel(-1)
            try:
                self._model = vosk.Model(str(self.model_path))
            except Exception:
                raise ModelError(
                    f"Vosk could not load the model in {self.model_path} (damaged or for "
                    f"another Vosk version); {models.GET_ONE}."
                ) from None
        return self._model

    def knows(self, word: str) -> bool:
        return self.model.vosk_model_find_word(word) >= 0

    def prepare(self, question: Question | Prepared) -> Prepared:
        """The question's grammar; its missing words (and a missing ``[unk]``) in ``missing``.

        A model whose graph has no ``[unk]`` word (some small models) cannot
        say "something else": Vosk would drop it from the grammar with a
        warning, and every sound would be forced onto an answer. That is
        reported like a missing word, so the user learns that this model
        rejects nothing (the host's spoken confirmations still catch it).
        """
        if isinstance(question, Prepared):
            return question
        known, missing = check_vocabulary(question, self.knows)
        unk = self.knows(UNK)
        if not unk:
            missing.append(UNK)
        return Prepared(question, missing, grammar_json(question, known, unk=unk))

    def recognize(self, samples: np.ndarray, question: Question | Prepared) -> Answer:
        import vosk

        prepared = self.prepare(question)
        rec = vosk.KaldiRecognizer(self.model, float(self.rate), prepared.handle)
        rec.SetWords(True)
        pad = np.zeros(int(0.2 * self.rate))
        x = np.concatenate([pad, np.asarray(samples, dtype=np.float64), pad])
        pcm = (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()
        texts, confs = [], []
        for i in range(0, len(pcm), 8000):
            if rec.AcceptWaveform(pcm[i : i + 8000]):
                _collect(json.loads(rec.Result()), texts, confs)
        _collect(json.loads(rec.FinalResult()), texts, confs)
        heard = " ".join(t for t in texts if t).strip()
        words = heard.split()
        if not words or UNK in words:
            return Answer(None, 0.0, heard, self.name)
        choice = prepared.question.parse(heard)
        conf = float(np.mean(confs)) if confs else 1.0
        return Answer(choice, conf if choice else 0.0, heard, self.name)


def _collect(result: dict, texts: list[str], confs: list[float]) -> None:
    texts.append(result.get("text", ""))
    confs.extend(float(w.get("conf", 1.0)) for w in result.get("result", []))
