"""Where the song is, and what the host says about it: warm-up, stops, the wrong song.

Pure functions of times and of the rules state, so the host's decisions
about the song can be tested without audio.
"""

from __future__ import annotations

import math
from typing import Sequence

from voicehost.games.drakkar import DrakkarState

#: Bars of warm-up after the song (re)starts; the game starts on the next one.
WARMUP_BARS = 2

WORDS = {1: "one", 2: "two", 3: "three"}

WARMUP = "warmup"
STOPPED = "stopped"
GAME = "game"


def phase_at(t: float, bar_starts: Sequence[float], stops: Sequence[float],
             stop_requests: Sequence[float], onsets: Sequence[float] = (),
             bar_len: float | None = None) -> tuple[str, int]:
    """Where the song is at time ``t``: warm-up, stopped (waiting), or game.

    Returns the phase and the number of bars begun since the song last
    (re)started. ``stops`` are the times the tracker heard the song stop,
    ``stop_requests`` the times the host stopped it (a mistake, a lookout).
    The tracker needs most of a bar to lock, so it may report its first bar
    start one bar late: with ``onsets`` (all onset times) and ``bar_len``,
    bars sung before the first reported bar start (an onset one or two bar
    lengths before it) are counted too.
    """
    last_stop = max((s for s in stops if s <= t), default=-math.inf)
    requests = [r for r in stop_requests if last_stop < r < t]
    # The song restarts where it stopped, or where the host stopped it if the
    # tracker has not heard it stop yet (a table that sings on after "Stop!"
    # warms up again with the bars it sings).
    start = max([last_stop] + requests)
    since = [b for b in bar_starts if start < b <= t + 1e-6]
    bars = len(since)
    if requests and bars == 0:
        return STOPPED, 0
    if since and bar_len:
        # A bar sung before the first one reported starts one bar length
        # earlier, with an onset there ("Drak"); a stray sound elsewhere
        # (the room, a chair) does not count.
        for k in range(1, WARMUP_BARS + 1):
            due = since[0] - k * bar_len
            if due <= start or not any(abs(o - due) <= 0.12 for o in onsets):
                break
            bars += 1
    return (GAME if bars > WARMUP_BARS else WARMUP), bars


def song_words(tums: int, reversed: bool = False) -> str:
    tum = " ".join(["Tum"] * tums)
    return f"{tum} Drakkar" if reversed else f"Drakkar {tum}"


def _cap(name: str) -> str:
    return name[:1].upper() + name[1:]


def danger_names(state: DrakkarState) -> list[str]:
    names = []
    for card in state.tops():
        if card is not None and card.kind.value in ("goblin", "kraken", "dragon"):
            names.append(card.spoken)
    return names


def wrong_song_line(state: DrakkarState, heard: int) -> str:
    """"You are singing three Tums: the ship has a Kraken, sing Drakkar Tum Tum"."""
    song = state.song
    dangers = danger_names(state)
    if dangers:
        why = "the ship has " + " and ".join(f"a {d}" for d in dangers)
    else:
        why = "the ship has no danger"
    sing = song_words(song.tums, song.reversed)
    if heard not in WORDS:  # the tracker lost count: do not quote a number nobody sang
        return f"That is not the song: {why}, sing {sing}."
    tums = f"{WORDS[heard]} Tum" + ("" if heard == 1 else "s")
    return f"You are singing {tums}: {why}, sing {sing}."
