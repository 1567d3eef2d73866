"""What each page shows, built from the games' objects by duck typing.

The pages' contract lives here, in one place: a Sunken Sailor secret is
``{"role", "word", "line", "note"}``, a Drakkar hand is ``{"hand", "turn",
"your_turn"}``. Nothing here imports the rules; a host passes its round or
state and these read the few attributes they need.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from voicehost.companion.hub import Companion


def sailor_secret(drunken_sailor: bool, word: str | None, line: str | None,
                  round_number: int | None = None) -> dict:
    """One player's secret for the Sunken Sailor page (``round`` tells a new deal apart)."""
    if drunken_sailor:
        return {"role": "the Drunken Sailor", "word": None, "line": None, "round": round_number,
                "note": "You do not know the secret word. Draw along and do not get caught."}
    return {"role": "a sailor", "word": word, "line": line, "round": round_number,
            "note": "Keep the word secret; draw so the other sailors know you know it."}


def publish_sailor_roles(companion: Companion, round_: Any) -> None:
    """Send every player of a Sunken Sailor round their own role (and only theirs).

    ``round_`` is a ``voicehost.games.sailor`` round: ``players``, ``word``
    and ``role(player)`` giving ``drunken_sailor`` and ``line``. Seats are
    named by the players' names.
    """
    for player in round_.players:
        role = round_.role(player)
        word = None if role.drunken_sailor else round_.word
        companion.publish_private(player.name, sailor_secret(
            role.drunken_sailor, word, role.line, getattr(round_, "number", None)))


def drakkar_hand(state: Any, player: str) -> dict:
    """One player's hand for the Drakkar page (``state.hands``, ``state.turn``).

    ``discard`` is how many cards the player holds above ``state.hand_limit``
    (Inhospitable Island): the page then offers to discard the chosen card.
    """
    turn = getattr(state, "turn", None)
    hand = [str(card) for card in state.hands.get(player, ())]
    limit = getattr(state, "hand_limit", None)
    extra = max(0, len(hand) - limit) if isinstance(limit, int) else 0
    return {"hand": hand, "turn": turn, "your_turn": turn == player, "discard": extra}


@dataclass
class HandSync:
    """Publishes Drakkar hands when they change; call :meth:`sync` after each step."""

    companion: Companion
    _sent: dict = field(default_factory=dict)

    def sync(self, state: Any) -> None:
        for player in state.players:
            payload = drakkar_hand(state, str(player))
            if self._sent.get(player) != payload:
                self.companion.publish_private(str(player), payload)
                self._sent[player] = payload
