"""Game records: read one, check it, and replay it through the rules alone.

A record is the fixed setup (players, the whole deck top first before
dealing, the three face-down islands, the variant) and the plays heard at
the table::

    {"game": "drakkar", "players": ["ann", "bo", "cy"], "variant": null,
     "deck": ["rower:red", "goblin", ...], "islands": ["winter", "calm", "whirlpool"],
     "events": [{"type": "play", "player": "ann", "card": "goblin", "slot": 2,
                 "timing": "on_beat"},
                {"type": "discard", "player": "bo", "card": "rower:red"}, ...]}

A malformed record raises :class:`~voicehost.errors.RecordError` with one
sentence. A well-formed play the rules refuse is not an error: it is listed
in ``rejected``, changes nothing, and the same player may play again. When an
Inhospitable Island leaves discards owed and the record does not say which
cards went before the next play, each player drops the cards received most
recently (listed in ``defaulted_discards``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from voicehost.errors import RecordError

from .cards import CARD_NAMES, Card
from .config import DrakkarConfig, load_config
from .events import Event
from .rules import (
    TIMINGS,
    DrakkarState,
    IllegalPlay,
    default_discards,
    discard,
    from_setup,
    play,
)
from .ship import SECTIONS, section_name

FIELDS = ("game", "players", "variant", "deck", "islands", "events")
PLAY_FIELDS = ("player", "card", "slot", "timing")
DISCARD_FIELDS = ("player", "card")


@dataclass
class Replay:
    """The outcome of a replay: the final state and how it was reached."""

    state: DrakkarState
    events: list[Event] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    defaulted_discards: list[dict[str, Any]] = field(default_factory=list)


def _card(name: Any, where: str) -> Card:
    try:
        return Card.parse(name)
    except ValueError:
        raise RecordError(
            f"{where} is {name!r}, which is not a card: cards are named "
            f"{', '.join(CARD_NAMES)}."
        ) from None


def _check_event(i: int, event: Any, players: list[str]) -> dict[str, Any]:
    where = f"events[{i}]"
    if not isinstance(event, Mapping):
        raise RecordError(f"{where} must be an object such as "
                          '{"type": "play", "player": ..., "card": ..., "slot": 1, '
                          '"timing": "on_beat"}.')
    kind = event.get("type")
    if kind not in ("play", "discard"):
        raise RecordError(
            f"{where} has type {kind!r}: a Drakkar record knows \"play\" and \"discard\" events."
        )
    needed = PLAY_FIELDS if kind == "play" else DISCARD_FIELDS
    for key in needed:
        if key not in event:
            raise RecordError(
                f"{where} has no {key!r} field: a {kind} event needs {', '.join(needed)}."
            )
    player = event["player"]
    if not isinstance(player, str) or player not in players:
        raise RecordError(
            f"{where} names player {player!r}, who is not among the players "
            f"({', '.join(players)})."
        )
    checked = {"type": kind, "player": player, "card": _card(event["card"], f"The card of {where}")}
    if kind == "play":
        slot = event["slot"]
        if isinstance(slot, bool) or not isinstance(slot, int) or slot not in SECTIONS:
            raise RecordError(f"{where} has slot {slot!r}: a slot is 1, 2 or 3.")
        timing = event["timing"]
        if timing not in TIMINGS:
            raise RecordError(f"{where} has timing {timing!r}: timing is on_beat or off_beat.")
        checked.update(slot=slot, timing=timing)
    return checked


def check_record(
    record: Any, config: DrakkarConfig | None = None
) -> tuple[DrakkarState, list[dict[str, Any]]]:
    """Check a record's shape and return its starting state and its events.

    Raises
    ------
    RecordError
        One sentence saying what is wrong, for the first problem found.
    """
    config = config or load_config()
    if not isinstance(record, Mapping):
        raise RecordError(
            "A Drakkar record must be a JSON object with " + ", ".join(FIELDS) + "."
        )
    for key in FIELDS:
        if key not in record:
            raise RecordError(
                f"The record has no {key!r} field: a Drakkar record needs "
                + ", ".join(FIELDS) + "."
            )
    if record["game"] != "drakkar":
        raise RecordError(
            f"This is a {record['game']!r} record, not a Drakkar one "
            "(its \"game\" must be \"drakkar\")."
        )
    for key in ("players", "deck", "islands", "events"):
        if not isinstance(record[key], list):
            raise RecordError(f"The record's {key!r} must be a list.")
    deck = [_card(name, f"Deck card {i + 1}") for i, name in enumerate(record["deck"])]
    try:
        state = from_setup(record["players"], deck, record["islands"], record["variant"], config)
    except ValueError as error:
        raise RecordError(str(error)) from None
    events = [_check_event(i, e, list(state.players)) for i, e in enumerate(record["events"])]
    return state, events


def replay(record: Any, config: DrakkarConfig | None = None) -> Replay:
    """Replay a record through the rules; the final state is ``.state``."""
    result = None
    for result in replay_steps(record, config):
        pass
    assert result is not None  # replay_steps yields the start before any event
    return result


def replay_steps(record: Any, config: DrakkarConfig | None = None) -> Iterator[Replay]:
    """The replay as it goes: the start, then after each of the record's events.

    One :class:`Replay` updated in place and yielded once before the first
    event and once after each (a refused play too, listed in ``rejected``),
    so the ``n``-th yield after the first follows the record's ``n``-th event:
    what a game's song was from each play on, say, for judging its recording
    again.
    """
    state, actions = check_record(record, config)
    result = Replay(state)
    yield result
    for index, action in enumerate(actions):
        try:
            if action["type"] == "play":
                if result.state.pending_discards and not result.state.is_over:
                    result.state, settled = default_discards(result.state)
                    result.events += settled
                    result.defaulted_discards += [
                        {"before": index, "player": e.player, "card": e.card} for e in settled
                    ]
                result.state, events = play(
                    result.state, action["player"], action["card"], action["slot"],
                    action["timing"],
                )
            else:
                result.state, events = discard(result.state, action["player"], action["card"])
        except IllegalPlay as refusal:
            result.rejected.append({"index": index, "why": refusal.reason})
            yield result
            continue
        result.events += events
        yield result


def replay_output(result: Replay) -> dict[str, Any]:
    """The replay output of the record contract (plus a few added fields)."""
    state = result.state
    song = state.song
    return {
        "result": state.result,
        "reason": state.reason,
        "islands_found": len(state.islands_found),
        "song": song.text,
        "tums": song.tums,
        "ship": [section_name(stack) for stack in state.ship],
        "hands": {p: [str(c) for c in state.hands[p]] for p in state.players},
        "deck_left": len(state.deck),
        "next_player": None if state.is_over else state.turn,
        "rejected": list(result.rejected),
        # Added fields.
        "islands": [island.name for island in state.islands_found],
        "reversed": song.reversed,
        "direction": "clockwise" if state.direction > 0 else "anticlockwise",
        "hand_limit": state.hand_limit,
        "percussionist": state.percussionist.value if state.percussionist else None,
        "pending_discards": dict(state.pending_discards),
        "discard_pile": len(state.discard_pile),
        "defaulted_discards": list(result.defaulted_discards),
    }


def replay_record(record: Any, config: DrakkarConfig | None = None) -> dict[str, Any]:
    """Replay a record and return the replay output (see module docstring).

    Raises
    ------
    RecordError
        For a malformed record.
    """
    return replay_output(replay(record, config))


def setup_record(state: DrakkarState) -> dict[str, Any]:
    """A record holding ``state``'s setup and no events yet (for a journal)."""
    setup = state.setup
    return {
        "game": "drakkar",
        "players": list(setup.players),
        "variant": setup.variant,
        "deck": [str(card) for card in setup.deck],
        "islands": [island.name for island in setup.islands],
        "events": [],
    }


def play_event(player: str, card: Card | str, slot: int, timing: str = "on_beat") -> dict:
    """A record's play event."""
    return {"type": "play", "player": player, "card": str(card), "slot": slot, "timing": timing}


def discard_event(player: str, card: Card | str) -> dict:
    """A record's discard event."""
    return {"type": "discard", "player": player, "card": str(card)}
