"""Faults a live game meets, and how the host keeps going through them.

- The sound device vanishes mid-game (the session's PulseAudio is stopped):
  the source says so, retries, resumes when it is back, and the sample clock
  counts the outage as silence, so sounds after it keep their true distance
  from sounds before it.
- The process stalls (CPU load; simulated by SIGSTOP): the input overflows,
  the overflow is reported, and the audio that was lost is put back as
  silence so the clock still equals real time.
- The journal's disk is full or read-only: one clear error line and exit 2,
  with every event the host acted on already on disk; resuming later
  finishes the game exactly as if nothing had happened.
- A crash at any event (SIGKILL at random points, including mid-write):
  ``voicehost resume`` gives the same state as an uninterrupted game.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.blocks import Block
from voicehost.audio.resilient import DeviceBack, DeviceLost, ResilientSource
from voicehost.errors import DeviceError

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "audio_fixtures" / "games"
WIN_WAV = GAMES / "drakkar_win.wav"
WIN_SIDE = GAMES / "drakkar_win.declarations.json"


# -- the resilient source on its own (no sound card) ---------------------------------
class FakeDevice:
    """Blocks in real time until ``fail_after`` blocks, then silence for ever (a dead stream).

    Paced by the clock, as a sound card is: a block is due when its audio has
    been recorded. A fixed sleep per block fell behind real time on a loaded
    machine (each sleep overran), and the clock tests then failed for the
    fake's sake (0.24 s behind after 2 s, under two other processes).
    """

    def __init__(self, fail_after: int | None = None, block: int = 160, rate: int = 16000):
        self.fail_after = fail_after
        self.block = block
        self.rate = rate
        self.closed = threading.Event()

    def blocks(self):
        i = 0
        start = time.monotonic()
        while not self.closed.is_set():
            if self.fail_after is not None and i >= self.fail_after:
                self.closed.wait()  # PortAudio simply stops calling back
                return
            wait = start + (i + 1) * self.block / self.rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            yield Block(i * self.block, np.full(self.block, 0.5, np.float32), self.rate)
            i += 1

    def close(self):
        self.closed.set()


def test_a_vanished_device_is_reported_retried_and_the_clock_runs_on():
    opens = []

    def open_source():
        opens.append(time.monotonic())
        if len(opens) == 1:
            return FakeDevice(fail_after=20)  # 0.2 s of audio, then the cable is pulled
        if len(opens) <= 3:
            raise DeviceError("no input device named like \"usb\"")
        return FakeDevice()

    events = []
    src = ResilientSource(open_source, blocksize=160, on_event=events.append,
                          stall_timeout=0.3, retry_every=0.2)
    blocks = []
    wall0 = time.monotonic()
    during = []
    for b in src.blocks():
        blocks.append(b)
        if len(events) == 1:  # gone: the clock counts on with the silence
            during.append(src.now() - b.end / 16000)
        if len(events) >= 2 and b.end >= blocks[0].end + 16000 * 1.5 and b.samples.any():
            break
    wall = time.monotonic() - wall0
    src.close()
    lost, back = events[0], events[1]
    assert isinstance(lost, DeviceLost) and "no sound" in lost.reason
    assert lost.t == pytest.approx(0.2, abs=0.02)
    assert isinstance(back, DeviceBack) and back.attempts == 3
    # One continuous sample clock: each block starts where the last ended.
    assert all(a.end == b.start for a, b in zip(blocks, blocks[1:]))
    # The outage is silence, and as long as it really was (the clock stays
    # with real time: the audio delivered equals the time that passed).
    x = np.concatenate([b.samples for b in blocks])
    gap = np.flatnonzero(x == 0)
    assert len(gap) / 16000 == pytest.approx(back.gap, abs=0.011)
    assert back.gap > 0.3
    assert len(x) / 16000 == pytest.approx(wall, abs=0.25)
    assert src.stats.losses == 1 and src.stats.reconnects == 1
    assert during and min(during) >= -0.001 and max(during) <= 1.0


def test_the_clock_now_is_where_the_device_is_even_with_audio_waiting_to_be_read():
    """A host busy elsewhere (the cards going round) reads the queued audio
    later; ``now`` is the device's clock, not the reader's: a host that
    skips to it listens from the present."""
    src = ResilientSource(lambda: FakeDevice(), blocksize=160)
    blocks = src.blocks()
    first = next(blocks)
    second = next(blocks)
    start = time.monotonic() - second.end / 16000
    time.sleep(2.0)  # busy: nothing read
    now, wall = src.now(), time.monotonic() - start
    assert now == pytest.approx(wall, abs=0.15)  # not the 1 s cap past what was read
    waiting = []
    for b in blocks:
        waiting.append(b)
        if b.end / 16000 >= now:
            break
    src.close()
    assert first.start == 0 and waiting[-1].end / 16000 == pytest.approx(now, abs=0.02)


class JitteryDevice(FakeDevice):
    """Blocks recorded in real time but handed over 0 to 50 ms after they end, at random.

    A sound server delivers so: in bursts, a buffer late now and then. A key
    stamped from the newest block's arrival alone came as early as that
    block was late.
    """

    def blocks(self):
        rng = np.random.default_rng(3)
        start = self.started = time.monotonic()
        due = start
        i = 0
        while not self.closed.is_set():
            ended = start + (i + 1) * self.block / self.rate
            due = max(due, ended + (0.0 if i % 10 == 0 else rng.uniform(0.0, 0.05)))
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            yield Block(i * self.block, np.full(self.block, 0.5, np.float32), self.rate)
            i += 1


def test_a_key_is_stamped_where_the_device_is_whatever_the_newest_block_came_late():
    device = JitteryDevice()
    src = ResilientSource(lambda: device, blocksize=160)
    stop = threading.Event()

    def read():
        for _ in src.blocks():
            if stop.is_set():
                break

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.5)  # the path's latency learnt from its punctual blocks
    rng = np.random.default_rng(5)
    errors = []
    for _ in range(60):
        time.sleep(rng.uniform(0.01, 0.04))
        before = time.monotonic()
        now = src.now()
        after = time.monotonic()
        if after - before < 0.002:  # not preempted between the readings
            errors.append(now - (before + after) / 2 + device.started)
    stop.set()
    src.close()
    reader.join(2)
    errors = np.array(errors)
    assert len(errors) >= 30
    # The newest block was 25 ms late on average: the stamp is not.
    assert abs(np.median(errors)) < 0.006, errors
    assert np.percentile(np.abs(errors), 90) < 0.012, errors


def test_a_device_that_never_comes_back_gives_up_with_a_clear_error():
    calls = []

    def open_source():
        calls.append(1)
        if len(calls) == 1:
            return FakeDevice(fail_after=5)
        raise DeviceError("no input device")

    src = ResilientSource(open_source, blocksize=160, stall_timeout=0.2, retry_every=0.1,
                          max_outage=0.6)
    with pytest.raises(DeviceError, match="gone for 0.6 s"):
        for _ in src.blocks():
            pass
    assert len(calls) >= 3


def test_the_first_open_error_is_the_users_to_see():
    def open_source():
        raise DeviceError('no input device named like "bluetooth"; input devices are: 0: pulse.')

    with pytest.raises(DeviceError, match="bluetooth"):
        next(iter(ResilientSource(open_source).blocks()))


# -- the real sound card ---------------------------------------------------------------
LISTEN = r"""
import json, sys, time
from voicehost.audio.microphone import MicrophoneSource
from voicehost.audio.onsets import OnsetDetector
from voicehost.audio.resilient import ResilientSource
seconds, stall = float(sys.argv[1]), float(sys.argv[2])
def say(kind, **kw):
    print(json.dumps({"event": kind, **kw}), flush=True)
