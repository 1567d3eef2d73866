"""Turning heard text into one of a question's answers.

A recogniser hands back words ("i vote for red", "seat three", "the anchors");
the host wants a choice ("red", "anchor"). Everything here is pure text work,
shared by both backends and by the grammars (which must accept exactly what
this module can parse), so it is tested without any audio.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Mapping, Sequence

#: Lead-in phrases a player may put before an answer. Longest first matters
#: only for readability; matching works on whole token runs.
CARRIERS: tuple[str, ...] = (
    "i vote for",
    "i vote",
    "vote for",
    "i accuse",
    "i choose",
    "i pick",
    "i say",
    "i think it's",
    "i think it is",
    "i guess",
    "my guess is",
    "it's",
    "it is",
    "number",
    "seat",
    "seat number",
    "player",
)

#: Words said after an answer that change nothing.
TRAILERS: tuple[str, ...] = ("please",)

ARTICLES = ("the", "a", "an", "some")

NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve",
)

#: Spellings recognisers and people use for the same word.
_SYNONYMS = {"oh": "zero", "nought": "zero", "grey": "gray", "its": "it's"}

YES_WORDS = ("yes", "yeah", "yep", "yup", "correct", "right", "sure")
NO_WORDS = ("no", "nope", "nah", "wrong")
DONE_WORDS = ("done", "finished", "i'm done", "i am done", "that's it")


def fold(text: str) -> str:
    """Lower case without accents ("Zoë" -> "zoe"), other scripts kept as they are.

    Why: a player called Zoë or José must be one word "zoe" / "jose" (the
    English models' dictionaries spell them so), not "zo" or "jos" with the
    accented letter dropped. Marks are taken off the decomposed letters and
    the rest composed again, so Hangul or Cyrillic words come back whole.
    """
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", text)


def tokens(text: str) -> list[str]:
    """Lower-case words of ``text``; digits become number words ("3" -> "three")."""
    text = fold(text)
    out: list[str] = []
    for tok in re.findall(r"[\w']+", text.replace("_", " ")):
        tok = tok.strip("'")
        if not tok:
            continue
        if tok.isdigit():
            n = int(tok)
            if n < len(NUMBER_WORDS):
                out.append(NUMBER_WORDS[n])
                continue
        out.append(_SYNONYMS.get(tok, tok))
    return out


def normalise(text: str) -> str:
    """Canonical spelling of a phrase: lower case, single spaces, digits as words."""
    return " ".join(tokens(text))


def singular(word: str) -> str:
    """A plural English noun's singular, by the common rules ("anchors" -> "anchor").

    Only used to match a guess against a known word bank, so an imperfect rule
    is harmless as long as both sides go through it.
    """
    w = word.lower()
    if len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    for plural, single in (("ies", "y"), ("ves", "f"), ("xes", "x"), ("ches", "ch"),
                           ("shes", "sh"), ("sses", "ss"), ("oes", "o")):
        if w.endswith(plural) and len(w) > len(plural) + 1:
            return w[: -len(plural)] + single
    if w.endswith("s"):
        return w[:-1]
    return w


def plural(word: str) -> str:
    """The regular plural of ``word`` (for grammars: "anchor" -> "anchors")."""
    w = word.lower()
    if w.endswith(("s", "x", "ch", "sh", "z")):
        return w + "es"
    if w.endswith("y") and len(w) > 1 and w[-2] not in "aeiou":
        return w[:-1] + "ies"
    return w + "s"


def normalise_guess(text: str) -> str:
    """A secret-word guess reduced to its bare singular noun: "the anchors" -> "anchor".

    Carrier phrases ("my guess is", "it's") and articles go; each remaining
    word is made singular.
    """
    words = strip_frame(tokens(text))
    while words and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(singular(w) for w in words)


def strip_frame(words: Sequence[str], carriers: Iterable[str] = CARRIERS) -> list[str]:
    """Remove one leading carrier phrase, leading articles and trailing "please"."""
    words = list(words)
    for carrier in sorted((tuple(c.split()) for c in carriers), key=len, reverse=True):
        if carrier and tuple(words[: len(carrier)]) == carrier:
            words = words[len(carrier):]
            break
    while words and words[0] in ARTICLES:
        words = words[1:]
    while words and words[-1] in TRAILERS:
        words = words[:-1]
    return words


def match_choice(
    text: str,
    phrases: Mapping[str, Sequence[str]],
    carriers: Iterable[str] = CARRIERS,
    singularise: bool = False,
) -> str | None:
    """The choice whose spoken form ``text`` is, or ``None``.

    ``phrases`` maps each choice to the phrases that mean it (already
    normalised). First the whole text (less its carrier) must equal one
    phrase; failing that, a choice is taken if exactly one choice's phrases
    occur in the text as a run of whole words, so free-form text such as
    "i think i vote for red" still counts while "red or blue" does not.
    """
    words = tokens(text)
    if not words:
        return None
    carriers = tuple(carriers)
    norm = (lambda ws: [singular(w) for w in ws]) if singularise else (lambda ws: list(ws))
    core = tuple(norm(strip_frame(words, carriers)))
    table: dict[tuple[str, ...], str] = {}
    for choice, forms in phrases.items():
        for form in forms:
            table.setdefault(tuple(norm(tokens(form))), choice)
    if core in table:
        return table[core]
    found = set()
    seq = norm(words)
    for form, choice in table.items():
        n = len(form)
        if n and any(tuple(seq[i : i + n]) == form for i in range(len(seq) - n + 1)):
            found.add(choice)
    return found.pop() if len(found) == 1 else None
