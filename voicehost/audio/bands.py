"""The onset detector's per-band statistics: noise floor, loud level, fluctuation, rises.

These follow the log-mel levels frame by frame and never look at what the
detector decided, so a whole block's frames go through them together: one
numpy call covers the ten frames of a 100 ms block where the detector used
to make one per frame: on 40-band arrays a call costs the same whatever its
size, and these calls were most of the detector's time. The smoothing is
one linear filter a block (``scipy.signal.lfilter``, whose arithmetic is
the recursion's); only the two other recursions (the loud level and the
fluctuation) still step frame by frame, and the running medians value by
value.

Every value is computed exactly as frame by frame (minima, differences,
per-row sums, sorted medians), so the detector's onsets do not depend on the
block size, and are those it gave when it worked frame by frame.
:class:`voicehost.audio.onsets.OnsetDetector` explains what each statistic is for.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from voicehost.audio.onsets import OnsetParams

#: Frames in a sub-block of the noise floor's minimum statistics.
SUB = 10


@dataclass
class BandFrames:
    """What :meth:`BandStats.advance` computed for each frame of a block (rows: frames)."""

    level: np.ndarray  # log-mel level, bels
    efloor: np.ndarray  # the energy floor under each frame's bands, bels (one a frame)
    room: np.ndarray  # the room's noise floor (minimum statistics)
    loud: np.ndarray | None  # the loudest lasting sound's level (None: dominance off)
    #: The room's floor within ``chatter_room`` of the loud level (median over the
    #: bands): chatter may pass for the chant there (False with dominance off).
    noisy: list[bool]
    above: np.ndarray  # level above the floor in force, less the margin (0 at least)
    dev: np.ndarray  # each band's typical fluctuation (0 before it is known)
    # One number a frame, as Python floats (the detector reads them one by one):
    flux: list[float]  # net rise since ``lag + 1`` frames back, bels over bands (0 at least; 0 in warm-up)
    cflux: list[float]  # rises of the consonant bands only
    cnet: list[float]  # ... less their falls
    act: list[float]  # activity: bels above the floor, summed over bands
    room_fall: list[float]  # the fastest fall of the upper bands' mean level lately
    flux_median: list[float]  # median of ``flux`` over the ``median_frames`` before (0: none)
    cflux_median: list[float]  # ... and of ``cflux``


class BandStats:
    """Per-band state of the onset detector, advanced a block of frames at a time."""

    def __init__(self, p: OnsetParams, n_bands: int, cons: int, upper: int):
        self.p = p
        self._cons, self._upper = cons, upper
        # The recursions' constants as arrays: a scalar costs numpy a
        # conversion per call, and these run once per frame.
        self._k = {name: np.full(n_bands, v) for name, v in (
            ("keep", 0.6), ("zero", 0.0), ("up", p.dom_up), ("down", -p.dom_down),
            ("three", 3.0), ("rate", p.dev_rate), ("least", 0.02), ("fresh", 0.05))}
        self._seen = 0  # frames followed since the statistics were (re)started
        self._smooth: np.ndarray | None = None
        self._sub_min: np.ndarray | None = None  # minimum of the current sub-block
        # Minima of the last ``floor_frames // SUB`` sub-blocks (+inf: not yet filled).
        self._sub_mins = np.full((p.floor_frames // SUB, n_bands), np.inf)
        self._sub_at = 0
        self._old_min: np.ndarray | None = None
        # The last ``dom_hold - 1`` smoothed spectra, oldest first (+inf: none yet).
        self._held = np.full((p.dom_hold - 1, n_bands), np.inf)
        self._loud: np.ndarray | None = None
        self._prev_above = np.zeros((0, n_bands))  # the last ``lag + 1`` rows of ``above``
        self._dev: np.ndarray | None = None
        self._last_efloor = math.inf  # the energy floor under the last frame followed
        self._upper_means = np.zeros(0)  # the last ``fall_frames`` upper means
        self._room_fall = 3.0
        self._flux_median = RunningMedian(p.median_frames)
        self._cflux_median = RunningMedian(p.median_frames)
        from scipy.signal import lfilter

        self._lfilter = lfilter
        # Its coefficients as arrays: lists cost lfilter a third of its time in conversions.
        self._ba = (np.array([0.4]), np.array([1.0, -0.6]))

    def advance(self, levels: np.ndarray, muted: np.ndarray, efloor: np.ndarray) -> BandFrames:
        """Follow the frames ``levels`` (rows); ``muted[k]``: the host spoke over frame k;
        ``efloor[k]``: the energy floor (bels) under frame k's bands."""
        p = self.p
        n, nb = levels.shape
        # Smoothing: 0.6 of the last value and 0.4 of the new, a first-order
        # filter (lfilter's arithmetic is the recursion's, value for value).
        # A stream's first smoothed value is its first level.
        fresh = self._smooth is None
        start, prev = (1, levels[0]) if fresh else (0, self._smooth)
        smooth = np.empty_like(levels)
        smooth[0] = levels[0]
        if n > start:
            smooth[start:] = self._lfilter(*self._ba, levels[start:], axis=0,
                                           zi=(prev * self._k["keep"])[None])[0]

        # Minimum statistics: minima of ``SUB``-frame sub-blocks, kept for
        # ``floor_frames``; the floor is the least of those and of the
        # current sub-block's.
        room = np.empty_like(levels)
        k = 0
        if fresh:
            self._sub_min = levels[0].copy()
            self._push_sub(levels[0])
            room[0] = levels[0]
            k = 1
        while k < n:
            # Frames k .. end - 1 are in the current sub-block, whose last
            # frame (if it comes in this block) is end - 1.
            to_end = SUB - 1 - (self._seen + k) % SUB
            end = min(n, k + to_end + 1)
            run = np.minimum.accumulate(np.concatenate([self._sub_min[None], smooth[k:end]]), axis=0)[1:]
            if k + to_end < n:  # the sub-block ends here
                np.minimum(self._old_min, run[:-1], out=room[k : end - 1])
                self._push_sub(run[-1])
                self._sub_min = smooth[end - 1].copy()
                np.minimum(self._old_min, self._sub_min, out=room[end - 1])
            else:
                np.minimum(self._old_min, run, out=room[k:end])
                self._sub_min = run[-1].copy()
            k = end

        # The loud level, from sound that lasted ``dom_hold`` frames.
        loud = None
        floor = room
        if p.dominance > 0:
            ext = np.concatenate([self._held, smooth])
            lasting = ext[: n].copy()
            for j in range(1, p.dom_hold):
                np.minimum(lasting, ext[j : j + n], out=lasting)
            self._held = ext[len(ext) - (p.dom_hold - 1) :].copy()
            # It follows a louder sound at ``dom_up`` of the way a frame, and
            # falls ``dom_down`` bels a frame otherwise (elementwise, so that
            # the 40 bands cost a few numpy calls a frame).
            loud = np.empty_like(levels)
            step = np.empty(nb)
            quieter = np.empty(nb, dtype=bool)
            zero, up, down = self._k["zero"], self._k["up"], self._k["down"]
            last = self._loud
            for k in range(n):
                row = loud[k]
                if last is None:
                    row[:] = lasting[k]
                elif muted[k]:
                    row[:] = last
                else:
                    np.subtract(lasting[k], last, out=step)
                    np.less_equal(step, zero, out=quieter)
                    step *= up
                    np.copyto(step, down, where=quieter)
                    np.add(last, step, out=row)
                last = row
            self._loud = last.copy()
            floor = np.maximum(room, loud - p.dominance)
        above = np.maximum(levels - floor - p.floor_margin, 0.0)

        # How fast sound dies in this room: the upper bands' mean level's
        # fastest fall over ``fall_frames`` lately.
        means = np.concatenate([self._upper_means,
                                levels[:, self._upper :].sum(axis=1) / (nb - self._upper)])
        span = p.fall_frames
        falls = (means[:-span] - means[span:]).tolist()  # frames with ``span`` frames before them
        self._upper_means = means[-span:]
        fall = self._room_fall
        room_fall = [fall] * (n - len(falls))  # as it was, until ``span`` frames are known
        for f in falls:
            fall = max(fall * p.fall_forget, f)
            room_fall.append(fall)
        self._room_fall = fall
        act = above.sum(axis=1)

        # Rises since ``lag + 1`` frames back, each band's counted beyond its
        # own fluctuation.
        back = p.lag + 1
        m = len(self._prev_above)
        ext = np.concatenate([self._prev_above, above])
        self._prev_above = ext[-back:].copy()
        first = max(0, back - m)  # the first frame with a row that far back
        dev = np.zeros_like(levels)
        flux = np.zeros(n)
        cflux = np.zeros(n)
        cnet = np.zeros(n)
        relearn = self._relearn_at(efloor)  # every frame's floor, so that it is known for the next
        if first < n:
            d = above[first:] - ext[m + first - back : m + n - back]
            ad = np.abs(d)
            three, rate, least = self._k["three"], self._k["rate"], self._k["least"]
            for k in range(first, n):
                last = dev[k - 1] if k > first else self._dev
                if relearn[k] and last is not None:
                    last = self._k["fresh"]
                row = dev[k]
                if last is None:
                    np.maximum(ad[k - first], 0.05, out=row)
                else:
                    np.multiply(last, three, out=row)
                    np.minimum(ad[k - first], row, out=row)
                    row -= last
                    row *= rate
                    row += last
                    np.maximum(row, least, out=row)
            self._dev = dev[n - 1].copy()
            z = p.dev_mult * dev[first:]
            rises = np.maximum(d - z, 0.0)
            falls = np.maximum(-d - z, 0.0)
            # Net rise: a change of spectral shape mostly cancels.
            flux[first:] = np.maximum(rises.sum(axis=1) - p.neg_weight * falls.sum(axis=1), 0.0)
            cflux[first:] = rises[:, self._cons :].sum(axis=1)
            cnet[first:] = cflux[first:] - falls[:, self._cons :].sum(axis=1)
        # The flux means nothing until the floor has a few frames.
        flux[: max(0, p.warmup_frames - self._seen)] = 0.0
        flux, cflux = flux.tolist(), cflux.tolist()
        flux_median = self._flux_median.medians_before(flux)
        cflux_median = self._cflux_median.medians_before(cflux)
        self._smooth = smooth[-1].copy()
        self._seen += n
        noisy = ([False] * n if loud is None
                 else (_median_rows(loud - room) <= p.chatter_room).tolist())
        return BandFrames(level=levels, efloor=efloor, room=room, loud=loud, noisy=noisy,
                          above=above, dev=dev,
                          flux=flux, cflux=cflux, cnet=cnet.tolist(),
                          act=act.tolist(), room_fall=room_fall, flux_median=flux_median,
                          cflux_median=cflux_median)

    def _relearn_at(self, efloor: np.ndarray) -> list[bool]:
        """The frames at which each band's fluctuation is learnt anew: the floor jumped ``dev_relearn``.

        A near-silent room (a quiet living room, 40 to 80 dB under the
        chant) is heard under an energy floor that far down, and each band's
        fluctuation is learnt on its faint noise. When the chant comes, the
        floor rises with it at once and flattens that noise, but the
        fluctuation learnt on it took a second or more to fade, and rises
        under it went uncounted: the Tum after "kar", rising over the echo
        of a reverberant room, was lost for the first bars. The floor rises
        this much from one frame to the next only when a sound that lasts
        comes 20 dB over the loudest the room held before it: what the room's
        own noise did says nothing of it. A floor that creeps up (a song
        sung louder, the room filling) keeps what was learnt (measured: the
        fluctuation learnt anew whenever the floor had risen 2 bels over its
        lowest since, last Tums located on the 13 chant sets of the
        benchmark fell from 776 to 723 of 875).
        """
        out = []
        last, jump = self._last_efloor, self.p.dev_relearn
        for f in efloor.tolist():
            out.append(f - last > jump)
            last = f
        self._last_efloor = last
        return out

    def _push_sub(self, row: np.ndarray) -> None:
        self._sub_mins[self._sub_at % len(self._sub_mins)] = row
        self._sub_at += 1
        self._old_min = self._sub_mins.min(axis=0)