src = ResilientSource(lambda: MicrophoneSource("pulse", blocksize=160, max_queue=20),
                      blocksize=160, stall_timeout=stall, retry_every=0.5,
                      on_event=lambda e: say(type(e).__name__, **e.__dict__))
det = OnsetDetector()
for i, b in enumerate(src.blocks()):
    if i == 0:
        say("ready")
    for o in det.process(b):
        say("onset", t=o.t)
    if b.end / b.rate >= seconds:
        break
src.close()
say("end", clock=src.delivered, repaired=src.stats.repaired_seconds, overflows=src.stats.overflows)
"""


def _click_file(path: Path, times: list[float], length: float, rate: int = 48000) -> None:
    import soundfile as sf

    x = np.zeros(int(length * rate), np.float32)
    rng = np.random.default_rng(0)
    for t in times:
        i = int(t * rate)
        x[i : i + 240] = 0.8 * rng.standard_normal(240) * np.exp(-np.arange(240) / 60)
    sf.write(path, x, rate)


class Listener:
    """The listening subprocess, its events read on a thread as they come."""

    def __init__(self, seconds: float, stall: float):
        self.proc = subprocess.Popen([sys.executable, "-c", LISTEN, str(seconds), str(stall)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, PYTHONPATH=str(ROOT)))
        self.events: list[dict] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.events.append(json.loads(line))

    def wait_for(self, kind: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events:
                if e["event"] == kind:
                    return e
            if self.proc.poll() is not None and not self._thread.is_alive():
                break
            time.sleep(0.02)
        err = self.proc.stderr.read() if self.proc.poll() is not None else ""
        raise AssertionError(f"no {kind} event; got {self.events[-5:]} {err[-1500:]}")

    def finish(self, timeout: float = 60) -> list[dict]:
        self.proc.wait(timeout)
        self._thread.join(5)
        assert self.proc.returncode == 0, self.proc.stderr.read()[-2000:]
        return self.events

    def onsets(self) -> list[float]:
        return [e["t"] for e in self.events if e["event"] == "onset"]


def _play(path: Path) -> float:
    """Play a file into the sink; the wall time just before it started."""
    t = time.monotonic()
    subprocess.run(["paplay", str(path)], check=True, timeout=30)
    return t


def test_sound_device_vanishes_mid_game_and_comes_back(pulse, tmp_path):
    """Stop PulseAudio under a listening source: reported, retried, resumed, clock intact."""
    assert pulse.owned, "this test stops the sound server, so it must be the session's own"
    click = tmp_path / "click.wav"
    _click_file(click, [0.2], 0.6)
    listener = Listener(seconds=30.0, stall=1.0)
    try:
        listener.wait_for("ready")
        time.sleep(0.5)
        before = _play(click)
        time.sleep(0.5)
        stopped = time.monotonic()
        pulse.stop()  # the sound card vanishes
        lost = listener.wait_for("DeviceLost", timeout=10)
        time.sleep(2.0)
        pulse.start()
        back = listener.wait_for("DeviceBack", timeout=20)
        restarted = time.monotonic()
        time.sleep(0.5)
        after = _play(click)
        time.sleep(1.0)
    finally:
        if not pulse.running:
            pulse.start()
        listener.proc.terminate()
    listener.proc.wait(10)
    on = listener.onsets()
    assert len(on) == 2, on
    assert "no sound" in lost["reason"] or "stopped" in lost["reason"]
    # The outage is counted: at least as long as the server was really away.
    assert back["gap"] >= (restarted - stopped) - 1.5
    assert back["gap"] >= 2.0
    # The click played after the outage keeps its true distance from the one
    # before: the sample clock went on through the gap. The tolerance covers
    # paplay's start-up and the reconnection's block (both a few tens of ms).
    assert (on[1] - on[0]) == pytest.approx(after - before, abs=0.15)


def test_input_overflow_under_a_stall_is_reported_and_timing_stays_right(pulse, tmp_path):
    """Freeze the listener (SIGSTOP) for 3 s while clicks play every 0.5 s.

    Three seconds overrun the microphone's queue and the sound server's buffer
    for the stream, so audio is really lost (how much depends on the server).
    """
    clicks = tmp_path / "clicks.wav"
    _click_file(clicks, [0.5 + 0.5 * k for k in range(18)], 9.6)
    listener = Listener(seconds=14.0, stall=5.0)
    listener.wait_for("ready")
    player = subprocess.Popen(["paplay", str(clicks)])
    time.sleep(3.5)
    os.kill(listener.proc.pid, signal.SIGSTOP)  # a CPU hog starves it completely
    time.sleep(3.0)
    os.kill(listener.proc.pid, signal.SIGCONT)
    player.wait(30)
    events = listener.finish()
    overflows = [e for e in events if e["event"] == "Overflow"]
    end = events[-1]
    on = np.array(listener.onsets())
    # Clicks heard after the stall are still on the 0.5 s grid of those before it:
    # the lost audio came back as silence of the right length.
    phase = (on - on[0] + 0.25) % 0.5 - 0.25
    if not overflows:
        # Under a lighter load the sound server may hold the whole stall in its
        # buffer and deliver it late: then nothing was lost and nothing may be
        # reported, but every click must still be heard, on the grid.
        assert end["overflows"] == 0
        assert len(on) == 18 and np.all(np.abs(phase) < 0.03), (on, phase)
        return
    assert end["overflows"] >= 1
    print(f"\noverflow: {end['overflows']} overflows, {end['repaired']:.3f} s of lost audio "
          f"put back; click phase errors (ms) {np.round(phase * 1000, 1).tolist()}")
    # Where exactly in the burst of late audio the hole was is unknown here
    # (the pulse plugin's timestamps are unusable), so the clicks of the first
    # second after the stall may be misplaced by up to the audio lost; all
    # clicks before it and from then on are on the grid.
    off = np.flatnonzero(np.abs(phase) >= 0.03)
    assert len(off) <= 3, phase
    for i in off:
        assert 0 <= on[i] - overflows[0]["t"] < 2.5, (on, overflows)
        assert abs(phase[i]) <= end["repaired"] + 0.03, (phase, end)
    assert np.all(np.abs(phase[on > overflows[0]["t"] + 2.5]) < 0.03)
    # The lost audio came back as silence: from the microphone's own queue
    # (buffers dropped while the consumer was frozen, filled in place) or, for
    # an overrun the microphone cannot measure, from the resilient source.
    # Some clicks were lost with the audio, the rest heard.
    assert 10 <= len(on) <= 18


# -- the journal -----------------------------------------------------------------------
FAIL_JOURNAL = r"""
import errno, os, sys
import voicehost.journal as journal
after, code = int(sys.argv[1]), getattr(errno, sys.argv[2])
real_write, writes = os.write, [0]
def write(fd, data):
    if data.startswith(b'{"type"'):
        writes[0] += 1
        if writes[0] > after:
            raise OSError(code, os.strerror(code))
    return real_write(fd, data)
