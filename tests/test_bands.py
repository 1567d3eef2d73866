"""The onset detector's band statistics, followed a block at a time, and its quantile."""

from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.bands import BandStats
from voicehost.audio.onsets import OnsetDetector, OnsetParams, _quantile
from voicehost.audio.sources import read_audio

CHANT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"


def _levels() -> np.ndarray:
    """The log-mel levels of a committed noisy chant, as the detector computes them."""
    det = OnsetDetector()
    x = read_audio(CHANT / "g2_150bpm_3tums_snr10.wav")[: 16000 * 4]
    frames = np.lib.stride_tricks.sliding_window_view(x, det.n_fft)[::det.hop]
    power = np.abs(np.fft.rfft(frames * det.window, axis=1)[:, det._lo : det._hi]) ** 2
    mel = power @ det._mel.T
    efloor = det._floor(mel, np.zeros(len(mel), dtype=bool), np.zeros(len(mel), dtype=bool))
    return np.log10(mel + 10.0 ** efloor[:, None] + 1e-12)


def _follow(levels: np.ndarray, muted: np.ndarray, sizes: list[int]) -> dict[str, np.ndarray]:
    p = OnsetParams()
    det = OnsetDetector()
    bands = BandStats(p, p.n_mels, det._cons, det._upper)
    parts, k, i = [], 0, 0
    while k < len(levels):
        n = sizes[i % len(sizes)]
        parts.append(bands.advance(levels[k : k + n], muted[k : k + n]))
        k, i = k + n, i + 1
    return {f: np.concatenate([getattr(r, f) for r in parts])
            for f in ("room", "loud", "above", "dev", "flux", "cflux", "cnet", "act", "room_fall",
                      "flux_median", "cflux_median")}


def test_band_statistics_do_not_depend_on_how_the_frames_are_grouped():
    """Frame by frame, in tens (the detector's 100 ms blocks) or in odd runs that
    straddle the floor's 10-frame sub-blocks: the same statistics, bit for bit,
    with the host's voice muting the loud level for a while."""
    levels = _levels()
    muted = np.zeros(len(levels), dtype=bool)
    muted[120:170] = True
    one = _follow(levels, muted, [1])
    for sizes in ([10], [3, 17, 1, 9], [len(levels)]):
        got = _follow(levels, muted, sizes)
        for field, ref in one.items():
            assert np.array_equal(got[field], ref), (sizes, field)


def test_band_statistics_follow_the_room_and_the_chant():
    """Real behaviour on a real chant: rises are found, the floor sits under the
    level, and the loud level holds while the host speaks."""
    levels = _levels()
    muted = np.zeros(len(levels), dtype=bool)
    muted[200:260] = True
    s = _follow(levels, muted, [10])
    over = (levels - s["room"]).mean(axis=1)
    assert np.percentile(over, 5) < 0.5 < 1.0 < np.percentile(over, 95)  # noise, then singing
    assert (s["flux"] > 1.5).sum() >= 8  # a few syllables in four seconds
    held = s["loud"][200:260]
    assert (np.diff(held, axis=0) == 0).all()
    assert not (np.diff(s["loud"][100:200], axis=0) == 0).all()


@pytest.mark.parametrize("n", [1, 2, 12, 13, 15, 40])
def test_quantile_is_numpys(n):
    rng = np.random.default_rng(n)
    for _ in range(50):
        v = rng.normal(size=n)
        for q in (0.2, 0.5):
            assert _quantile(v, q) == float(np.quantile(v, q))
