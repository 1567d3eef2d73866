"""Voyage cards: what a card is, its clan, and the names people and records use.

A card is a value (:class:`Card` is a frozen dataclass), so two red rowers are
equal and interchangeable: the rules never need to tell copies apart, and a
hand or a deck is simply a list of values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Clan(str, Enum):
    """The two clan colours. Rowers and defences carry one; nothing else does."""

    RED = "red"
    YELLOW = "yellow"

    def other(self) -> "Clan":
        """The opposite colour (the percussionist flips to it at each island)."""
        return Clan.YELLOW if self is Clan.RED else Clan.RED


class Kind(str, Enum):
    """Card kinds, named as in records (``"rower"``, ``"kraken"`` ...)."""

    ROWER = "rower"
    GOBLIN = "goblin"
    KRAKEN = "kraken"
    DRAGON = "dragon"
    WARRIOR = "warrior"
    CROSSBOW = "crossbow"
    WHIRLPOOL = "whirlpool"
    LOOKOUT = "lookout"


DANGERS = frozenset({Kind.GOBLIN, Kind.KRAKEN, Kind.DRAGON})
DEFENCES = frozenset({Kind.WARRIOR, Kind.CROSSBOW})
#: Kinds printed in a clan colour (the rest have none).
CLAN_KINDS = frozenset({Kind.ROWER, Kind.WARRIOR, Kind.CROSSBOW})

# How the host names a kind aloud. The Kraken and the Dragon are creatures
# with a proper name on the card, so they keep their capital.
_SPOKEN = {
    Kind.ROWER: "rower",
    Kind.GOBLIN: "goblin",
    Kind.KRAKEN: "Kraken",
    Kind.DRAGON: "Dragon",
    Kind.WARRIOR: "warrior",
    Kind.CROSSBOW: "crossbow",
    Kind.WHIRLPOOL: "whirlpool",
    Kind.LOOKOUT: "lookout",
}


def spoken_kind(kind: Kind) -> str:
    """The kind as the host says it ("rower", "Kraken")."""
    return _SPOKEN[kind]


@dataclass(frozen=True)
class Card:
    """One voyage card.

    Parameters
    ----------
    kind : Kind
        What the card is.
    clan : Clan or None
        Its colour; required for rowers, warriors and crossbows and forbidden
        for the others, so that a card can never be half-described.
    """

    kind: Kind
    clan: Clan | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            object.__setattr__(self, "kind", Kind(self.kind))
        if self.clan is not None and not isinstance(self.clan, Clan):
            object.__setattr__(self, "clan", Clan(self.clan))
        if self.kind in CLAN_KINDS and self.clan is None:
            raise ValueError(f"A {spoken_kind(self.kind)} needs a clan colour (red or yellow).")
        if self.kind not in CLAN_KINDS and self.clan is not None:
            raise ValueError(f"A {spoken_kind(self.kind)} has no clan colour.")

    @classmethod
    def parse(cls, name: str) -> "Card":
        """Read a record name such as ``"warrior:red"`` or ``"goblin"``.

        Raises
        ------
        ValueError
            With a sentence naming the known cards, if ``name`` is not one.
        """
        if not isinstance(name, str):
            raise ValueError(f"A card name must be text, not {name!r}.")
        kind_name, sep, clan_name = name.strip().lower().partition(":")
        try:
            kind = Kind(kind_name)
            clan = Clan(clan_name) if sep else None
            return cls(kind, clan)
        except ValueError:
            raise ValueError(
                f"Unknown card {name!r}: cards are named {', '.join(CARD_NAMES)}."
            ) from None

    def __str__(self) -> str:
        return self.kind.value if self.clan is None else f"{self.kind.value}:{self.clan.value}"

    @property
    def is_danger(self) -> bool:
        return self.kind in DANGERS

    @property
    def is_defence(self) -> bool:
        return self.kind in DEFENCES

    @property
    def spoken(self) -> str:
        """How the host names the card: "red rower", "Kraken", "lookout"."""
        word = spoken_kind(self.kind)
        return word if self.clan is None else f"{self.clan.value} {word}"


#: Every card name a record may use, in a stable order.
CARD_NAMES: tuple[str, ...] = tuple(
    f"{kind.value}:{clan.value}" if kind in CLAN_KINDS else kind.value
    for kind in Kind
    for clan in ((Clan.RED, Clan.YELLOW) if kind in CLAN_KINDS else (None,))
)