journal.os.write = write
from voicehost.cli import main
sys.exit(main(sys.argv[3:]))
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, timeout=120)


def _final(out: str) -> dict:
    return json.loads(out[out.index("{\n"):])


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> tuple[dict, list[dict]]:
    from voicehost.journal import read_journal

    path = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    out = cli("drakkar", "--input", str(WIN_WAV), "--declarations", str(WIN_SIDE),
              "--journal", str(path), "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    return _final(out.stdout), read_journal(path)[1]


@pytest.mark.parametrize("errname, words", [("ENOSPC", "full"), ("EROFS", "read-only")])
def test_journal_disk_full_or_read_only_mid_game_loses_nothing(errname, words, tmp_path,
                                                              uninterrupted):
    from voicehost.journal import read_journal

    final, events = uninterrupted
    path = tmp_path / "game.jsonl"
    k = 5
    done = subprocess.run(
        [sys.executable, "-c", FAIL_JOURNAL, str(k), errname, "drakkar", "--input", str(WIN_WAV),
         "--declarations", str(WIN_SIDE), "--journal", str(path), "--quiet"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicehost: error:"), done.stderr
    assert words in lines[0] and str(path) in lines[0]
    # Every event the host acted on is on disk, intact, and no more.
    _, kept, torn = read_journal(path)
    assert torn is None and kept == events[:k]
    # Space freed: resuming finishes the game as if nothing had happened.
    out = cli("resume", str(path), "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert _final(out.stdout)["final"] == final["final"]


def test_journal_on_a_read_only_place_is_refused_before_the_game_starts(tmp_path):
    script = FAIL_JOURNAL.replace("journal.os.write = write", """
real_open = os.open
def ro_open(path, flags, *a):
    if str(path).endswith(".jsonl"):
        raise OSError(errno.EROFS, "Read-only file system")
    return real_open(path, flags, *a)
journal.os.open = ro_open""")
    path = tmp_path / "game.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", script, "0", "EROFS", "drakkar", "--input", str(WIN_WAV),
         "--declarations", str(WIN_SIDE), "--journal", str(path), "--quiet"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "read-only" in done.stderr
    assert "The voyage" not in done.stdout  # no game was hosted without its journal


# -- crashes -----------------------------------------------------------------------------
CRASH_AT = r"""
import os, signal, sys
import voicehost.journal as journal
at, torn = int(sys.argv[1]), sys.argv[2] == "torn"
real_write, writes = os.write, [0]
def write(fd, data):
    if data.startswith(b'{"type"'):
        writes[0] += 1
        if writes[0] == at:
            if torn:  # the plug is pulled half-way through the line
                real_write(fd, data[: len(data) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
            n = real_write(fd, data)
            os.fsync(fd)
            os.kill(os.getpid(), signal.SIGKILL)
            return n
    return real_write(fd, data)
journal.os.write = write
from voicehost.cli import main
sys.exit(main(sys.argv[3:]))
"""


def _crash_points(n_events: int) -> list[tuple[int, bool]]:
    seed = int(os.environ.get("VOICEHOST_CRASH_SEED", "20261202"))
    rng = random.Random(seed)
    points = sorted(rng.sample(range(1, n_events + 1), 3))
    return [(k, False) for k in points] + [(rng.randrange(1, n_events + 1), True)]


def test_a_crash_at_random_events_resumes_to_the_same_state(tmp_path, uninterrupted):
    from voicehost.games import drakkar
    from voicehost.journal import journal_to_record, read_journal

    final, events = uninterrupted
    points = _crash_points(len(events))
    print(f"\ncrash points (event, torn): {points}")
    for at, torn in points:
        path = tmp_path / f"crash_{at}_{torn}.jsonl"
        done = subprocess.run(
            [sys.executable, "-c", CRASH_AT, str(at), "torn" if torn else "whole", "drakkar",
             "--input", str(WIN_WAV), "--declarations", str(WIN_SIDE), "--journal", str(path),
             "--quiet"],
            capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == -signal.SIGKILL, done.stderr
        header, kept, torn_at = read_journal(path)
        assert len(kept) == (at - 1 if torn else at)
        assert (torn_at is not None) == torn
        out = cli("resume", str(path), "--quiet", "--json")
        assert out.returncode == 0, f"crash at event {at} ({torn}): {out.stderr}"
        assert _final(out.stdout)["final"] == final["final"], f"crash at event {at}"
        h2, e2, t2 = read_journal(path)
        assert t2 is None
        key = lambda e: (e["type"], e.get("player"), e.get("card"), e.get("slot"))  # noqa: E731
        assert [key(e) for e in e2] == [key(e) for e in events]
        whole = drakkar.replay(journal_to_record(h2, events)).state
        assert drakkar.state_to_dict(drakkar.replay(journal_to_record(h2, e2)).state) == \
            drakkar.state_to_dict(whole)


# -- the microphone's own queue --------------------------------------------------------
def test_buffers_dropped_on_a_full_queue_keep_the_clock(monkeypatch):
    """A consumer too slow for the microphone's queue: the dropped buffers become silence.

    Without it the audio after the drop would come early on the sample
    clock by the length of what was dropped.
    """
    from types import SimpleNamespace

    import sounddevice as sd

    from voicehost.audio.microphone import MicrophoneSource

    monkeypatch.setattr(sd, "query_devices", lambda *a, **k: [
        {"name": "USB Audio Mic", "max_input_channels": 1, "default_samplerate": 16000.0}])
    mic = MicrophoneSource(device="usb", rate=16000, blocksize=1600, max_queue=3)
    mic._device_rate = 16000
    status = SimpleNamespace(input_overflow=False)
    for i in range(6):  # 3 fit in the queue, 3 are dropped
        data = np.full((1600, 1), float(i + 1), np.float32)
        mic._callback(data, 1600, SimpleNamespace(inputBufferAdcTime=i * 0.1), status)
    mic._queue.maxsize = 10  # the consumer catches up: buffer 7 fits behind the three
    data = np.full((1600, 1), 7.0, np.float32)
    mic._callback(data, 1600, SimpleNamespace(inputBufferAdcTime=0.6), status)
    mic._stop.set()
    x = np.concatenate([b.samples for b in mic._blocks_from_queue()])
    assert mic.stats.dropped == 3
    assert len(x) == 7 * 1600  # the clock counts the dropped buffers
    assert np.all(x[:4800] == np.repeat([1.0, 2.0, 3.0], 1600))
    assert np.all(x[4800:9600] == 0) and np.all(x[9600:] == 7.0)


HOST_LISTENS = r"""
import json, sys, time
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar import DrakkarHost, song_words, state_for
from voicehost.hosts.drakkar_run import device_line
from voicehost.hosts.microphone import open_microphone
holder = {}
def on_device(event):
    host = holder["host"]
    line = device_line(event, song_words(host.state.song.tums, host.state.song.reversed))
    if line:
        host.say(line, host.clock, "stop")
    print(json.dumps({"event": type(event).__name__, "t": event.t}), flush=True)
mic = open_microphone("pulse", on_device)
host = DrakkarHost(state_for(None, ["ann", "bo"], 0), Announcer(quiet=True, silent=True),
                   rate=mic.rate)
holder["host"] = host
for i, block in enumerate(mic.blocks()):
    if i == 0:
        print(json.dumps({"event": "ready"}), flush=True)
    host.feed(block)
    if block.end / block.rate >= float(sys.argv[1]):
        break
mic.close()
result = host.finish()
print(json.dumps({"event": "end", "lines": result.lines, "clock": host.clock}), flush=True)
"""


def test_the_live_drakkar_host_says_the_microphone_went_and_came_back(pulse):
    """The live host's own microphone (hosts.microphone.open_microphone) through a server restart."""
    proc = subprocess.Popen([sys.executable, "-c", HOST_LISTENS, "12"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    events: list[dict] = []
    reader = threading.Thread(target=lambda: events.extend(json.loads(l) for l in proc.stdout),
                              daemon=True)
    reader.start()

    def wait_for(kind: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e["event"] == kind for e in events):
                return
            time.sleep(0.05)
        proc.kill()
        raise AssertionError(f"no {kind}: {events} {proc.stderr.read()[-1500:]}")

    try:
        wait_for("ready", 30)
        time.sleep(1.0)
        pulse.stop()
        wait_for("DeviceLost", 15)
        time.sleep(1.0)
        pulse.start()
        wait_for("DeviceBack", 20)
        proc.wait(60)
    finally:
        if not pulse.running:
            pulse.start()
        if proc.poll() is None:
            proc.kill()
    reader.join(5)
    assert proc.returncode == 0, proc.stderr.read()[-2000:]
    end = events[-1]
    assert end["event"] == "end"
    said = "\n".join(end["lines"])
    assert "microphone went away" in said and "I hear you again" in said, said
    assert said.index("microphone went away") < said.index("I hear you again")
    assert end["clock"] >= 12.0


def test_the_host_says_after_a_live_session_how_much_audio_the_input_lost(capsys):
    """Overflows are repaired with silence, so the game goes on; but what was
    sung there went unheard, and the operator must learn it (standard error)."""
    from types import SimpleNamespace

    from voicehost.audio.resilient import ResilientStats
    from voicehost.hosts.microphone import report_losses

    assert report_losses(SimpleNamespace(stats=ResilientStats())) is None
    assert capsys.readouterr().err == ""
    note = report_losses(SimpleNamespace(stats=ResilientStats(overflows=2, repaired_seconds=0.43)))
    err = capsys.readouterr().err
    assert note is not None and note in err
    assert "overflowed 2 times" in err and "about 0.4 s of the table's audio was lost" in err
    report_losses(SimpleNamespace(stats=ResilientStats(overflows=1)))
    assert "overflowed 1 time: a little of the table's audio" in capsys.readouterr().err
