"""The committed chant fixtures: reproducible from the generator, truth consistent with the audio."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

ROOT = Path(__file__).resolve().parents[1]
CHANT = ROOT / "audio_fixtures" / "chant"
NAMES = sorted(p.stem for p in CHANT.glob("*.json"))


def test_fixtures_are_small_16k_mono():
    assert len(NAMES) >= 12
    total = sum(p.stat().st_size for p in CHANT.iterdir())
    assert total < 6_000_000
    for name in NAMES:
        info = sf.info(str(CHANT / f"{name}.wav"))
        assert info.samplerate == 16000 and info.channels == 1


@pytest.mark.parametrize("name", NAMES)
def test_truth_is_consistent(name):
    t = json.loads((CHANT / f"{name}.json").read_text())
    onsets = [o["t"] for o in t["onsets"]]
    assert onsets == sorted(onsets) and np.all(np.diff(onsets) >= 0.05)
    for bar in t["bars"]:
        assert len(bar["beats"]) == bar["tums"] + 1
        # The play falls on the bar's last beat: its last Tum, or "Drak" when reversed.
        assert abs(bar["last_tum"] - bar["beats"][-1]) < 1e-6
        assert min(abs(o - bar["last_tum"]) for o in onsets) < 0.05
    for s in t["slaps"]:
        assert min(abs(o - s["t"]) for o in onsets) < 0.05
    x, rate = sf.read(CHANT / f"{name}.wav")
    assert abs(len(x) / rate - t["duration"]) < 1e-3
    # Before the first onset there is no chant yet: only the noise (if any) is there.
    lead = x[: int((onsets[0] - 0.02) * rate)]
    later = x[int(onsets[0] * rate) : int((onsets[0] + 0.3) * rate)]
    assert np.sqrt(np.mean(lead**2)) < 0.9 * np.sqrt(np.mean(later**2))


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_generator_reproduces_the_committed_fixture(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_fixtures
    finally:
        sys.path.pop(0)
    name = "g3_100bpm_3tums_clean"
    assert make_fixtures.main(["--out", str(tmp_path), name]) == 0
    assert (tmp_path / f"{name}.wav").read_bytes() == (CHANT / f"{name}.wav").read_bytes()
    assert json.loads((tmp_path / f"{name}.json").read_text()) == \
        json.loads((CHANT / f"{name}.json").read_text())
