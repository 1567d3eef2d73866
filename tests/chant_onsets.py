"""Shared by the chant tests: a chant as the detector hands it out, and the fixture generator."""

from __future__ import annotations

import sys
from pathlib import Path

from voicehost.audio.onsets import Onset

ROOT = Path(__file__).resolve().parents[1]


def sung(start: float, period: float, bars: int, tums: int = 3, loud: float = 1.0,
         kar_at: float = 0.47) -> list[Onset]:
    """Onsets of ``bars`` bars sung from ``start``, the "kar" ``kar_at`` of a beat after "Drak"."""
    out = []
    t = start
    for _ in range(bars):
        out.append(Onset(t, 25.0 * loud, detected_t=t + 0.06))  # Drak
        out.append(Onset(t + kar_at * period, 12.0 * loud,
                         detected_t=t + kar_at * period + 0.06))  # kar
        for k in range(1, tums + 1):
            out.append(Onset(t + k * period, 20.0 * loud, detected_t=t + k * period + 0.06))
        t += (tums + 1) * period
    return out


def _bench_importable() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def generator():
    """tools/make_fixtures.py, loaded as the benchmark loads it."""
    _bench_importable()
    from bench._metrics import fixture_generator

    return fixture_generator()


def heard_as_the_host(audio, truth: dict):
    """Rendered ``audio``'s onsets and bars as the live host has them: told each song by the game, not following it."""
    _bench_importable()
    from bench.onsets import heard_by_the_host
    from voicehost.audio.blocks import PIPELINE_RATE
    from voicehost.audio.onsets import detect_onsets

    return heard_by_the_host(detect_onsets(audio, faint=True), truth, len(audio) / PIPELINE_RATE)
