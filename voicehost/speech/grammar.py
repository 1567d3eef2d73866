"""Questions: a small, known set of answers, and the grammars that accept only them.

Every question the host asks has a handful of possible answers, so the
recognisers search only those (plus the carrier phrases people wrap them in)
instead of the whole language: that is what makes a 40 MB embedded model
usable at a noisy table. The host builds the question (it knows the players'
colours, names and seats); this module knows nothing of the games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from voicehost.errors import VoicehostError
from voicehost.speech import parsing


class QuestionError(VoicehostError):
    """A question that cannot be asked (no choices, empty or clashing answers)."""


@dataclass(frozen=True)
class Question:
    """What may be answered, and the words that mean each answer.

    Attributes
    ----------
    choices
        The canonical answers, in the host's spelling; an :class:`Answer`'s
        ``choice`` is always one of these (or ``None``).
    phrases
        For each choice, every normalised phrase that means it (the choice
        itself, a player's name, "three" for seat three ...).
    carriers
        Lead-in phrases allowed before an answer ("i vote", "seat").
    singularise
        Plural and singular forms are the same answer (secret-word guesses).
    """

    choices: tuple[str, ...]
    phrases: Mapping[str, tuple[str, ...]]
    carriers: tuple[str, ...] = parsing.CARRIERS
    singularise: bool = False
    name: str = "answer"

    @classmethod
    def build(
        cls,
        choices: Sequence[str],
        aliases: Mapping[str, Sequence[str]] | None = None,
        carriers: Sequence[str] = parsing.CARRIERS,
        singularise: bool = False,
        name: str = "answer",
    ) -> "Question":
        """A question from its choices and, optionally, other ways to say each one.

        >>> q = Question.build(["red", "blue"], aliases={"red": ["alice", "one"]})
        >>> q.parse("I vote Alice")
        'red'
        """
        if isinstance(choices, str):
            choices = [c for c in choices.split(",")]
        cleaned = [c.strip() for c in choices]
        if not cleaned or any(not parsing.normalise(c) for c in cleaned):
            raise QuestionError(
                "a question needs at least one non-empty answer; give choices like "
                "--choices red,blue,green."
            )
        if len(set(cleaned)) != len(cleaned):
            raise QuestionError(f"the answers {cleaned} repeat a choice; give each once.")
        aliases = dict(aliases or {})
        unknown = set(aliases) - set(cleaned)
        if unknown:
            raise QuestionError(f"aliases given for {sorted(unknown)}, which are not choices.")
        phrases: dict[str, tuple[str, ...]] = {}
        owner: dict[str, str] = {}
        for choice in cleaned:
            forms: list[str] = []
            for form in [choice, *aliases.get(choice, ())]:
                norm = parsing.normalise(form)
                if singularise:
                    norm = " ".join(parsing.singular(w) for w in norm.split())
                if not norm or norm in forms:
                    continue
                if norm in owner and owner[norm] != choice:
                    raise QuestionError(
                        f"'{form}' would mean both '{owner[norm]}' and '{choice}'; "
                        "give each answer words of its own."
                    )
                owner[norm] = choice
                forms.append(norm)
            phrases[choice] = tuple(forms)
        return cls(tuple(cleaned), phrases, tuple(carriers), singularise, name)

    @classmethod
    def yes_no(cls) -> "Question":
        """Yes or no, with the usual informal forms."""
        return cls.build(
            ["yes", "no"],
            aliases={"yes": parsing.YES_WORDS, "no": parsing.NO_WORDS},
            carriers=(), name="yes_no",
        )

    @classmethod
    def done(cls) -> "Question":
        """A player saying they have finished ("done", "finished")."""
        return cls.build(["done"], aliases={"done": parsing.DONE_WORDS}, carriers=(),
                         name="done")

    @classmethod
    def word_guess(cls, bank: Sequence[str]) -> "Question":
        """A guess of a secret word from ``bank``: plural and articles allowed."""
        return cls.build(
            [parsing.singular(parsing.normalise(w)) for w in bank],
            carriers=("my guess is", "i guess", "i think it's", "it's", "it is", "is it"),
            singularise=True, name="word",
        )

    # -- what the recognisers need ------------------------------------------

    def spoken_forms(self) -> list[tuple[str, str]]:
        """``(phrase, choice)`` for every phrase the grammar accepts as a core answer.

        With ``singularise`` the plural of each one-word form is added too.
        """
        out = []
        for choice in self.choices:
            for form in self.phrases[choice]:
                out.append((form, choice))
                if self.singularise:
                    words = form.split()
                    words[-1] = parsing.plural(words[-1])
                    out.append((" ".join(words), choice))
        return out

    def vocabulary(self) -> list[str]:
        """Every word the grammar may contain, sorted, for dictionary checks."""
        words = set()
        for form, _ in self.spoken_forms():
            words.update(form.split())
        for carrier in self.carriers:
            words.update(carrier.split())
        words.update(parsing.TRAILERS)
        if self.singularise:
            words.update(parsing.ARTICLES)
        return sorted(words)

    def parse(self, text: str) -> str | None:
        """The choice that ``text`` says, or ``None``."""
        return parsing.match_choice(text, self.phrases, self.carriers, self.singularise)

    def jsgf(
        self,
        words_ok: set[str] | None = None,
        garbage: Sequence[str] = (),
        carriers: bool | None = None,
    ) -> str:
        """A JSGF grammar: ``[carrier] [article] answer [please]``, or one garbage word.

        ``words_ok`` limits it to words the recogniser can pronounce; phrases
        with another word are left out (the caller reports them). ``garbage``
        words are alternatives to the whole answer, for rejection.
        ``carriers`` False leaves the lead-ins out, True makes one required
        (PocketSphinx decodes the two apart: optional lead-ins let its search
        hallucinate "i pick" out of a breath before a bare answer).
        """
        def fine(phrase: str) -> bool:
            return words_ok is None or all(w in words_ok for w in phrase.split())

        answers = sorted({form for form, _ in self.spoken_forms() if fine(form)})
        if not answers:
            raise QuestionError(
                "none of the answers can be recognised (their words are unknown to the "
                "speech model); choose answers that are ordinary English words."
            )
        lead_ins = sorted({c for c in self.carriers if fine(c)}) if carriers is not False else []
        lines = ["#JSGF V1.0;", f"grammar {_ident(self.name)};"]
        body = "<choice>"
        if self.singularise and fine("the a an"):
            body = "[the | a | an] " + body
        lead = ""
        if lead_ins:
            lead = "<carrier>" if carriers else ""
            body = ("<carrier> " if carriers else "[<carrier>] ") + body
            lines.append("<carrier> = " + " | ".join(lead_ins) + ";")
        elif carriers:
            raise QuestionError("this question has no lead-in phrases to require.")
        lines.append("<choice> = " + " | ".join(answers) + ";")
        if garbage:
            lines.append("<garbage> = " + " | ".join(sorted(set(garbage))) + ";")
            body = f"{lead} (<choice> | <garbage>)" if lead else f"({body}) | <garbage>"
        lines.append(f"public <utterance> = {body};")
        return "\n".join(lines) + "\n"

    def vosk_phrases(self, words_ok: set[str] | None = None) -> list[str]:
        """Phrases for Vosk's grammar list: every answer alone and with each carrier."""
        def fine(phrase: str) -> bool:
            return words_ok is None or all(w in words_ok for w in phrase.split())

        answers = sorted({form for form, _ in self.spoken_forms() if fine(form)})
        out = list(answers)
        for carrier in self.carriers:
            if fine(carrier):
                out.extend(f"{carrier} {a}" for a in answers)
        return out


def _ident(name: str) -> str:
    ident = "".join(ch if ch.isalnum() else "_" for ch in name) or "answer"
    return ident if ident[0].isalpha() else "q_" + ident


@dataclass
class Vocabulary:
    """Which words of a question a model knows, and which it cannot say."""

    known: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)

    def unreachable(self, question: Question) -> list[str]:
        """Choices none of whose phrases can be recognised."""
        return [
            c for c in question.choices
            if not any(all(w in self.known for w in p.split()) for p in question.phrases[c])
        ]
