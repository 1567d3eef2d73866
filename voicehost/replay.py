"""Replay a game record through the rules alone: the state a record describes.

A record is how a test, a journal or a person states a game; this module only
checks which game it is and hands it to that game's rules.
"""

from __future__ import annotations

from typing import Any

from voicehost.errors import RecordError

GAMES = ("drakkar", "sailor")


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """The state after every event of ``record``, as the record formats define it."""
    if not isinstance(record, dict):
        raise RecordError('a game record is a JSON object with a "game" field.')
    game = record.get("game")
    if game is None:
        raise RecordError('the record has no "game" field; it must be "drakkar" or "sailor".')
    if game == "drakkar":
        from voicehost.games.drakkar.record import replay_record
    elif game == "sailor":
        from voicehost.games.sailor.record import replay_record
    else:
        raise RecordError(f'unknown game {game!r}; a record\'s "game" is "drakkar" or "sailor".')
    return replay_record(record)
