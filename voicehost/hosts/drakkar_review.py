"""A Drakkar Tum Tum game's plays and songs from its journal, to judge its recording again.

A live game hosted with ``--journal`` and ``--record-input`` keeps both what
the microphone heard and each play as it was declared, on the same sample
clock. When a verdict surprises the table ("that was on the beat!"), the
question is what the recording shows around that play. ``voicehost judge
WAV --plays JOURNAL.jsonl`` judges every play again from the recording as a
whole, told the song the game had from each play on (the rules, replayed
from the journal, know it: a one-Tum song turned round by Whirlpool Island
sounds like the plain one), and sets each new verdict beside the host's.

A resumed live game starts a new sample clock and is not recorded again:
the plays after the first resume are left out and counted, so the verdicts
are never those of plays paired with the wrong moment of the recording.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from voicehost.errors import RecordError, VoicehostError


class JournalPlaysError(VoicehostError):
    """A journal that holds no plays to judge against a recording."""


@dataclass
class JournalPlays:
    """What a journal says about the plays of its recording.

    ``plays``: ``{"t", "player", "card", "slot", "host"}`` in the form of a
    plays file, ``t`` the declaration on the recording's clock, ``host`` the
    verdict the host gave then. ``songs``: ``(t, tums, reversed)`` from the
    start and from each play that changed the song on, as the host told its
    tracker. ``windows``: those the host judged with. ``resumed``: plays left
    out because they came after a resume, on another clock.
    """

    plays: list[dict[str, Any]] = field(default_factory=list)
    songs: list[tuple[float, int, bool]] = field(default_factory=list)
    windows: str | None = None
    resumed: int = 0


def journal_plays(name: str, raw: bytes) -> JournalPlays:
    """A Drakkar journal's timed plays and the song from each one on.

    ``raw``: the journal's bytes, read once from ``name`` (a pipe or
    standard input can be read only once); ``name`` is for messages.

    Raises
    ------
    JournalPlaysError
        When the journal is a Sunken Sailor match's, cannot be replayed, or
        holds no play timed on a recording's clock; the message says what to give instead.
    """
    from voicehost.games import drakkar
    from voicehost.journal import journal_to_record, parse_journal

    try:
        header, events, _torn = parse_journal(raw, name)
    except RecordError as exc:
        raise JournalPlaysError(str(exc)) from None
    game = header.get("game")
    if game != "drakkar":
        raise JournalPlaysError(f"{name} is a {game or 'unknown'} journal; only a Drakkar Tum "
                                "Tum game has card plays to judge.")
    record = journal_to_record(header, events)
    out = JournalPlays(windows=(header.get("host") or {}).get("windows"))
    try:
        steps = drakkar.replay_steps(record)
        start = next(steps).state.song
        out.songs.append((0.0, start.tums, start.reversed))
        last_clock = float("-inf")
        for event, result in zip(record["events"], steps):
            if event.get("type") != "play" or "declared_t" not in event:
                continue  # a discard, or a play written by hand with no time
            clock = float(event.get("clock", event["declared_t"]))
            if clock < last_clock or out.resumed:
                out.resumed += 1  # a live resume: a new clock, not in the recording
                continue
            last_clock = clock
            t = float(event["declared_t"])
            out.plays.append({"t": t, "player": event["player"], "card": event["card"],
                              "slot": event["slot"],
                              "host": {"verdict": event.get("verdict"),
                                       "offset_ms": event.get("offset_ms")}})
            song = drakkar.next_song(result.state)
            if song is not None and (song.tums, song.reversed) != out.songs[-1][1:]:
                out.songs.append((t, song.tums, song.reversed))
    except RecordError as exc:
        raise JournalPlaysError(f"{name}: {exc}") from None
    if not out.plays:
        raise JournalPlaysError(f"{name} holds no play timed on a recording's clock (a game "
                                "hosted live or from --input); give a plays file instead.")
    return out


__all__ = ["JournalPlays", "JournalPlaysError", "journal_plays"]
