"""How far a phone's clock is from the host's sample clock (NTP's estimate).

Every exchange gives four stamps: ``t0`` when the phone sent a ping (phone
clock), ``t1``/``t2`` when the host received it and answered (host clock),
``t3`` when the answer reached the phone (phone clock). With
``offset = ((t1 - t0) + (t2 - t3)) / 2`` and ``delay = (t3 - t0) - (t2 - t1)``,
the true offset lies within ``offset ± delay / 2`` whatever the split of the
delay between the two directions. Wi-Fi delays vary a lot from one packet to
the next, so, as NTP's clock filter does, the estimate is the sample with the
smallest delay of a recent window: its bound is the tightest.

A phone's clock and the sound card's run at slightly different rates, so the
bound grows with the age of the sample (``drift`` seconds per second).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

#: Tolerated rate difference between a phone's clock and the sound card's.
DEFAULT_DRIFT = 100e-6
#: Browsers coarsen performance.now() (Chrome: 100 microseconds).
DEFAULT_RESOLUTION = 100e-6


@dataclass(frozen=True)
class ClockSample:
    """One ping exchange: phone send, host receive, host send, phone receive (seconds)."""

    t0: float
    t1: float
    t2: float
    t3: float

    @property
    def offset(self) -> float:
        """Host time minus phone time."""
        return ((self.t1 - self.t0) + (self.t2 - self.t3)) / 2.0

    @property
    def delay(self) -> float:
        """Round trip on the network, without the host's own turnaround."""
        return (self.t3 - self.t0) - (self.t2 - self.t1)

    def valid(self, resolution: float = DEFAULT_RESOLUTION) -> bool:
        stamps = (self.t0, self.t1, self.t2, self.t3)
        if not all(isinstance(t, (int, float)) and math.isfinite(t) for t in stamps):
            return False
        # A coarse phone clock can make a fast round trip look a little negative.
        return self.t2 >= self.t1 and self.t3 >= self.t0 and self.delay >= -2 * resolution


@dataclass(frozen=True)
class ClockEstimate:
    """``host_time = phone_time + offset``, true within ``± error`` seconds."""

    offset: float
    delay: float
    error: float
    samples: int
    at: float  # host time of the sample used

    def to_dict(self) -> dict[str, float | int]:
        return {"offset": self.offset, "delay": self.delay, "error": self.error,
                "samples": self.samples}


@dataclass
class ClockEstimator:
    """The minimum-delay sample of the last ``window`` exchanges."""

    window: int = 16
    drift: float = DEFAULT_DRIFT
    resolution: float = DEFAULT_RESOLUTION
    _samples: deque = field(default_factory=deque, repr=False)
    count: int = 0

    def add(self, sample: ClockSample) -> bool:
        """Keep a sample; False (and ignored) when its stamps cannot be true."""
        if not sample.valid(self.resolution):
            return False
        self._samples.append(sample)
        while len(self._samples) > self.window:
            self._samples.popleft()
        self.count += 1
        return True

    def estimate(self, now: float | None = None) -> ClockEstimate | None:
        """The best estimate; ``now`` (host clock) ages its error bound."""
        if not self._samples:
            return None
        best = min(self._samples, key=lambda s: s.delay)
        delay = max(0.0, best.delay)
        error = delay / 2.0 + self.resolution
        if now is not None:
            error += self.drift * max(0.0, now - best.t2)
        return ClockEstimate(best.offset, delay, error, len(self._samples), best.t2)

    def to_host(self, phone_t: float, now: float | None = None) -> tuple[float, float] | None:
        """A phone time on the host's clock, and its error bound (None before any sample)."""
        est = self.estimate(now)
        if est is None:
            return None
        return phone_t + est.offset, est.error
