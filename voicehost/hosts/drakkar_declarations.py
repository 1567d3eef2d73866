"""How a Drakkar table says what was played: sidecar files and the keyboard.

A declaration is "who played which card on which section, when" on the
sample clock. The slap is heard by the microphone; the declaration only
names the card, so the judge times the play by the slap when there is one
near the declaration (design.md 4.1).

Sources of declarations:

* a **sidecar** JSON for a recording (the demo, tests, or a table that
  recorded itself)::

      {"game": "drakkar",
       "setup": {"players": ["ann", "bo"], "deck": [...], "islands": [...], "variant": null},
       "declarations": [{"t": 7.41, "player": "ann", "card": "rower:red", "slot": 1},
                        {"t": 9.2, "type": "discard", "player": "bo", "card": "goblin"}]}

  ``setup`` is optional (without it the host deals from ``--seed``); a bare
  list of declarations is accepted too.
* the **keyboard**: one key per card kind, then the section (1, 2, 3);
  see :data:`KEYS`. Keys are stamped with the clock of the newest block.

* the **voice** (``--declare voice``): said right after the slap, checked
  with the player once the table has stopped singing; see
  :mod:`voicehost.hosts.drakkar_voice`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from voicehost.errors import VoicehostError
from voicehost.games.drakkar import CARD_NAMES, Card


class DeclarationError(VoicehostError):
    """A declarations sidecar (or a declaration in it) that cannot be used."""


PLAY = "play"
DISCARD = "discard"


@dataclass(frozen=True)
class Declaration:
    """A play (or discard) as the table declared it.

    ``card`` is as declared: a record name ("rower:red"), a spoken name
    ("red rower") or a bare kind ("rower") resolved against the hand.
    ``began`` is when a declaration of several keys began (its card key),
    ``t`` when it was complete (its section): a player who slaps the card
    and then types "k", "2" presses the section a third of a second or more
    after the card, and the card key may come before the slap instead.
    """

    t: float
    player: str | None
    card: str
    slot: int | None = None
    type: str = PLAY
    source: str = "sidecar"
    began: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": round(self.t, 4), "type": self.type,
                             "player": self.player, "card": self.card}
        if self.type == PLAY:
            d["slot"] = self.slot
        return d


@dataclass
class Sidecar:
    setup: dict[str, Any] | None
    declarations: list[Declaration] = field(default_factory=list)


_KIND_WORDS = {"rower", "goblin", "kraken", "dragon", "warrior", "crossbow", "whirlpool",
               "lookout"}


def normalise_card(name: str) -> str:
    """"Red Rower", "rower red", "rower:red" -> "rower:red"; "Kraken" -> "kraken"."""
    words = str(name).lower().replace(":", " ").replace("-", " ").split()
    colours = [w for w in words if w in ("red", "yellow")]
    kinds = [w for w in words if w in _KIND_WORDS]
    if len(kinds) != 1 or len(colours) > 1 or len(words) != len(kinds) + len(colours):
        return str(name).strip().lower()
    return kinds[0] + (f":{colours[0]}" if colours else "")


def resolve_card(hand: Sequence[Card], name: str) -> Card | None:
    """The card of ``hand`` a declaration names, or ``None`` if the hand holds none.

    A bare kind ("rower") takes the first such card received, whatever its colour.
    """
    norm = normalise_card(name)
    for card in hand:
        if str(card) == norm:
            return card
    if ":" not in norm:
        for card in hand:
            if card.kind.value == norm:
                return card
    return None


def known_card(name: str) -> bool:
    norm = normalise_card(name)
    return norm in CARD_NAMES or norm in _KIND_WORDS


def _check(i: int, item: Any, players: Sequence[str] | None, path: Path) -> Declaration:
    where = f"{path}: declaration {i + 1}"
    if not isinstance(item, dict):
        raise DeclarationError(f"{where} must be an object like "
                               '{"t": 7.4, "player": "ann", "card": "rower:red", "slot": 1}.')
    kind = item.get("type", PLAY)
    if kind not in (PLAY, DISCARD):
        raise DeclarationError(f"{where} has type {kind!r}; use \"play\" or \"discard\".")
    t = item.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise DeclarationError(f"{where} needs \"t\", its time in seconds from the start "
                               "of the recording.")
    player = item.get("player")
    if not isinstance(player, str) or not player:
        raise DeclarationError(f"{where} needs \"player\", the name of who played.")
    if players is not None and player not in players:
        raise DeclarationError(f"{where} names player {player!r}, who is not among the "
                               f"players ({', '.join(players)}).")
    card = item.get("card")
    if not isinstance(card, str) or not known_card(card):
        raise DeclarationError(f"{where} has card {card!r}; cards are named "
                               f"{', '.join(CARD_NAMES)}.")
    slot = item.get("slot")
    if kind == PLAY and (isinstance(slot, bool) or slot not in (1, 2, 3)):
        raise DeclarationError(f"{where} has slot {slot!r}; a section is 1, 2 or 3.")
    return Declaration(float(t), player, normalise_card(card), slot if kind == PLAY else None,
                       kind, "sidecar")


def load_sidecar(path: str | Path, players: Sequence[str] | None = None) -> Sidecar:
    """Read and check a declarations sidecar; one clear sentence on any problem."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeclarationError(f"{path}: no such declarations file; check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DeclarationError(f"{path}: cannot read it ({exc}).") from None
    except json.JSONDecodeError as exc:
        raise DeclarationError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
    setup = None
    items = data
    if isinstance(data, dict):
        if data.get("game", "drakkar") != "drakkar":
            raise DeclarationError(f"{path} declares a {data.get('game')!r} game, not Drakkar.")
        setup = data.get("setup")
        if setup is not None:
            if not isinstance(setup, dict) or not isinstance(setup.get("players"), list):
                raise DeclarationError(f"{path}: \"setup\" must be an object with \"players\", "
                                       "\"deck\" and \"islands\" (as in a game record).")
            players = [str(p) for p in setup["players"]]
        items = data.get("declarations")
    if not isinstance(items, list):
        raise DeclarationError(f"{path} must hold a list of declarations (or an object with "
                               "\"declarations\": [...]).")
    decls = [_check(i, item, players, path) for i, item in enumerate(items)]
    decls.sort(key=lambda d: d.t)
    return Sidecar(setup, decls)


