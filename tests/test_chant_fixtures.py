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
    # At least 50 ms apart, counted in whole samples (4.85 - 4.8 is a hair under 0.05).
    apart = np.round(np.diff(onsets) * t["sample_rate"])
    assert onsets == sorted(onsets) and np.all(apart >= 0.05 * t["sample_rate"])
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
@pytest.mark.parametrize("name", ["g3_100bpm_3tums_clean", "g3_100bpm_slaps_near_snr20"])
def test_generator_reproduces_the_committed_fixture(tmp_path, name):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_fixtures
    finally:
        sys.path.pop(0)
    assert make_fixtures.main(["--out", str(tmp_path), name]) == 0
    assert (tmp_path / f"{name}.wav").read_bytes() == (CHANT / f"{name}.wav").read_bytes()
    assert json.loads((tmp_path / f"{name}.json").read_text()) == \
        json.loads((CHANT / f"{name}.json").read_text())


def test_a_card_slapped_50_ms_after_the_tum_is_an_onset_of_its_own():
    # Placed 800 samples after the Tum: as far apart as mir_eval's window, so
    # a detector that hears both is right twice, not once right and once wrong.
    t = json.loads((CHANT / "g3_100bpm_slaps_near_snr20.json").read_text())
    slap = next(s for s in t["slaps"] if s["offset_ms"] == 50.0)
    tum = t["bars"][slap["bar"]]["last_tum"]
    kinds = {round(o["t"], 4): o["kind"] for o in t["onsets"]}
    assert kinds[round(tum, 4)] == "voice" and kinds[round(slap["t"], 4)] == "slap"


def test_a_room_adds_a_tail_that_dies_at_its_rt60():
    """``room``: the direct sound at once, then a tail as loud as asked that dies 60 dB in RT60."""
    from tests.chant_onsets import generator

    make_fixtures = generator()
    rate = make_fixtures.RATE
    click = np.zeros(rate)
    click[100] = 1.0
    y = make_fixtures.room(click, 0.5, 0.0, np.random.default_rng(0))
    assert abs(y[100] - 1.0) < 1e-9 and np.abs(y[:100]).max() < 1e-9  # the direct sound, nothing before it
    tail = y[101:]
    assert abs(10 * np.log10(np.sum(tail**2))) < 0.1  # 0 dB direct to reverberant
    # Energy 100 to 200 ms against 200 to 300 ms after: 60 dB in 0.5 s is 12 dB per 100 ms.
    e = [np.sum(y[100 + int(a * rate): 100 + int((a + 0.1) * rate)] ** 2) for a in (0.1, 0.2)]
    assert abs(10 * np.log10(e[0] / e[1]) - 12.0) < 1.5


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_chant_in_a_room_keeps_its_truth():
    """Reverberation delays nothing: the truth of a chant sung in a room is that of the dry chant."""
    from dataclasses import replace

    from tests.chant_onsets import generator

    gen = generator()
    spec = replace(gen.held_out_specs(3)[10], snr_db=None)
    dry, t_dry = gen.render(spec)
    wet, t_wet = gen.render(replace(spec, rt60=0.6))
    assert t_wet["onsets"] == t_dry["onsets"] and t_wet["bars"] == t_dry["bars"]
    assert t_wet["rt60"] == 0.6 and "rt60" not in t_dry
    # The gaps between syllables are filled: the quietest 50 ms is far louder in the room.
    def quietest(x):
        n = int(0.05 * gen.RATE)
        return min(np.mean(x[i : i + n] ** 2) for i in range(int(0.7 * gen.RATE), len(x) - n, n))
    assert quietest(wet) > 10 * quietest(dry)
