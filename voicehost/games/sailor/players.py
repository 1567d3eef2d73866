"""Players, their pencil colours and how a spoken or written reference finds one.

The host calls players by colour, while people at the table may answer with a
name, a colour or a seat number; :func:`resolve_player` is the one place that
turns any of those into a :class:`Player`, so the speech layer, the host and
record replay all agree on who was meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import SetupError, UnknownPlayer

#: The pencil colours, in the order the box lists them. Each may be used once.
COLOURS: tuple[str, ...] = (
    "red", "blue", "green", "yellow", "black", "white", "orange", "purple",
)

MIN_PLAYERS = 3
MAX_PLAYERS = 8

#: Seat numbers as a recogniser may write them.
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
}
_SEAT_PREFIXES = ("seat", "player", "number")


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class Player:
    """A person at the table: a name and a pencil colour (stored in lower case)."""

    name: str
    colour: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise SetupError("Every player needs a name that is not empty.")
        if not isinstance(self.colour, str) or _key(self.colour) not in COLOURS:
            raise SetupError(
                f"Player {self.name} has the pencil colour {self.colour!r}, which is not "
                f"one of {', '.join(COLOURS)}."
            )
        object.__setattr__(self, "colour", _key(self.colour))

    @property
    def label(self) -> str:
        """How the host calls this player aloud: by colour, capitalised ("Red")."""
        return self.colour.capitalize()

    def __str__(self) -> str:
        return self.label


def validate_players(players: Iterable[Player]) -> tuple[Player, ...]:
    """Check a table of players and return it as a tuple in seat order.

    Names are unique ignoring case; a name may not be a pencil colour or a
    number, because a vote naming "red" or "3" must mean exactly one player.
    """
    table = tuple(players)
    for player in table:
        if not isinstance(player, Player):
            raise SetupError(f"{player!r} is not a player; give each player a name and a colour.")
    if not MIN_PLAYERS <= len(table) <= MAX_PLAYERS:
        raise SetupError(
            f"Sunken Sailor needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(table)}."
        )
    names: dict[str, Player] = {}
    colours: dict[str, Player] = {}
    for player in table:
        key = _key(player.name)
        if key in COLOURS:
            raise SetupError(
                f"The name {player.name!r} is a pencil colour; give that player another name, "
                "since colours already name players."
            )
        if key.isdigit() or key in NUMBER_WORDS:
            raise SetupError(
                f"The name {player.name!r} is a number; give that player another name, "
                "since numbers name seats."
            )
        if key in names:
            raise SetupError(
                f"Two players are called {player.name!r} (names are compared ignoring case); "
                "give each player a different name."
            )
        if player.colour in colours:
            raise SetupError(
                f"Players {colours[player.colour].name} and {player.name} both have the pencil "
                f"colour {player.colour}; each colour may be used at most once."
            )
        names[key] = player
        colours[player.colour] = player
    return table


def resolve_player(players: Sequence[Player], ref: str | int | Player) -> Player:
    """Find the player a vote or a record means, by name, colour or seat number.

    Names and colours are compared ignoring case and surrounding spaces; a seat
    number is 1-based in seat order, given as an int, as digits ("3") or as a
    number word ("three"), optionally after "seat", "player" or "number".
    Raises :class:`UnknownPlayer` with a sentence a person understands.
    """
    if isinstance(ref, Player):
        if ref in players:
            return ref
        raise UnknownPlayer(f"{ref.name} ({ref.colour}) is not playing in this match.")
    if isinstance(ref, bool) or not isinstance(ref, (str, int)):
        raise UnknownPlayer(
            f"{ref!r} does not name a player; use a name, a pencil colour or a seat number."
        )
    if isinstance(ref, str):
        key = _key(ref)
        for player in players:
            if _key(player.name) == key:
                return player
        for player in players:
            if player.colour == key:
                return player
        words = key.split()
        if len(words) == 2 and words[0] in _SEAT_PREFIXES:
            key = words[1]
        if key in NUMBER_WORDS:
            key = str(NUMBER_WORDS[key])
        if not key.isdigit():
            raise UnknownPlayer(
                f"Nobody here is called or coloured {ref.strip()!r}; use a player's name, "
                "pencil colour or seat number."
            )
        seat = int(key)
    else:
        seat = ref
    if 1 <= seat <= len(players):
        return players[seat - 1]
    raise UnknownPlayer(
        f"There is no seat {seat}; seats are numbered 1 to {len(players)}."
    )
