"""Calibration arithmetic on signals with a known answer (no sound card needed).

The loopback tests check ``voicehost calibrate`` against a real sound
server; these check that the numbers it prints are right: a click train
delayed by a known number of samples, in noise, through a band-limited
path, is measured at that delay; a missing train is an error, not a number.
"""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.audio.calibration import (
    SILENCE_DBFS,
    CalibrationError,
    click_train,
    measure_bandwidth,
    measure_echo,
    measure_latency,
    noise_floor,
)

RATE = 16000


def _heard(delay_s: float, play_at: float = 1.0, noise: float = 0.0, gain: float = 1.0,
           seed: int = 0) -> tuple[np.ndarray, object]:
    train = click_train(RATE)
    start = int(round((play_at + delay_s) * RATE))
    x = np.zeros(start + len(train.signal) + RATE, np.float32)
    x[start : start + len(train.signal)] += gain * train.signal
    if noise:
        x += (noise * np.random.default_rng(seed).standard_normal(len(x))).astype(np.float32)
    return x, train


@pytest.mark.parametrize("delay_ms", [0.0, 1.25, 12.0, 87.5, 450.0])
def test_latency_is_the_delay_of_the_clicks(delay_ms):
    x, train = _heard(delay_ms / 1000)
    lat = measure_latency(x, train, play_at=1.0)
    assert lat.latency * 1000 == pytest.approx(round(delay_ms * 16) / 16, abs=0.07)
    assert len(lat.per_click) == len(train.clicks)
    assert lat.jitter < 1e-4
    assert lat.clarity > 2


def test_latency_in_room_noise_through_a_band_limited_quiet_path():
    import soxr

    x, train = _heard(0.0315, noise=0.02, gain=0.2)
    # An 8 kHz leg on the way (a cheap headset) and back.
    x = soxr.resample(soxr.resample(x, RATE, 8000), 8000, RATE).astype(np.float32)
    lat = measure_latency(x, train, play_at=1.0)
    assert lat.latency == pytest.approx(0.0315, abs=0.0005)
    assert lat.jitter < 0.0005
    # Every click counted, though each came back at a fifth of its level.
    assert len(lat.per_click) == len(train.clicks)


def test_a_peak_that_two_clicks_make_is_chance_not_a_latency():
    """The train came back later than was looked for; two other sounds line up
    with two of its clicks. Their peak stands twice as high as any other lag's
    (clarity 2), yet six clicks are missing from it: an error, not "500 ms"."""
    train = click_train(RATE)
    x = (0.002 * np.random.default_rng(4).standard_normal(RATE * 6)).astype(np.float32)
    n = int(0.004 * RATE)
    for t in train.clicks[3:5]:
        at = int(round((1.0 + 0.5 + t) * RATE))
        x[at: at + n] += train.signal[int(round(t * RATE)):][:n]
    with pytest.raises(CalibrationError, match="only 2 of the 8 clicks came back together"):
        measure_latency(x, train, play_at=1.0)


