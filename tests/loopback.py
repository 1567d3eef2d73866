"""Did the loopback sound card deliver what was played, whole and in order?

A live test plays a recording into PulseAudio's null sink while the host
records its monitor. On a loaded machine the rig itself can lose audio:
``paplay`` underruns (the sink plays silence, and everything after is late)
or the host's input overflows (a stretch is replaced by silence). The host
then hears another match than the recording holds, and its outcome may
rightly differ. This tells the two cases apart: every voiced half second of
the played file must be found in what the host recorded at one and the same
lag, nearly sample for sample.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

#: Seconds per piece of the played file looked for in the recording.
CHUNK = 0.5
#: How far (s) each piece is looked for around where it should be.
SEARCH = 1.0
#: Normalised correlation a piece must reach to count as delivered.
MIN_MATCH = 0.9
#: RMS under which a piece is not looked for: the loopback's own hiss and
#: resampling alter a piece this quiet (matches of 0.84 measured) though whole.
QUIET = 0.03


def loopback_faults(played: np.ndarray, heard: np.ndarray, rate: int) -> list[str]:
    """Where ``heard`` does not hold ``played`` at one lag: empty when the loopback was whole.

    Pieces of ``played`` that ``heard`` ends before (the host finished
    first) are not looked for.
    """
    from scipy.signal import correlate

    played = np.asarray(played, dtype=np.float64)
    heard = np.asarray(heard, dtype=np.float64)
    n, m = int(CHUNK * rate), int(SEARCH * rate)
    found: list[tuple[float, int, float]] = []
    for start in range(0, len(played) - n + 1, n):
        piece = played[start:start + n]
        if np.sqrt(np.mean(piece ** 2)) < QUIET:  # silence, or near it, matches anywhere
            continue
        lo, hi = max(0, start - m), min(len(heard), start + n + m)
        if hi - lo < n:
            break
        window = heard[lo:hi]
        cc = correlate(window, piece, mode="valid", method="fft")
        energy = np.sqrt(np.convolve(window ** 2, np.ones(n), "valid") * np.sum(piece ** 2))
        score = cc / np.maximum(energy, 1e-12)
        k = int(np.argmax(score))
        if found and start + found[0][1] + n > len(heard):
            break  # the recording ends inside this piece
        found.append((start / rate, lo + k - start, float(score[k])))
    if not found:
        return ["nothing played was heard"]
    lag = found[0][1]  # where the file started: what comes later is judged against it
    faults = []
    for t, piece_lag, score in found:
        if abs(piece_lag - lag) > rate // 1000:
            faults.append(f"{t:.1f} s of the file came {1000 * (piece_lag - lag) / rate:+.0f} ms "
                          "off (audio lost or inserted before it)")
        elif score < MIN_MATCH:
            faults.append(f"{t:.1f} s of the file was heard altered (match {score:.2f})")
    return faults


def played_whole_or_again(play: Callable[[int], tuple[Any, Path]], check: Callable[[Any], None],
                          played: np.ndarray, rate: int = 16000) -> Any:
    """``play(attempt)`` once, or twice when ``check`` fails and the loopback lost audio.

    ``play`` returns its result and the path of what the host recorded;
    ``check`` raises AssertionError when the result is not the file's. A
    failure on a whole delivery is the host's, and is raised as it is.
    """
    from voicehost.audio.sources import FileSource

    lost = []
    for attempt in range(2):
        result, heard = play(attempt)
        try:
            check(result)
            break
        except AssertionError:
            faults = loopback_faults(played, FileSource(heard).read(), rate)
            if not faults:
                raise  # the host heard the file whole and still got it wrong
            lost.append(f"attempt {attempt + 1}: " + "; ".join(faults[:3]))
    else:
        raise AssertionError("the loopback lost audio both times:\n" + "\n".join(lost))
    if lost:
        print("played again after the loopback lost audio:", *lost, sep="\n")
    return result


@contextlib.contextmanager
def slow_speaker(pulse: Any, delay_ms: int) -> Iterator[str]:
    """A sink that plays into the loopback's sink ``delay_ms`` late (PulseAudio's
    ``module-loopback``, which lands somewhat later than asked): a Bluetooth speaker
    plays 0.2 to 0.3 s late, a network one a second or two. Yields its name."""
    sink = f"{pulse.sink}_slow{delay_ms}"
    modules = []
    try:
        for args in (["module-null-sink", f"sink_name={sink}", "rate=48000"],
                     ["module-loopback", f"source={sink}.monitor", f"sink={pulse.sink}",
                      f"latency_msec={delay_ms}"]):
            done = pulse.pactl("load-module", *args)
            assert done.returncode == 0, f"cannot load {args[0]}: {done.stderr.strip()}"
            modules.append(done.stdout.strip())
        yield sink
    finally:
        for module in reversed(modules):
            pulse.pactl("unload-module", module)


def calibrated_on(env: dict[str, str], timeout: float = 60) -> dict[str, Any]:
    """What ``voicehost calibrate --json`` measured on the "pulse" devices that ``env`` routes."""
    done = subprocess.run([sys.executable, "-m", "voicehost", "calibrate", "--input-device",
                           "pulse", "--output-device", "pulse", "--json"],
                          capture_output=True, text=True, env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
