"""The onset detector's band statistics, followed a block at a time, and its quantile."""

from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.bands import BandStats, _median_rows
from voicehost.audio.onsets import OnsetDetector, OnsetParams, _quantile
from voicehost.audio.sources import read_audio

CHANT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"


def _levels(quiet_lead: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The log-mel levels of a committed noisy chant and the energy floor under them,
    as the detector computes them; ``quiet_lead``: its first second 60 dB down
    (the room near-silent before the table sings)."""
    det = OnsetDetector()
    x = read_audio(CHANT / "g2_150bpm_3tums_snr10.wav")[: 16000 * 4]
    if quiet_lead:
        x = np.concatenate([x[:16000] * 1e-3, x[16000:]])
    frames = np.lib.stride_tricks.sliding_window_view(x, det.n_fft)[::det.hop]
    power = np.abs(np.fft.rfft(frames * det.window, axis=1)[:, det._lo : det._hi]) ** 2
    mel = power @ det._mel.T
    efloor = det._floor(mel, np.zeros(len(mel), dtype=bool), np.zeros(len(mel), dtype=bool))
    return np.log10(mel + 10.0 ** efloor[:, None] + 1e-12), efloor


def _follow(levels: tuple[np.ndarray, np.ndarray], muted: np.ndarray,
            sizes: list[int], **params: float) -> dict[str, np.ndarray]:
    levels, efloor = levels
    p = OnsetParams(**params)
    det = OnsetDetector()
    bands = BandStats(p, p.n_mels, det._cons, det._upper)
    parts, k, i = [], 0, 0
    while k < len(levels):
        n = sizes[i % len(sizes)]
        parts.append(bands.advance(levels[k : k + n], muted[k : k + n], efloor[k : k + n]))
        k, i = k + n, i + 1
    return {f: np.concatenate([getattr(r, f) for r in parts])
            for f in ("room", "loud", "noisy", "above", "dev", "flux", "cflux", "cnet", "act",
                      "room_fall", "flux_median", "cflux_median")}


@pytest.mark.parametrize("quiet_lead", [False, True])
def test_band_statistics_do_not_depend_on_how_the_frames_are_grouped(quiet_lead):
    """Frame by frame, in tens (the detector's 100 ms blocks) or in odd runs that
    straddle the floor's 10-frame sub-blocks: the same statistics, bit for bit,
    with the host's voice muting the loud level for a while, and with the
    fluctuation learnt anew where the floor jumps after a near-silent lead."""
    levels = _levels(quiet_lead)
    muted = np.zeros(len(levels[0]), dtype=bool)
    muted[120:170] = True
    one = _follow(levels, muted, [1])
    for sizes in ([10], [3, 17, 1, 9], [len(levels[0])]):
        got = _follow(levels, muted, sizes)
        for field, ref in one.items():
            assert np.array_equal(got[field], ref), (sizes, field)


def test_band_statistics_follow_the_room_and_the_chant():
    """Real behaviour on a real chant: rises are found, the floor sits under the
    level, and the loud level holds while the host speaks."""
    levels = _levels()
    muted = np.zeros(len(levels[0]), dtype=bool)
    muted[200:260] = True
    s = _follow(levels, muted, [10])
    over = (levels[0] - s["room"]).mean(axis=1)
    assert np.percentile(over, 5) < 0.5 < 1.0 < np.percentile(over, 95)  # noise, then singing
    assert (s["flux"] > 1.5).sum() >= 8  # a few syllables in four seconds
    held = s["loud"][200:260]
    assert (np.diff(held, axis=0) == 0).all()
    assert not (np.diff(s["loud"][100:200], axis=0) == 0).all()


def test_a_near_silent_room_s_fluctuation_is_forgotten_when_the_song_comes():
    """A room 60 dB under the chant is heard under a floor that far down, and each
    band's fluctuation is learnt on its faint noise. When the chant comes, 20 dB
    and more over it, the floor jumps and that fluctuation is learnt anew: rises
    then count as they would have out of the noisy room itself."""
    quiet, noisy = _levels(quiet_lead=True), _levels()
    muted = np.zeros(len(quiet[0]), dtype=bool)
    jumps = np.flatnonzero(np.diff(quiet[1]) > 2.0) + 1
    assert len(jumps) == 1 and 95 <= jumps[0] <= 110  # where the full level comes, once
    j = jumps[0]
    relearnt = _follow(quiet, muted, [10])
    kept = _follow(quiet, muted, [10], dev_relearn=99.0)
    room = _follow(noisy, muted, [10])
    after = slice(j, j + 100)  # the second after the jump (measured: 0.11, 0.19 and 0.17 bels)
    assert np.median(relearnt["dev"][after]) < 0.7 * np.median(kept["dev"][after])
    # ... and the rises counted there are those of the noisy room itself (338 and
    # 336 bels over the bands in that second), not a fifth fewer (268).
    assert sum(relearnt["flux"][after]) > 1.15 * sum(kept["flux"][after])
    assert sum(relearnt["flux"][after]) >= 0.9 * sum(room["flux"][after])


@pytest.mark.parametrize("n", [1, 2, 12, 13, 15, 40])
def test_quantile_is_numpys(n):
    rng = np.random.default_rng(n)
    for _ in range(50):
        v = rng.normal(size=n)
        for q in (0.2, 0.5):
            assert _quantile(v, q) == float(np.quantile(v, q))


@pytest.mark.parametrize("n", [1, 2, 12, 13, 40])
def test_median_of_each_row_is_the_detectors_own_median(n):
    """A block's rows at once give, bit for bit, what ``_quantile(row, 0.5)`` gives
    one row at a time (whether the room's floor is near the chant rests on it)."""
    rows = np.random.default_rng(n).normal(size=(30, n))
    assert _median_rows(rows).tolist() == [_quantile(r, 0.5) for r in rows]
