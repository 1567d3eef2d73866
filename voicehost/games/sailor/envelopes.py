"""Envelopes (a secret word and its story lines) and the word comparison.

Loading reads one package data file and is kept in :func:`load_envelopes`, the
only I/O in the Sunken Sailor rules; everything else takes envelopes as values,
so tests and other decks can hand the engine their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .errors import SetupError

LINES_PER_ENVELOPE = 7
MIN_ENVELOPES = 27

_ARTICLES = ("a", "an", "the")
_SIBILANTS = ("ss", "x", "zz", "ch", "sh")
_NOT_WORD = re.compile(r"[^\w\s'-]+")


def normalise_word(text: str) -> str:
    """Reduce a spoken or typed word to the form guesses are compared in.

    Lower case, outer punctuation and spaces dropped, a leading article ("a",
    "an", "the") dropped, and a plural ending removed: "es" after ss, x, zz, ch or
    sh, otherwise a final "s" (but not "ss"). "The Anchors" and "anchor" both
    become "anchor", "glasses" and "glass" both "glass", "horses" and "horse"
    both "horse" (words whose plural is irregular, or that end in a single "s",
    do not round-trip, so the bundled deck avoids them and a test checks it). The speech layer may
    use it on the word bank and on what it heard, so both sides agree.
    """
    words = _NOT_WORD.sub(" ", text.casefold()).replace("_", " ").split()
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    word = " ".join(words).strip("'-")
    if len(word) > 3 and word.endswith("es") and word[:-2].endswith(_SIBILANTS):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def same_word(guess: str, word: str) -> bool:
    """Whether a guess names the secret word, by :func:`normalise_word` on both."""
    return bool(normalise_word(guess)) and normalise_word(guess) == normalise_word(word)


@dataclass(frozen=True)
class Envelope:
    """One envelope: the secret word and the story lines dealt to the sailors.

    The lines are a tuple; a deck from :func:`parse_envelopes` always has 7 per
    envelope, each using the word. Record replay may make an envelope with no
    lines, since scoring needs only the word.
    """

    word: str
    lines: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(self.lines))


def _whole_word(word: str, line: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", line) is not None


def parse_envelopes(data: Any) -> tuple[Envelope, ...]:
    """Check a deck given as data (as in ``envelopes.json``) and return its envelopes.

    Each word is a single lower-case word, used once in the deck, and each of
    its 7 lines contains it verbatim, so every sailor's line really gives the
    word away.
    """
    items = data.get("envelopes") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise SetupError('An envelope deck must be a list of {"word": ..., "lines": [...]} objects.')
    deck: list[Envelope] = []
    seen: set[str] = set()
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("word"), str):
            raise SetupError(f'Envelope {number} has no "word"; each envelope needs a word and 7 lines.')
        word = item["word"]
        if not re.fullmatch(r"[a-z]+", word):
            raise SetupError(
                f"Envelope {number} has the word {word!r}; a word must be one lower-case word."
            )
        if normalise_word(word) in seen:
            raise SetupError(f"The word {word!r} is in the deck twice; each envelope needs its own word.")
        seen.add(normalise_word(word))
        lines = item.get("lines")
        if (
            not isinstance(lines, list)
            or len(lines) != LINES_PER_ENVELOPE
            or not all(isinstance(line, str) and line.strip() for line in lines)
        ):
            raise SetupError(
                f"The envelope for {word!r} needs exactly {LINES_PER_ENVELOPE} story lines."
            )
        for line in lines:
            if not _whole_word(word, line):
                raise SetupError(f"A story line for {word!r} does not use the word: {line!r}.")
        if len(set(lines)) != len(lines):
            raise SetupError(f"The envelope for {word!r} has the same story line twice.")
        deck.append(Envelope(word, tuple(lines)))
    return tuple(deck)


def load_envelopes() -> tuple[Envelope, ...]:
    """The bundled deck, from ``voicehost/data/envelopes.json``."""
    text = resources.files("voicehost").joinpath("data/envelopes.json").read_text(encoding="utf-8")
    return parse_envelopes(json.loads(text))


def words(envelopes: Iterable[Envelope]) -> list[str]:
    """The secret words of a deck, for a speech grammar's word bank."""
    return [envelope.word for envelope in envelopes]
