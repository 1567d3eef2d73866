"""The phone clock estimate (NTP's four stamps) against simulated networks."""

import math
import random

import pytest

from voicehost.companion.clock import ClockEstimator, ClockSample


def exchange(rng, offset, host_t, up, down, turnaround=0.0002):
    """One ping: phone sends at host time ``host_t``; ``up``/``down`` one-way delays."""
    t0 = host_t - offset            # phone clock = host clock - offset
    t1 = host_t + up
    t2 = t1 + turnaround
    t3 = (t2 + down) - offset
    return ClockSample(t0, t1, t2, t3)


def test_symmetric_delay_gives_the_exact_offset():
    s = exchange(random.Random(0), offset=123.456, host_t=10.0, up=0.02, down=0.02)
    assert s.offset == pytest.approx(123.456, abs=1e-9)
    assert s.delay == pytest.approx(0.04, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_true_offset_is_always_within_the_reported_error(seed):
    rng = random.Random(seed)
    offset = rng.uniform(-1000, 1000)
    est = ClockEstimator(window=16, drift=0.0)
    t = 0.0
    for _ in range(200):
        t += rng.uniform(0.05, 2.0)
        # Wi-Fi: a floor of 2 ms, heavy tails, very asymmetric at times.
        up = 0.002 + rng.expovariate(1 / 0.015)
        down = 0.002 + rng.expovariate(1 / 0.030)
        est.add(exchange(rng, offset, t, up, down))
        e = est.estimate()
        assert abs(e.offset - offset) <= e.error + 1e-12


def test_minimum_delay_sample_wins_over_the_window():
    rng = random.Random(3)
    offset = 50.0
    est = ClockEstimator(window=8, drift=0.0, resolution=0.0)
    for i, (up, down) in enumerate([(0.05, 0.01), (0.03, 0.09), (0.004, 0.002), (0.2, 0.02)]):
        est.add(exchange(rng, offset, 1.0 + i, up, down, turnaround=0.0))
    e = est.estimate()
    assert e.delay == pytest.approx(0.006)
    assert e.error == pytest.approx(0.003)
    assert abs(e.offset - offset) == pytest.approx(0.001)  # half the asymmetry


def test_error_shrinks_as_samples_come_in():
    rng = random.Random(7)
    est = ClockEstimator(window=32, drift=0.0)
    errors = []
    for i in range(30):
        est.add(exchange(rng, 5.0, i * 0.1, 0.002 + rng.expovariate(1 / 0.02),
                         0.002 + rng.expovariate(1 / 0.02)))
        errors.append(est.estimate().error)
    assert errors == sorted(errors, reverse=True)
    assert errors[-1] < errors[0] / 2


def test_old_samples_leave_the_window():
    rng = random.Random(1)
    est = ClockEstimator(window=4, drift=0.0, resolution=0.0)
    est.add(exchange(rng, 1.0, 0.0, 0.0005, 0.0005, turnaround=0.0))  # excellent, then gone
    for i in range(4):
        est.add(exchange(rng, 1.0, 1.0 + i, 0.02, 0.02, turnaround=0.0))
    assert est.estimate().delay == pytest.approx(0.04)


def test_a_drifting_phone_clock_stays_within_the_aged_bound():
    rng = random.Random(11)
    ppm = 60e-6
    est = ClockEstimator(window=16, drift=100e-6)
    for i in range(20):
        host_t = i * 2.0
        offset = 7.0 + ppm * host_t  # the phone's clock runs slow
        est.add(exchange(rng, offset, host_t, 0.003 + rng.expovariate(1 / 0.01),
                         0.003 + rng.expovariate(1 / 0.01)))
    later = 40.0 + 30.0  # a tap 30 s after the last ping
    e = est.estimate(now=later)
    true_offset = 7.0 + ppm * later
    assert abs(e.offset - true_offset) <= e.error
    assert e.error > est.estimate(now=40.0).error


def test_impossible_stamps_are_refused():
    est = ClockEstimator()
    assert not est.add(ClockSample(0.0, 1.0, 0.9, 0.5))   # host answered before it heard
    assert not est.add(ClockSample(1.0, 5.0, 5.0, 0.5))   # phone heard before it asked
    assert not est.add(ClockSample(0.0, 5.0, 5.0, 0.0 - 0.01 + 0.0))
    assert not est.add(ClockSample(math.nan, 1.0, 1.0, 1.0))
    assert est.estimate() is None
    assert est.to_host(3.0) is None
    assert est.add(ClockSample(0.0, 10.0, 10.0, 0.0))  # a coarse phone clock: zero delay
    assert est.to_host(3.0)[0] == pytest.approx(13.0)


def test_to_host_maps_a_tap_and_reports_its_bound():
    rng = random.Random(2)
    est = ClockEstimator(drift=0.0)
    est.add(exchange(rng, -20.0, 100.0, 0.01, 0.03))
    host_t, err = est.to_host(90.5)  # phone time
    assert abs(host_t - (90.5 - 20.0)) <= err
