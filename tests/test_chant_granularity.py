"""The chant tracker's answers do not depend on how often it is told the time.

A microphone's block size, a file's block size and the host's tick all
decide how often :meth:`ChantTracker.process` is called. The design wants
every stage to give the same result whatever the block size (the onset
detector guarantees it; see ``test_onsets.py``), so the tracker is fed the
same onsets on many grids of ``now_t`` and in batches of many sizes, and
must give the same events and bars every time.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pytest

from voicehost.audio.analysis import analyze
from voicehost.audio.chant import ChantTracker
from voicehost.audio.onsets import Onset, detect_onsets
from voicehost.audio.sources import read_audio

CHANT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"
NAMES = [
    "g3_100bpm_3tums_clean",
    "g4_105bpm_change_3_2_1_snr20",
    "g3_120bpm_stop_snr20",
    "g3_110bpm_reversed_snr15",
    "g3_95bpm_whirlpool_snr20",
    "g5_120bpm_2tums_snr20",
]


def _song(name: str) -> tuple[int, bool]:
    truth = json.loads((CHANT / f"{name}.json").read_text())
    tums = truth["bars"][0]["tums"] if truth["bars"] else 3
    return tums, "reversed" in name


@pytest.fixture(scope="module", params=NAMES)
def fixture(request) -> tuple[str, list[Onset], float, int, bool]:
    name = request.param
    x, rate = read_audio(CHANT / f"{name}.wav"), 16000
    onsets = detect_onsets(x)
    tums, rev = _song(name)
    return name, onsets, len(x) / rate, tums, rev


def _known(o: Onset) -> float:
    return o.detected_t or o.t


def _ticks(step: Callable[[], float], end: float) -> Iterator[float]:
    t = 0.0
    while t < end:
        t = round(t + step(), 6)
        yield t


def _on_grid(onsets: list[Onset], times: Iterable[float]) -> Iterator[tuple[list[Onset], float]]:
    """Each call gets the onsets known by its time, as a live source would hand them."""
    queue = sorted(onsets, key=_known)
    for now in times:
        batch = [o for o in queue if _known(o) <= now]
        queue = queue[len(batch):]
        yield batch, now
    if queue:
        yield queue, max(_known(o) for o in queue)


def _in_batches(onsets: list[Onset], size: int) -> Iterator[tuple[list[Onset], float]]:
    """``size`` onsets a call, the time being when the last of them was known."""
    queue = sorted(onsets, key=_known)
    for i in range(0, len(queue), size):
        batch = queue[i:i + size]
        yield batch, _known(batch[-1])


def _run(calls: Iterable[tuple[list[Onset], float]], end: float, tums: int,
         rev: bool) -> tuple[list[tuple], list[tuple]]:
    tr = ChantTracker(tums, rev, follow=True)
    events = []
    for batch, now in calls:
        events += tr.process(batch, now)
    events += tr.finish(end)
    ev = [(type(e).__name__,) + tuple(round(v, 6) if isinstance(v, float) else v
                                      for v in e.__dict__.values()) for e in events]
    bars = [(b.index, round(b.start, 6), b.tums, b.reversed, tuple(round(x, 6) for x in b.beats),
             None if b.last_tum is None else round(b.last_tum, 6)) for b in tr.bars]
    return ev, bars


def _schedules(onsets: list[Onset], end: float) -> dict[str, Iterable]:
    rng = random.Random(7)
    out: dict[str, Iterable] = {}
    for step in (0.01, 0.032, 0.05, 0.1, 0.25):
        out[f"every {step} s"] = _on_grid(onsets, _ticks(lambda s=step: s, end))
    out["irregular"] = _on_grid(onsets, _ticks(lambda: rng.uniform(0.001, 0.3), end))
    out["one onset a call"] = _in_batches(onsets, 1)
    for size in (2, 3, 5, 11):
        out[f"batches of {size}"] = _in_batches(onsets, size)
    return out


def test_events_and_bars_do_not_depend_on_the_call_grid(fixture):
    name, onsets, end, tums, rev = fixture
    results = {k: _run(calls, end, tums, rev) for k, calls in _schedules(onsets, end).items()}
    ref_key = "every 0.01 s"
    ref_events, ref_bars = results[ref_key]
    assert ref_bars, f"{name}: no bar at all, the comparison would prove nothing"
    for key, (events, bars) in results.items():
        assert bars == ref_bars, f"{name}: bars with {key} differ from {ref_key}"
        assert events == ref_events, f"{name}: events with {key} differ from {ref_key}"


@pytest.mark.parametrize("name", ["g3_100bpm_3tums_clean", "g4_105bpm_change_3_2_1_snr20",
                                  "g3_95bpm_whirlpool_snr20"])
def test_analysis_does_not_depend_on_the_block_size(name):
    tums, rev = _song(name)
    outputs = []
    for size in (160, 512, 1600, 4000):
        outputs.append(analyze(CHANT / f"{name}.wav", tums, rev, blocksize=size).as_dict())
    assert outputs[0]["bars"]
    assert all(o == outputs[0] for o in outputs[1:])
