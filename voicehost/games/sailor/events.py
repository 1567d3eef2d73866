"""What happened, as values the host can speak, show and journal.

Every event has a ``type`` (snake case) and :meth:`Event.say`, a short English
sentence for the table. Events for the table never contain the secret word or
who the Drunken Sailor is until the votes are counted; the only event that
carries a secret, :class:`RoleDealt`, has ``public = False`` and a
``player``, and must go to that player's private channel (design.md 4.4).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .players import Player
from .scoring import Tally


def _names(players: tuple[Player, ...] | list[Player]) -> str:
    labels = [player.label for player in players]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def _plain(value: Any) -> Any:
    if isinstance(value, Player):
        return value.name
    if isinstance(value, Tally):
        return {
            "sailor": value.sailor.name,
            "counts": {player.name: n for player, n in value.counts.items()},
            "sailor_vote": _plain(value.sailor_vote),
            "accusers": [player.name for player in value.accusers],
            "votes_for_sailor": value.votes_for_sailor,
            "needed": value.needed,
            "unmasked": value.unmasked,
        }
    if isinstance(value, Mapping):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Event:
    """Base of all Sunken Sailor events."""

    public: ClassVar[bool] = True

    @property
    def type(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    def say(self) -> str:  # pragma: no cover - every event overrides it
        raise NotImplementedError

    @property
    def text(self) -> str:
        return self.say()

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a journal: type, text and the fields, players by name."""
        data: dict[str, Any] = {"type": self.type, "text": self.say(), "public": self.public}
        for item in fields(self):
            data[item.name] = _plain(getattr(self, item.name))
        return data


@dataclass(frozen=True)
class DeckReshuffled(Event):
    """Every envelope had been used, so the deck starts over (pass ``passes``)."""

    passes: int

    def say(self) -> str:
        return "Every envelope has been used; they are shuffled for another pass."


@dataclass(frozen=True)
class RoundStarted(Event):
    number: int
    starter: Player

    def say(self) -> str:
        return (
            f"Round {self.number}. The envelopes are dealt: read yours in private. "
            f"{self.starter.label} was most recently at sea and draws first."
        )


@dataclass(frozen=True)
class RoleDealt(Event):
    """A player's secret: their story line, or that they are the Drunken Sailor. Private."""

    public: ClassVar[bool] = False
    player: Player
    drunken_sailor: bool
    line: str | None

    def say(self) -> str:
        if self.drunken_sailor:
            return (
                f"{self.player.label}, you are the Drunken Sailor: you do not know the "
                "secret word. Draw along and do not get caught."
            )
        if self.line is None:
            return f"{self.player.label}, you are a sailor."
        return f"{self.player.label}, you are a sailor. Your line: {self.line}"


@dataclass(frozen=True)
class TurnCalled(Event):
    player: Player
    turn: int
    turns: int

    def say(self) -> str:
        second = "Second time around. " if self.turn == self.turns // 2 + 1 else ""
        return f"{second}{self.player.label}, your turn to draw."


@dataclass(frozen=True)
class AccusationsStarted(Event):
    def say(self) -> str:
        return "Drawing done. Reveal the drawing and discuss: who is the Drunken Sailor?"


@dataclass(frozen=True)
class VotingStarted(Event):
    def say(self) -> str:
        return "One, two, three: vote! Each player names a suspect."


@dataclass(frozen=True)
class VoteCast(Event):
    """``replaced`` is the suspect of the voter's earlier vote, if this corrects one."""

    voter: Player
    suspect: Player
    replaced: Player | None = None

    def say(self) -> str:
        if self.replaced is not None and self.replaced != self.suspect:
            return f"Corrected: {self.voter.label} accuses {self.suspect.label}."
        return f"{self.voter.label} accuses {self.suspect.label}."


def _votes(n: int) -> str:
    return f"{n} vote" if n == 1 else f"{n} votes"


@dataclass(frozen=True)
class VotesCounted(Event):
    """Every vote cast, per suspect, most first (the sailor's own vote included, as the
    table saw it; the majority is decided in the :class:`Unmasked` or :class:`NotUnmasked`
    that follows)."""

    counts: tuple[tuple[Player, int], ...]

    def say(self) -> str:
        if not self.counts:
            return "Nobody voted."
        return "The votes: " + ", ".join(f"{p.label} {n}" for p, n in self.counts) + "."


@dataclass(frozen=True)
class Unmasked(Event):
    """A strict majority of the other players named the Drunken Sailor. Reveals the role."""

    sailor: Player
    tally: Tally

    def say(self) -> str:
        return (
            f"{self.sailor.label} is unmasked as the Drunken Sailor, with "
            f"{self.tally.votes_for_sailor} of {self.tally.others} votes. "
            f"{self.sailor.label}, guess the secret word."
        )


@dataclass(frozen=True)
class NotUnmasked(Event):
    """No strict majority named the Drunken Sailor. Reveals the role (the round is over)."""

    sailor: Player
    tally: Tally

    def say(self) -> str:
        return (
            f"No majority: the Drunken Sailor was {self.sailor.label}, with "
            f"{_votes(self.tally.votes_for_sailor)} of {self.tally.others}, and "
            f"{self.tally.needed} were needed. {self.sailor.label} escapes."
        )


@dataclass(frozen=True)
class GuessMade(Event):
    """The unmasked Drunken Sailor's one guess; reveals the word."""

    sailor: Player
    guess: str | None
    word: str
    right: bool

    def say(self) -> str:
        if self.guess is None:
            return f"{self.sailor.label} makes no guess. The word was {self.word}."
        if self.right:
            return f"{self.sailor.label} guesses {self.guess}. Right! The word was {self.word}."
        return f"{self.sailor.label} guesses {self.guess}. Wrong: the word was {self.word}."


@dataclass(frozen=True)
class WordRevealed(Event):
    """After a round where nobody guessed, the host reveals the word."""

    word: str

    def say(self) -> str:
        return f"The secret word was {self.word}."


@dataclass(frozen=True)
class Points(Event):
    """Points gained this round, every player listed (0 included), seat order."""

    points: Mapping[Player, int]

    def say(self) -> str:
        scored = [(player, n) for player, n in self.points.items() if n]
        if not scored:
            return "Nobody scores this round."
        parts = [f"{player.label} scores {n}" for player, n in scored]
        return ". ".join(parts) + "."


@dataclass(frozen=True)
class Standings(Event):
    """Scores after the round, best first (seat order breaks ties)."""

    scores: tuple[tuple[Player, int], ...]

    def say(self) -> str:
        return "Scores: " + ", ".join(f"{player.label} {n}" for player, n in self.scores) + "."


@dataclass(frozen=True)
class MatchWon(Event):
    winners: tuple[Player, ...]

    def say(self) -> str:
        if len(self.winners) == 1:
            return f"{self.winners[0].label} wins the match!"
        return f"{_names(self.winners)} share the win!"
