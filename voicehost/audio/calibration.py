"""Calibration arithmetic: the click train, the latency it reveals, the room's noise floor.

``voicehost calibrate`` plays clicks and hears them back; everything that
turns those samples into numbers lives here, free of devices, so it can be
checked on synthetic signals with a known answer. Latency is measured on
the input's sample clock: the playback is started when the listener's clock
reads ``play_at``, and the lag at which the recording best matches the click
train (cross-correlation) is the round trip the host lives with.

The clicks are short noise bursts at irregular intervals: a periodic train
would correlate equally well one period early or late, an irregular one has
a single best lag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from voicehost.errors import VoicehostError

#: Gaps between successive clicks, in seconds; deliberately irregular.
CLICK_GAPS = (0.41, 0.29, 0.53, 0.37, 0.47, 0.31, 0.59)
#: Length of one click (a decaying noise burst), in seconds.
CLICK_SECONDS = 0.004
#: The quietest level reported, in dBFS (digital silence has no logarithm).
SILENCE_DBFS = -120.0


class CalibrationError(VoicehostError):
    """The clicks did not come back, so nothing could be measured."""


@dataclass(frozen=True)
class ClickTrain:
    """A calibration signal and the times (s) at which each click starts."""

    signal: np.ndarray
    rate: int
    clicks: tuple[float, ...]

    @property
    def duration(self) -> float:
        return len(self.signal) / self.rate


@dataclass(frozen=True)
class Latency:
    """What the cross-correlation found.

    ``latency`` is seconds from ``play_at`` to where the train was heard;
    ``clarity`` is the correlation peak over the best peak at any other lag
    (well above 1 means an unambiguous match); ``per_click`` holds each
    click's own lag, whose spread (``jitter``) says how steady the path is.
    """

    latency: float
    clarity: float
    per_click: tuple[float, ...] = field(default=())

    @property
    def jitter(self) -> float:
        return float(np.std(self.per_click)) if len(self.per_click) > 1 else 0.0


def click_train(rate: int, gaps: tuple[float, ...] = CLICK_GAPS, lead: float = 0.1,
                level: float = 0.5, seed: int = 7) -> ClickTrain:
    """The calibration signal: broadband clicks at irregular ``gaps``.

    A noise burst rather than a single impulse survives resampling and
    band-limited paths while keeping a sharp correlation peak.
    """
    times = [lead]
    for g in gaps:
        times.append(times[-1] + g)
    n_click = max(8, int(round(CLICK_SECONDS * rate)))
    rng = np.random.default_rng(seed)
    burst = rng.standard_normal(n_click) * np.exp(-np.arange(n_click) / (n_click / 4))
    burst = (level * burst / np.abs(burst).max()).astype(np.float32)
    total = int(math.ceil((times[-1] + 0.3) * rate))
    signal = np.zeros(total, dtype=np.float32)
    for t in times:
        i = int(round(t * rate))
        signal[i : i + n_click] += burst
    return ClickTrain(signal, rate, tuple(times))


def _xcorr(recorded: np.ndarray, reference: np.ndarray, max_lag: int) -> np.ndarray:
    """Cross-correlation of ``recorded`` against ``reference`` at lags 0..max_lag (FFT)."""
    n = len(recorded) + len(reference)
    size = 1 << (n - 1).bit_length()
    spec = np.fft.rfft(recorded, size) * np.conj(np.fft.rfft(reference, size))
    full = np.fft.irfft(spec, size)
    return full[: max_lag + 1]


def _refine(c: np.ndarray, k: int) -> float:
    """Sub-sample peak position by fitting a parabola through the peak and its neighbours."""
    if 0 < k < len(c) - 1:
        a, b, d = c[k - 1], c[k], c[k + 1]
        den = a - 2 * b + d
        if den < 0:
            return k + 0.5 * (a - d) / den
    return float(k)


def measure_latency(recorded: np.ndarray, train: ClickTrain, play_at: float = 0.0,
                    max_latency: float = 1.0) -> Latency:
    """Latency of ``train`` in ``recorded`` (both at ``train.rate``), counted from ``play_at``.

    ``recorded`` starts at sample 0 of the listener's clock; playback was
    started when that clock read ``play_at`` seconds.
    """
    rate = train.rate
    x = np.asarray(recorded, dtype=np.float64)
    x = np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    start = int(round(play_at * rate))
    max_lag = int(max_latency * rate)
    seg = x[start : start + max_lag + len(train.signal)]
    if len(seg) < len(train.signal) // 2:
        raise CalibrationError("the recording ended before the clicks were played; "
                               "listen for longer.")
    seg = seg - seg.mean()
    ref = train.signal.astype(np.float64)
    c = _xcorr(seg, ref, min(max_lag, len(seg) - 1))
    k = int(np.argmax(c))
    peak = c[k]
    guard = max(1, int(0.005 * rate))
    others = np.concatenate([c[: max(0, k - guard)], c[k + guard + 1 :]])
    second = float(others.max()) if len(others) else 0.0
    clarity = float(peak / second) if second > 0 else float("inf")
    if peak <= 0 or clarity < 1.5:
        raise CalibrationError(
            "the clicks did not come back clearly; check that the output device's sound "
            "reaches the input device (volume up, not muted) and try again.")
    lag = _refine(c, k)
    # The peak is every click's match summed: a click that came back holds
    # its share of it. A peak that only a few clicks make up is chance (the
    # train came back later than was looked for, and some other sound lined
    # up with two of its clicks): on the loopback, a speaker 1.8 s late
    # looked for 1 s far gave "806 ms" from 2 of 8 clicks.
    per_click = _per_click(seg, train, lag, share=peak / len(train.clicks))
    if len(per_click) < (len(train.clicks) + 1) // 2:
        raise CalibrationError(
            f"only {len(per_click)} of the {len(train.clicks)} clicks came back together; "
            f"the speaker may play more than {max_latency:g} s late, or something else "
            "was loud in the room: keep the room quiet and try again.")
    return Latency(lag / rate, clarity, per_click)


def _per_click(seg: np.ndarray, train: ClickTrain, lag: float, share: float) -> tuple[float, ...]:
    """Each click's own lag, searched within 10 ms of the overall one.

    A click counts as come back when its match reaches a quarter of
    ``share``, its part of the whole train's: relative, so that a quiet path
    (a microphone across the room) counts its clicks as a loud one does.
    """
    rate = train.rate
    n_click = max(8, int(round(CLICK_SECONDS * rate)))
    burst = train.signal[int(round(train.clicks[0] * rate)):][:n_click].astype(np.float64)
    w = int(0.010 * rate)
    out = []
    for t in train.clicks:
        centre = int(round(t * rate + lag))
        lo, hi = centre - w, centre + w + n_click
        if lo < 0 or hi > len(seg):
            continue
        c = np.correlate(seg[lo:hi], burst, "valid")
        k = int(np.argmax(c))
        if c[k] < 0.25 * share:
            continue  # this click did not come back
        out.append((lo + _refine(c, k) - t * rate) / rate)
    return tuple(out)


def noise_floor(samples: np.ndarray, rate: int, frame: float = 0.05) -> float:
    """The room's noise floor in dBFS: the median RMS of ``frame``-second frames.

    The median ignores a cough or a door; a floor of exact zeros (a muted
    input) reports :data:`SILENCE_DBFS`.
    """
    x = np.asarray(samples, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = max(1, int(frame * rate))
    if len(x) < n:
        raise CalibrationError("too little audio to measure the noise floor; listen for longer.")
    frames = x[: len(x) // n * n].reshape(-1, n)
    rms = float(np.median(np.sqrt(np.mean(frames**2, axis=1))))
    return SILENCE_DBFS if rms <= 10 ** (SILENCE_DBFS / 20) else max(SILENCE_DBFS, 20 * math.log10(rms))


#: The top of a narrowband path (a Bluetooth headset in call mode, a telephone-grade
#: or 8 kHz sound card): nothing above it comes through.
NARROW_HZ = 4000.0
#: The band below it, and the band above it compared with it (Hz). The upper one
#: stops short of 8 kHz, where a 16 kHz stream's own anti-alias filters cut.
LOWER_BAND = (1000.0, NARROW_HZ)
UPPER_BAND = (4500.0, 7000.0)
#: How much more a path may take off the upper band than the lower one (dB) and
#: still count as wideband. A loudspeaker and a microphone across a room roll
#: the top off by several dB; a narrowband path by 40 dB or more.
NARROW_DB = 20.0
#: The least the upper band is reported at (dB): under it, nothing came through.
NOTHING_DB = -60.0


@dataclass(frozen=True)
class Bandwidth:
    """How the path treated the clicks' upper band, relative to the played ones.

    ``upper_db``: the clicks' level at 4.5 to 7 kHz relative to 1 to 4 kHz as
    heard, less the same as played (0: the path is flat; the room's noise in
    each band is taken off first). The "T" of Tum and most of a card's slap
    lie above 4 kHz: through a narrowband path the onset detector stamps Tums
    on their vowels and hears cards as singing.
    """

    upper_db: float

    @property
    def narrow(self) -> bool:
        return self.upper_db <= -NARROW_DB


def measure_bandwidth(recorded: np.ndarray, train: ClickTrain, play_at: float, latency: float,
                      quiet: np.ndarray | None = None) -> Bandwidth | None:
    """How much of the clicks' upper band came back (``None``: the clicks were not heard over the room).

    ``recorded`` starts at sample 0 of the listener's clock, playback was
    started at ``play_at`` and came back ``latency`` later (from
    :func:`measure_latency`); ``quiet`` is room noise alone, whose level in
    each band is taken off the clicks'.
    """
    rate = train.rate
    if rate < 2 * UPPER_BAND[1]:
        return None
    x = np.nan_to_num(np.asarray(recorded, dtype=np.float64))
    ref = train.signal.astype(np.float64)
    n_click = max(8, int(round(CLICK_SECONDS * rate)))
    # A margin either side (the path may smear a click), tapered so that the
    # lower band's energy does not leak into the upper one's bins.
    before, after = int(0.004 * rate), int(0.008 * rate)
    n = before + n_click + after
    taper = np.hanning(2 * before)
    window = np.concatenate([taper[:before], np.ones(n - 2 * before), taper[before:]])
    size = 1 << (n - 1).bit_length()
    freqs = np.fft.rfftfreq(size, 1.0 / rate)
    bands = [(freqs >= lo) & (freqs < hi) for lo, hi in (LOWER_BAND, UPPER_BAND)]

    def power(signal: np.ndarray, starts: list[int]) -> np.ndarray:
        """Each band's energy summed over the ``n`` samples from each start (all within ``signal``)."""
        spec = np.zeros(len(freqs))
        for s in starts:
            piece = signal[s : s + n]
            spec += np.abs(np.fft.rfft((piece - piece.mean()) * window, size)) ** 2
        return np.array([spec[b].sum() for b in bands])

    played = [int(round(t * rate)) - before for t in train.clicks]
    heard = [int(round((play_at + latency + t) * rate)) - before for t in train.clicks]
    heard = [s for s in heard if s >= 0 and s + n <= len(x)]
    if not heard:
        return None
    got = power(x, heard)
    if quiet is not None and len(quiet) >= n:
        q = np.nan_to_num(np.asarray(quiet, dtype=np.float64))
        pieces = list(range(0, len(q) - n + 1, n))
        got = got - power(q, pieces) / len(pieces) * len(heard)
    want = power(ref, played)
    if got[0] <= 0 or want[0] <= 0 or want[1] <= 0:
        return None
    upper = 10 * math.log10(max(got[1], 0.0) / got[0] + 1e-30) - 10 * math.log10(want[1] / want[0])
    return Bandwidth(max(NOTHING_DB, upper))


