"""What the host would say about a recorded game, line by line.

This is the host's voice without the microphone: a record is replayed
through the rules and every public event is turned into the sentence the
host announces. Private events (a player's secret role) are never narrated
to the table; the secret word is only said when the round reveals it.
"""

from __future__ import annotations

from typing import Any, Iterator

from voicehost.games import drakkar, sailor


def narrate(record: dict[str, Any]) -> Iterator[str]:
    """The host's announcements for ``record``, in order."""
    if record.get("game") == "sailor":
        yield from _narrate_sailor(record)
    else:
        yield from _narrate_drakkar(record)


def _narrate_drakkar(record: dict[str, Any]) -> Iterator[str]:
    result = drakkar.replay(record)
    players = record["players"]
    yield (
        f"Drakkar Tum Tum with {_names(players)}. {players[0].capitalize()} starts. "
        "Sing twice to warm up; the game starts on the third song: Drakkar Tum Tum Tum."
    )
    for event in result.events:
        if isinstance(event, drakkar.CardDrawn):
            continue  # hands are private: the table only needs to know who did not draw
        yield event.say()
    for item in result.rejected:
        yield f"(Refused play #{item['index']}: {item['why']})"


def _narrate_sailor(record: dict[str, Any]) -> Iterator[str]:
    match = sailor.replay_match(record)
    labels = ", ".join(f"{p.name.capitalize()} ({p.colour})" for p in match.players)
    yield f"Sunken Sailor with {labels}. First to {match.target} points wins."
    for played in match.rounds:
        for event in played.events:
            if not getattr(event, "public", True):
                continue
            if isinstance(event, sailor.TurnCalled):
                continue  # a recorded round does not need every drawing turn read out
            yield event.say()


def _names(names: list[str]) -> str:
    names = [n.capitalize() for n in names]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