# -- keyboard ----------------------------------------------------------------
#: One key per card kind (lower case); then 1, 2 or 3 for the section.
KEYS: dict[str, str] = {
    "r": "rower:red", "y": "rower:yellow",
    "g": "goblin", "k": "kraken", "d": "dragon",
    "w": "warrior:red", "e": "warrior:yellow",
    "c": "crossbow:red", "v": "crossbow:yellow",
    "p": "whirlpool", "l": "lookout",
}


def key_help() -> str:
    parts = [f"{k} {v.replace(':', ' ')}" for k, v in KEYS.items()]
    return "Keys: " + ", ".join(parts) + "; then the section 1, 2 or 3. Escape cancels."


@dataclass
class KeyParser:
    """Turns key presses into declarations: a card key, then a section key.

    Keyboard plays are the active player's (one keyboard at the table); a
    play by someone else is declared by first pressing their seat number
    with Shift (``!``, ``@``, ``#``, ``$`` for seats 1 to 4).
    """

    card: str | None = None
    seat: int | None = None
    card_t: float | None = None  # when the card key was pressed

    SEATS = {"!": 0, "@": 1, "#": 2, "$": 3}

    def feed(self, key: str, t: float) -> Declaration | str | None:
        """A declaration when complete, a hint (str) for a stray key, else None."""
        if key in ("\x1b",):
            self.card = self.seat = None
            return "Cancelled."
        if key in self.SEATS and self.card is None:
            self.seat = self.SEATS[key]
            return None
        k = key.lower()
        if k in KEYS:
            self.card, self.card_t = KEYS[k], t
            return None
        if k in ("1", "2", "3") and self.card is not None:
            card, seat = self.card, self.seat
            self.card = self.seat = None
            player = None if seat is None else f"#seat{seat}"
            return Declaration(t, player, card, int(k), PLAY, "keyboard", began=self.card_t)
        if k in ("1", "2", "3"):
            return "Press the card's key first, then the section."
        return None