#: How far under a click its echo must fall before the room counts as quiet
#: again (dB): the level at which the onset detector and the recogniser stop
#: hearing the host's own words in it.
ECHO_DB = 30.0
#: Longest echo reported (s): a cathedral; anything longer is reported as this.
MAX_ECHO = 1.0


def measure_echo(recorded: np.ndarray, train: ClickTrain, play_at: float, latency: float,
                 quiet: np.ndarray | None = None, frame: float = 0.005) -> float | None:
    """Seconds after the host stops speaking until the room's echo of it has died away (``None``: clicks not heard).

    The host stops listening while it speaks and for this long after: in a
    bare room the walls say its last word again for a quarter of a second, in
    a headset or a furnished room for a few milliseconds, and a player who
    answers at once should not be cut off for an echo that is not there.

    A sound that stops dies away as the energy still to come of the room's
    answer to one click does (Schroeder's backward integration): the clicks'
    energy, averaged over the train frame by frame with the room's noise
    (``quiet``) taken off, is summed from each frame to the end, and the echo
    is over when that sum is :data:`ECHO_DB` under its start. Past the next
    click, or under the room's noise, the echo goes on along its slope.
    """
    rate = train.rate
    x = np.nan_to_num(np.asarray(recorded, dtype=np.float64))
    n = max(1, int(round(frame * rate)))
    span = int((min(np.diff(train.clicks)) - 0.01) * rate) // n  # frames before the next click
    lead = 2  # frames before each click's expected start, for a path that jitters
    curves = []
    for t in train.clicks:
        s = int(round((play_at + latency + t) * rate)) - lead * n
        piece = x[s: s + (span + lead) * n] if s >= 0 else np.zeros(0)
        if len(piece) == (span + lead) * n:
            curves.append(np.mean(piece.reshape(-1, n) ** 2, axis=1))
    if not curves:
        return None
    power = np.mean(curves, axis=0)
    noise = 0.0
    if quiet is not None and len(quiet) >= n:
        q = np.nan_to_num(np.asarray(quiet, dtype=np.float64))
        noise = float(np.median(np.mean(q[: len(q) // n * n].reshape(-1, n) ** 2, axis=1)))
    power = power[int(np.argmax(power)):] - noise  # from the click on, the room's noise taken off
    if len(power) == 0 or power[0] <= noise:
        return None
    # The echo as heard: the frames after the click itself that stand clear
    # of the noise, up to the first that does not.
    skip = max(1, int(np.ceil(CLICK_SECONDS / frame)))
    clear = power[skip:] > max(noise, power[0] * 10 ** (-60 / 10))
    heard = skip + (int(np.argmin(clear)) if not clear.all() else len(clear))
    tail = power[:heard]
    slope = 0.0  # of the echo's level, per frame (natural log of energy)
    if heard - skip >= 3:
        slope = float(np.polyfit(np.arange(skip, heard), np.log(power[skip:heard]), 1)[0])
    elif noise > 0 and power[0] < noise * 10 ** (ECHO_DB / 10):
        # The echo went under the room's noise at once, but the clicks stood
        # less than 30 dB over it: a voice, longer than a click, may leave an
        # echo above the noise. Not measured (the host keeps its default).
        return None
    if slope < 0:  # go on along it, to MAX_ECHO
        more = np.arange(1, int(MAX_ECHO / frame) - heard + 1)
        tail = np.concatenate([tail, power[heard - 1] * np.exp(slope * more)])
    remaining = np.cumsum(tail[::-1])[::-1]
    below = np.flatnonzero(remaining <= remaining[0] * 10 ** (-ECHO_DB / 10))
    return float(min(MAX_ECHO, (below[0] if len(below) else len(tail)) * frame))