class RunningMedian:
    """Median of the last ``n`` values, kept sorted.

    A sorted list and bisect cost about 2 microseconds a value; numpy's
    median of a window costs tens (its checks and dispatch, at this size).
    """

    def __init__(self, n: int):
        self._window: deque[float] = deque()
        self._sorted: list[float] = []
        self._n = n

    def append(self, v: float) -> None:
        self._window.append(v)
        bisect.insort(self._sorted, v)
        if len(self._window) > self._n:
            old = self._window.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]

    def median(self) -> float:
        """0 before any value; the mean of the middle two for an even count."""
        n = len(self._sorted)
        if n == 0:
            return 0.0
        m = n // 2
        return self._sorted[m] if n % 2 else 0.5 * (self._sorted[m - 1] + self._sorted[m])

    def medians_before(self, values: list[float]) -> list[float]:
        """Each value's median of the ``n`` before it; the values are then kept."""
        out = []
        for v in values:
            out.append(self.median())
            self.append(v)
        return out


def _median_rows(values: np.ndarray) -> np.ndarray:
    """Each row's median, in the arithmetic of ``onsets._quantile(row, 0.5)`` (the same floats).

    The detector asked it of one frame at a time, every frame: a block's
    frames at once cost one sort instead of one sort and a dozen numpy calls
    each.
    """
    v = np.sort(values, axis=1)
    x = (v.shape[1] - 1) * 0.5
    i = int(x)
    if i + 1 >= v.shape[1]:
        return v[:, -1]
    a, b, g = v[:, i], v[:, i + 1], x - i
    return a + (b - a) * g if g < 0.5 else b - (b - a) * (1.0 - g)