def _bandwidth(x, train, play_at=1.0):
    lat = measure_latency(x, train, play_at=play_at)
    return measure_bandwidth(x, train, play_at, lat.latency, quiet=x[RATE // 4 : int(play_at * RATE)])


def test_a_flat_path_keeps_the_clicks_upper_band():
    x, train = _heard(0.0315)
    assert _bandwidth(x, train).upper_db == pytest.approx(0.0, abs=0.5)
    # In room noise about as loud as the clicks: the noise is taken off each
    # band before they are compared, so what is left scatters about 0 (over
    # 30 noises, within 3.2 dB; this one is the farthest).
    x, train = _heard(0.0315, noise=0.02, gain=0.2, seed=3)
    band = _bandwidth(x, train)
    assert band.upper_db == pytest.approx(0.0, abs=4) and not band.narrow


@pytest.mark.parametrize("noise", [0.0, 0.02])
def test_an_8_khz_leg_is_narrowband(noise):
    """A Bluetooth headset in call mode: nothing above 4 kHz comes back."""
    import soxr

    x, train = _heard(0.0315, noise=noise, gain=0.2)
    x = soxr.resample(soxr.resample(x, RATE, 8000), 8000, RATE).astype(np.float32)
    band = _bandwidth(x, train)
    assert band.narrow and band.upper_db < -40


def test_a_path_that_rolls_the_top_off_is_still_wideband():
    """A small loudspeaker and a cheap microphone lose some top, not all of it."""
    import soxr
    from scipy.signal import butter, lfilter

    x, train = _heard(0.0315, noise=0.002)
    b, a = butter(1, 3000, fs=RATE)  # 6 dB an octave from 3 kHz
    band = _bandwidth(lfilter(b, a, x).astype(np.float32), train)
    assert -15 < band.upper_db < -3 and not band.narrow
    # An 11 kHz card (5.5 kHz at the top) keeps half the upper band.
    x = soxr.resample(soxr.resample(x, RATE, 11025), 11025, RATE).astype(np.float32)
    assert not _bandwidth(x, train).narrow


def test_clicks_that_never_came_back_are_an_error_not_a_number():
    x = (0.05 * np.random.default_rng(1).standard_normal(RATE * 6)).astype(np.float32)
    with pytest.raises(CalibrationError, match="did not come back"):
        measure_latency(x, click_train(RATE), play_at=1.0)
    with pytest.raises(CalibrationError, match="did not come back"):
        measure_latency(np.zeros(RATE * 6, np.float32), click_train(RATE), play_at=1.0)


def test_a_network_speakers_delay_is_within_reach():
    """A network speaker's clicks come back 1.8 s late: ``calibrate`` looks up to
    :data:`~voicehost.commands.calibrate.MAX_LATENCY` for them (it looked 1 s far,
    and on the loopback took a chance peak for "806 ms")."""
    from voicehost.commands.calibrate import MAX_LATENCY

    train = click_train(RATE)
    x = (0.002 * np.random.default_rng(2).standard_normal(RATE * 8)).astype(np.float32)
    at = int(2.8 * RATE)
    x[at: at + len(train.signal)] += train.signal
    with pytest.raises(CalibrationError):
        measure_latency(x, train, play_at=1.0, max_latency=1.0)
    lat = measure_latency(x, train, play_at=1.0, max_latency=MAX_LATENCY)
    assert lat.latency == pytest.approx(1.8, abs=0.001)
    assert len(lat.per_click) == len(train.clicks)


def _in_a_room(rt60: float, noise: float, seed: int = 0) -> tuple[np.ndarray, object]:
    """The clicks played 30 ms late into a room whose echo dies 60 dB in ``rt60``
    seconds, as loud as the direct sound (a metre from the speaker): the
    chant fixtures' own room (tools/make_fixtures.py)."""
    from tests.chant_onsets import generator

    rng = np.random.default_rng(seed)
    x, train = _heard(0.03)
    x = generator().room(x, rt60, 0.0, rng)
    x += noise * rng.standard_normal(len(x))
    return x.astype(np.float32), train


@pytest.mark.parametrize("noise", [0.0, 0.003, 0.02])
@pytest.mark.parametrize("rt60", [0.1, 0.25, 0.5, 0.8, 1.2])
def test_the_echo_lasts_as_the_room_rings(rt60, noise):
    """A sound that stops is 30 dB down after 0.45 RT60 in such a room (its
    echo starts 3 dB under it): in quiet, and in noise that buries the echo's
    end (it goes on along its slope, past the next click too)."""
    x, train = _in_a_room(rt60, noise)
    lat = measure_latency(x, train, play_at=1.0, max_latency=2.5)
    assert lat.latency == pytest.approx(0.03, abs=0.001)
    echo = measure_echo(x, train, 1.0, lat.latency, quiet=x[: int(0.9 * RATE)])
    assert echo == pytest.approx(0.45 * rt60, rel=0.25, abs=0.01)


def test_a_dry_path_has_no_echo_and_unheard_clicks_none():
    x, train = _heard(0.03, noise=0.003)
    assert measure_echo(x, train, 1.0, 0.03, quiet=x[: int(0.9 * RATE)]) < 0.01
    quiet = (0.003 * np.random.default_rng(1).standard_normal(RATE * 6)).astype(np.float32)
    assert measure_echo(quiet, train, 1.0, 0.03, quiet=quiet[: int(0.9 * RATE)]) is None
    # Clicks under 30 dB over a loud room, gone under its noise at once: an echo
    # of a longer sound might not be. Not measured, rather than "none".
    x, train = _heard(0.03, noise=0.02)
    assert measure_echo(x, train, 1.0, 0.03, quiet=x[: int(0.9 * RATE)]) is None


def test_a_recording_too_short_for_the_clicks_says_so():
    with pytest.raises(CalibrationError, match="ended before"):
        measure_latency(np.zeros(RATE, np.float32), click_train(RATE), play_at=0.9)


def test_the_train_has_one_unambiguous_lag():
    """Irregular gaps: shifted by any whole gap, the train matches itself poorly."""
    train = click_train(RATE)
    gaps = np.diff(train.clicks)
    assert len(set(np.round(gaps, 3))) == len(gaps)
    x, _ = _heard(0.2)
    assert measure_latency(x, train, play_at=1.0).clarity > 3


def test_nan_samples_do_not_poison_the_measurement():
    x, train = _heard(0.05, noise=0.001)
    x[100:110] = np.nan
    assert measure_latency(x, train, play_at=1.0).latency == pytest.approx(0.05, abs=1e-4)


@pytest.mark.parametrize("level_db", [-20.0, -40.0, -60.0])
def test_noise_floor_is_the_rooms_level_in_dbfs(level_db):
    rms = 10 ** (level_db / 20)
    x = (rms * np.random.default_rng(2).standard_normal(RATE * 2)).astype(np.float32)
    x[RATE // 2 : RATE // 2 + 800] = 0.9  # a door slams: the median ignores it
    assert noise_floor(x, RATE) == pytest.approx(level_db, abs=0.5)


def test_noise_floor_of_digital_silence_and_of_too_little_audio():
    assert noise_floor(np.zeros(RATE, np.float32), RATE) == SILENCE_DBFS
    with pytest.raises(CalibrationError, match="too little"):
        noise_floor(np.zeros(100, np.float32), RATE)


def test_the_resilient_clock_now_runs_between_blocks():
    """``now()`` (stamps key presses) is the last block's end plus the time since it came."""
    import time

    from voicehost.audio.blocks import Block
    from voicehost.audio.resilient import ResilientSource

    class Steady:
        def __init__(self):
            self.stop = False

        def blocks(self):
            i = 0
            while not self.stop:
                time.sleep(0.01)
                yield Block(i * 160, np.zeros(160, np.float32))
                i += 1

        def close(self):
            self.stop = True

    src = ResilientSource(Steady, blocksize=160)
    seen = []
    for b in src.blocks():
        seen.append((b.end / 16000, src.now()))
        if len(seen) >= 20:
            break
    src.close()
    for end, now in seen:
        assert end <= now < end + 0.2
