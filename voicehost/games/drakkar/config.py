"""House defaults: card counts, hand sizes and islands, from one data file.

The engine never reads files itself: it is handed a :class:`DrakkarConfig`.
:func:`load_config` is the one small place that reads the package's own
``voicehost/data/drakkar.json`` (or a group's copy of it) and checks it, so a
typo in a hand-edited file is reported as one sentence, not as a wrong game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from voicehost.errors import VoicehostError

from .cards import Card, Kind
from .islands import Island


class DrakkarConfigError(VoicehostError):
    """The Drakkar data file cannot be used; the message says which entry."""


@dataclass(frozen=True)
class DrakkarConfig:
    """Everything a group may change to match its printed game.

    Attributes
    ----------
    deck : tuple of (Card, int)
        How many of each voyage card, lookouts excepted.
    lookouts : int
        Number of lookouts; the shuffled deck is split into ``lookouts + 1``
        piles and one lookout goes into each pile but the last.
    islands : tuple of Island
        The island cards, one entry per printed card (copies repeat).
    hand_size, hand_size_two_players : int
        Cards dealt to each player; this is also the starting hand limit.
    min_players, max_players : int
    """

    deck: tuple[tuple[Card, int], ...]
    lookouts: int
    islands: tuple[Island, ...]
    hand_size: int = 3
    hand_size_two_players: int = 4
    min_players: int = 2
    max_players: int = 4

    def deal_size(self, n_players: int) -> int:
        return self.hand_size_two_players if n_players == 2 else self.hand_size

    def island(self, name: str) -> Island:
        """The island called ``name``; KeyError if the data file has none."""
        for island in self.islands:
            if island.name == name:
                return island
        raise KeyError(name)

    @property
    def island_names(self) -> tuple[str, ...]:
        return tuple(sorted({island.name for island in self.islands}))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DrakkarConfig":
        """Build and check a config from the parsed data file."""
        try:
            return _from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if isinstance(error, KeyError):
                error = f"missing entry {error.args[0]!r}"
            raise DrakkarConfigError(
                f"The Drakkar data file is not usable ({error}); "
                "compare it with voicehost/data/drakkar.json."
            ) from None


def _count(value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{what} must be a whole number of at least {minimum}, not {value!r}")
    return value


def _from_dict(data: Mapping[str, Any]) -> DrakkarConfig:
    deck = []
    for name, count in data["deck"].items():
        card = Card.parse(name)
        if card.kind is Kind.LOOKOUT:
            raise ValueError("lookouts are counted by 'lookouts', not in 'deck'")
        deck.append((card, _count(count, f"the count of {name}")))
    islands = []
    names = set()
    for entry in data["islands"]:
        name = entry["name"]
        if not isinstance(name, str) or not name or name in names:
            raise ValueError(f"island names must be distinct, non-empty text ({name!r})")
        names.add(name)
        island = Island(
            name=name,
            title=str(entry.get("title", f"{name} island")),
            ability=entry.get("ability"),
            hand_limit=entry.get("hand_limit"),
        )
        islands.extend([island] * _count(entry.get("count", 1), f"the count of island {name}"))
    hand = data.get("hand_size", {})
    players = data.get("players", {})
    config = DrakkarConfig(
        deck=tuple(deck),
        lookouts=_count(data["lookouts"], "lookouts", 1),
        islands=tuple(islands),
        hand_size=_count(hand.get("default", 3), "hand_size.default", 1),
        hand_size_two_players=_count(hand.get("two_players", 4), "hand_size.two_players", 1),
        min_players=_count(players.get("min", 2), "players.min", 2),
        max_players=_count(players.get("max", 4), "players.max", 2),
    )
    if len(config.islands) < 3:
        raise ValueError("at least three island cards are needed (the third one wins)")
    if config.min_players > config.max_players:
        raise ValueError("players.min is larger than players.max")
    return config


def load_config(path: str | Path | None = None) -> DrakkarConfig:
    """Read the Drakkar data file.

    Parameters
    ----------
    path : str or Path, optional
        A group's own copy; by default the package's ``data/drakkar.json``.

    Raises
    ------
    DrakkarConfigError
        If the file is missing, not JSON, or describes an impossible game.
    """
    try:
        if path is None:
            text = resources.files("voicehost").joinpath("data/drakkar.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as error:
        where = path or "voicehost/data/drakkar.json"
        raise DrakkarConfigError(f"Cannot read the Drakkar data file {where}: {error}.") from None
    if not isinstance(data, dict):
        raise DrakkarConfigError("The Drakkar data file must hold one JSON object.")
    return DrakkarConfig.from_dict(data)
