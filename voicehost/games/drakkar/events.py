"""What happened in a play, for the host to say and the journal to keep.

Every event is a small frozen dataclass with a ``type`` string (the same
word a journal stores) and :meth:`Event.say`, one short English sentence.
Draws name who drew, never what: hands are private.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


def _name(player: str) -> str:
    """A player name as spoken at the start of a sentence."""
    return player[:1].upper() + player[1:]


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


@dataclass(frozen=True)
class Event:
    """Base class; subclasses set ``type`` and implement :meth:`say`."""

    type: ClassVar[str] = "event"

    def say(self) -> str:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    @property
    def text(self) -> str:
        return self.say()

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}


@dataclass(frozen=True)
class CardPlayed(Event):
    type: ClassVar[str] = "card_played"
    player: str
    card: str
    slot: int
    spoken: str = ""

    def say(self) -> str:
        return f"{_name(self.player)} plays {self.spoken or self.card} on section {self.slot}."


OUT_OF_RHYTHM = "out_of_rhythm"
OUT_OF_TURN = "out_of_turn"


@dataclass(frozen=True)
class Mistake(Event):
    """A play off the beat, or by someone whose turn it was not.

    The card stays (the play was legal, or it would have been refused) and
    the player draws nothing.
    """

    type: ClassVar[str] = "mistake"
    player: str
    kind: str

    def say(self) -> str:
        what = "out of rhythm" if self.kind == OUT_OF_RHYTHM else "out of turn"
        return f"Stop! {_name(self.player)} played {what}. The card stays, but no draw."


@dataclass(frozen=True)
class CardDrawn(Event):
    type: ClassVar[str] = "card_drawn"
    player: str

    def say(self) -> str:
        return f"{_name(self.player)} draws a card."


@dataclass(frozen=True)
class NoDraw(Event):
    """The player draws nothing: ``why`` is ``"mistake"`` or ``"hand_limit"``."""

    type: ClassVar[str] = "no_draw"
    player: str
    why: str

    def say(self) -> str:
        if self.why == "hand_limit":
            return f"{_name(self.player)} is at the hand limit and draws nothing."
        return f"{_name(self.player)} draws nothing."


@dataclass(frozen=True)
class TurnReversed(Event):
    type: ClassVar[str] = "turn_reversed"
    direction: int

    def say(self) -> str:
        way = "clockwise" if self.direction > 0 else "anticlockwise"
        return f"Whirlpool! Play now goes {way}."


@dataclass(frozen=True)
class ExtraTurn(Event):
    type: ClassVar[str] = "extra_turn"
    player: str

    def say(self) -> str:
        return f"Whirlpool! {_name(self.player)} plays again."


@dataclass(frozen=True)
class IslandRevealed(Event):
    type: ClassVar[str] = "island_revealed"
    name: str
    title: str
    ability: str | None
    number: int
    description: str = ""

    def say(self) -> str:
        ordinal = {1: "first", 2: "second", 3: "third"}.get(self.number, f"number {self.number}")
        return f"Land ho! The {ordinal} island is {self.title}: {self.description}."


@dataclass(frozen=True)
class ShipCleared(Event):
    type: ClassVar[str] = "ship_cleared"
    cards: int

    def say(self) -> str:
        return "The ship is cleared: three grey sections again. Warm up and sing!"


@dataclass(frozen=True)
class WarriorsReturned(Event):
    type: ClassVar[str] = "warriors_returned"
    count: int

    def say(self) -> str:
        if self.count == 1:
            return "Winter: 1 warrior goes back on top of the voyage deck."
        return f"Winter: {self.count} warriors go back on top of the voyage deck."


@dataclass(frozen=True)
class HandLimitChanged(Event):
    type: ClassVar[str] = "hand_limit_changed"
    limit: int

    def say(self) -> str:
        return f"The hand limit is now {self.limit}."


@dataclass(frozen=True)
class DiscardRequired(Event):
    type: ClassVar[str] = "discard_required"
    player: str
    count: int

    def say(self) -> str:
        return f"{_name(self.player)}, discard {_cards(self.count)} of your choice."


@dataclass(frozen=True)
class Discarded(Event):
    type: ClassVar[str] = "discarded"
    player: str
    card: str

    def say(self) -> str:
        return f"{_name(self.player)} discards a card."


@dataclass(frozen=True)
class PercussionistFlipped(Event):
    type: ClassVar[str] = "percussionist_flipped"
    colour: str

    def say(self) -> str:
        return f"The percussionist turns {self.colour}."


@dataclass(frozen=True)
class SongChanged(Event):
    type: ClassVar[str] = "song_changed"
    tums: int
    reversed: bool
    song: str

    def say(self) -> str:
        return f"The song is now: {self.song}."


@dataclass(frozen=True)
class GameWon(Event):
    type: ClassVar[str] = "game_won"
    islands: int

    def say(self) -> str:
        return "The third island! The crew has won the voyage."


@dataclass(frozen=True)
class GameLost(Event):
    type: ClassVar[str] = "game_lost"
    reason: str

    def say(self) -> str:
        return f"The voyage is lost. {self.reason}"


@dataclass(frozen=True)
class NextPlayer(Event):
    type: ClassVar[str] = "next_player"
    player: str

    def say(self) -> str:
        return f"{_name(self.player)}, your turn."


def singing_stops(events: list[Event]) -> bool:
    """True if these events stop the song (a mistake or a lookout's island).

    The host then restarts the song with the two warm-up bars; the chant
    tracker should expect the new :class:`SongChanged` song, if any.
    """
    return any(isinstance(e, (Mistake, IslandRevealed)) for e in events)
