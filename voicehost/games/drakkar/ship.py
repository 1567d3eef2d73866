"""The Drakkar itself: three central sections, what may cover what, and the song.

The bow ("Drakkar") and the stern (the percussionist) never hold cards; only
the three central sections do, each a stack whose top card is what counts.
The song is a pure function of the ship: every danger on top of a section
silences one Tum, and Whirlpool Island swaps bow and stern so the song ends
on "Drakkar".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .cards import Card, Clan, Kind, spoken_kind

SECTIONS = (1, 2, 3)
#: Name of a central section with nothing on it (records and ship output).
GREY = "grey"


def top(stack: Sequence[Card]) -> Card | None:
    """The visible card of a section, or None if it is still grey."""
    return stack[-1] if stack else None


def section_name(stack: Sequence[Card]) -> str:
    """``"grey"`` for an uncovered section, else the record name of its top card."""
    card = top(stack)
    return GREY if card is None else str(card)


def cover_refusal(card: Card, under: Card | None) -> str | None:
    """Why ``card`` may not go on a section showing ``under`` (None if it may).

    The placement rules of design.md section 1, lookouts excepted (they
    depend on the whole ship, see :func:`lookout_refusal`): rowers and
    whirlpools go on anything but a danger, dangers on anything but another
    danger, warriors on anything but the Dragon, crossbows on anything.
    """
    if under is None or card.kind is Kind.CROSSBOW or card.kind is Kind.LOOKOUT:
        return None
    target = spoken_kind(under.kind)
    if card.kind in (Kind.ROWER, Kind.WHIRLPOOL) and under.is_danger:
        return f"A {spoken_kind(card.kind)} cannot cover the {target}."
    if card.is_danger and under.is_danger:
        return (
            f"A {spoken_kind(card.kind)} cannot cover the {target}: "
            "a danger never goes on another danger."
        )
    if card.kind is Kind.WARRIOR and under.kind is Kind.DRAGON:
        return "A warrior cannot cover the Dragon: only a crossbow can."
    return None


def lookout_refusal(tops: Sequence[Card | None], colour: Clan | None = None) -> str | None:
    """Why a lookout may not be played on this ship (None if it may).

    All three central cards must show one clan colour; grey sections, dangers
    and whirlpools show none. In the percussionist variant ``colour`` is the
    percussionist's colour and the three must show exactly that one.
    """
    clans = {card.clan if card is not None else None for card in tops}
    if colour is not None:
        if clans != {colour}:
            return (
                f"A lookout needs all three sections {colour.value}, "
                "the percussionist's colour."
            )
        return None
    if len(clans) != 1 or None in clans:
        return "A lookout needs all three sections in one clan colour."
    return None


@dataclass(frozen=True)
class Song:
    """What the table sings for one bar.

    Attributes
    ----------
    tums : int
        Tums in the bar, 3 minus the dangers on top of the sections.
    reversed : bool
        True after Whirlpool Island: the Tums come first and the bar (and
        the play) ends on "Drakkar".
    """

    tums: int
    reversed: bool = False

    @property
    def text(self) -> str:
        words = ["Tum"] * self.tums
        words = words + ["Drakkar"] if self.reversed else ["Drakkar"] + words
        return " ".join(words)

    def __str__(self) -> str:
        return self.text


def song_of(sections: Sequence[Sequence[Card]], reversed: bool = False) -> Song:
    """The song for a ship: one Tum silenced per danger showing."""
    dangers = sum(1 for stack in sections if stack and stack[-1].is_danger)
    return Song(tums=len(SECTIONS) - dangers, reversed=reversed)
