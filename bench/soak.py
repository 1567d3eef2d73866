"""``python -m bench soak``: half an hour of chant through the live sound-card path.

A tape of chant recordings (each followed by a few seconds of a quiet room)
is played into a sound card while the host's pipeline listens to it through
sounddevice, exactly as from a microphone: the resilient microphone source,
100 ms blocks, the onset detector and the chant tracker. By default the
soak runs its own PulseAudio server with a null sink (design.md 3.3), so it
needs no speakers and disturbs nothing.

It reports:

* memory: the process's resident size every minute of the sample clock
  (flat means no leak in the live path);
* bars: every last Tum the same tape gives when read as a file must be heard
  live within 60 ms (after calibration's latency); missed and extra bars;
* beat clock drift: the live minus file time of each last Tum over the whole
  run (median, 95th percentile, and the slope of a straight-line fit, in ms
  per minute): the sample clock against the tape's own clock;
* overflows, output underflows and device losses.

``--minutes`` shortens the run (the issue's soak is 30 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PIECES = ("g3_100bpm_3tums_clean", "g4_70bpm_3tums_snr30")
ROOM_SECONDS = 3.0
RATE = 16000
MATCH = 0.060  # a live last Tum counts for a file one within this many seconds


def tape(minutes: float, seed: int = 0) -> Iterator[np.ndarray]:
    """The chant tape, a piece at a time: room noise, then a chant, over and over."""
    from voicehost.audio.sources import read_audio

    chants = [read_audio(ROOT / "audio_fixtures" / "chant" / f"{p}.wav") for p in PIECES]
    rng = np.random.default_rng(seed)
    total = int(minutes * 60 * RATE)
    n, i = 0, 0
    while n < total:
        room = (0.001 * rng.standard_normal(int(ROOM_SECONDS * RATE))).astype(np.float32)
        piece = np.concatenate([room, chants[i % len(chants)]])[: total - n]
        yield piece
        n += len(piece)
        i += 1


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class PrivatePulse:
    """A PulseAudio daemon of our own with a null sink, for a soak on any machine."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="voicehost-soak-pulse-"))
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "PrivatePulse":
        sock = self.folder / "native"
        env = dict(os.environ, PULSE_RUNTIME_PATH=str(self.folder),
                   PULSE_STATE_PATH=str(self.folder), HOME=str(self.folder))
        self.proc = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--use-pid-file=no", "--system=no",
             "-L", f"module-native-protocol-unix socket={sock} auth-anonymous=1",
             "-L", "module-null-sink sink_name=soak rate=48000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        os.environ.update(PULSE_SERVER=f"unix:{sock}", PULSE_SINK="soak",
                          PULSE_SOURCE="soak.monitor")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if subprocess.run(["pactl", "info"], capture_output=True).returncode == 0:
                return self
            time.sleep(0.1)
        raise RuntimeError("pulseaudio did not start")

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


def reference_bars(minutes: float) -> list[float]:
    """Last Tums of the tape read as a file (the same pipeline, 100 ms blocks)."""
    from voicehost.audio.analysis import analyze_blocks
    from voicehost.audio.blocks import Block

    def blocks() -> Iterator[Block]:
        start, pending = 0, np.zeros(0, np.float32)
        for piece in tape(minutes):
            pending = np.concatenate([pending, piece])
            while len(pending) >= 1600:
                yield Block(start, pending[:1600])
                start += 1600
                pending = pending[1600:]
        if len(pending):
            yield Block(start, pending)

    result = analyze_blocks(blocks(), minutes * 60)
    return [b.last_tum for b in result.tracker.bars if b.last_tum is not None]


def live(minutes: float, input_device: str, output_device: str, latency: float,
         keep: str | None = None) -> dict:
    """Play the tape while listening; the live last Tums (on the tape's clock) and the readings.

    ``keep``: a WAV path where everything heard is written as it comes, so a
    failing soak can be analysed again offline (``voicehost analyze``), bar
    for bar the same as live.
    """
    from voicehost.audio.analysis import analyze_blocks
    from voicehost.audio.blocks import Block
    from voicehost.audio.microphone import MicrophoneSource
    from voicehost.audio.resilient import ResilientSource
    from voicehost.commands.calibrate import PlayWhileListening

    events: list[str] = []
    source = ResilientSource(lambda: MicrophoneSource(input_device, blocksize=160), blocksize=160,
                             on_event=lambda e: events.append(repr(e)), stall_timeout=3.0)
    # A generous output buffer: a starved player slips the whole tape late.
    session = PlayWhileListening(source, tape(minutes), output_device, start_after=1.0,
                                 tail=1.0, stall_timeout=30.0, output_latency=1.0)
    memory: list[tuple[float, float]] = [(0.0, rss_mb())]
    wall0 = time.monotonic()

    def blocks() -> Iterator[Block]:
        start, pending = 0, []
        next_minute = 60.0
        for b in session.blocks():
            if kept is not None:
                kept.write(b.samples)
            pending.append(b.samples)
            if sum(map(len, pending)) >= 1600:
                x = np.concatenate(pending)
                yield Block(start, x[:1600])
                start += 1600
                pending = [x[1600:]]
            if b.end / RATE >= next_minute:
                memory.append((b.end / RATE, rss_mb()))
                print(f"soak: {next_minute / 60:.0f} min, RSS {memory[-1][1]:.1f} MB", flush=True)
                next_minute += 60.0

    kept = None
    if keep:
        import soundfile as sf

        kept = sf.SoundFile(keep, "w", RATE, 1, "FLOAT")
    try:
        result = analyze_blocks(blocks(), 0.0)
    finally:
        if kept is not None:
            kept.close()
    offset = session.play_at + latency
    source.close()
    return {
        "last_tums": [b.last_tum - offset for b in result.tracker.bars if b.last_tum is not None],
        "memory": memory, "clock": result.tracker.bars[-1].last_tum if result.tracker.bars else 0,
        "wall": time.monotonic() - wall0, "play_at": session.play_at,
        "overflows": source.stats.overflows, "repaired_s": source.stats.repaired_seconds,
        "losses": source.stats.losses, "underflows": session.underflows, "events": events,
    }


def compare(ref: list[float], heard: list[float]) -> dict:
    """Match live last Tums to the file's; misses, extras, slips, residuals and drift.

    The player may slip (an output underflow delays the rest of the tape):
    that is the table singing late, not the listener's fault. So each file
    bar is matched to the nearest live one, and the residuals are read
    against their local median (7 bars): a jump of the local median that
    stays is a slip of the tape; a bar whose nearest live bar is more than
    60 ms from the local median was missed.
    """
    if not ref or not heard:
        return {"bars_file": len(ref), "bars_heard": len(heard), "matched": 0,
                "missed": [round(t, 3) for t in ref], "extra": len(heard)}
    live_arr = np.array(heard)
    idx = [int(np.argmin(np.abs(live_arr - t))) for t in ref]
    res = np.array([live_arr[j] - t for j, t in zip(idx, ref)])
    k = 3
    local = np.array([np.median(res[max(0, i - k) : i + k + 1]) for i in range(len(res))])
    ok = np.abs(res - local) <= MATCH
    used: set[int] = set()
    missed = []
    for i, t in enumerate(ref):
        if ok[i] and idx[i] not in used:
            used.add(idx[i])
        else:
            missed.append(round(t, 3))
    steps = np.diff(local)
    slips = [(round(ref[i + 1], 1), round(float(d) * 1000, 1)) for i, d in enumerate(steps)
             if abs(d) > 0.02]
    # Drift: the residuals with the tape's slips taken out.
    slip_part = np.concatenate([[0.0], np.cumsum(np.where(np.abs(steps) > 0.02, steps, 0.0))])
    clean = (res - slip_part)[ok] * 1000
    at = np.array(ref)[ok] / 60
    slope = float(np.polyfit(at, clean, 1)[0]) if len(at) > 2 else float("nan")
    first, last = clean[: max(1, len(clean) // 10)], clean[-max(1, len(clean) // 10) :]
    return {
        "bars_file": len(ref), "bars_heard": len(heard), "matched": len(used),
        "missed": missed, "extra": len(heard) - len(used),
        "tape_slips_s_ms": slips,
        "residual_ms": {"median": round(float(np.median(clean)), 2),
                        "p95_abs_from_median": round(float(np.percentile(
                            np.abs(clean - np.median(clean)), 95)), 2),
                        "max_abs_from_median": round(float(np.max(np.abs(clean - np.median(clean)))), 2)},
        "drift_ms_per_min": round(slope, 3),
        "drift_first_to_last_tenth_ms": round(float(np.median(last) - np.median(first)), 2),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--input-device", default="pulse")
    parser.add_argument("--output-device", default="pulse")
    parser.add_argument("--use-running-server", action="store_true",
                        help="play into the sound server already set up (PULSE_SINK/PULSE_SOURCE) "
                             "instead of starting a private PulseAudio with a null sink")
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON here")
    parser.add_argument("--keep", metavar="WAV",
                        help="write everything heard to this WAV, to analyse it again offline")
    args = parser.parse_args(argv)

    server = None if args.use_running_server else PrivatePulse()
    if server is not None:
        server.__enter__()
    try:
        from voicehost.commands.calibrate import calibrate

        cal = calibrate(args.input_device, args.output_device)
        print(f"soak: calibrated latency {cal.latency * 1000:.1f} ms; playing "
              f"{args.minutes:g} min of chant", flush=True)
        heard = live(args.minutes, args.input_device, args.output_device, cal.latency, args.keep)
    finally:
        if server is not None:
            server.__exit__(None, None, None)
    ref = reference_bars(args.minutes)
    report = {"minutes": args.minutes, "latency_ms": round(cal.latency * 1000, 2),
              **compare(ref, heard["last_tums"]),
              "rss_mb": {"after_1_min": round(heard["memory"][1][1], 1) if len(heard["memory"]) > 1
                         else None, "end": round(heard["memory"][-1][1], 1),
                         "max": round(max(m for _, m in heard["memory"]), 1),
                         "per_minute": [round(m, 1) for _, m in heard["memory"]]},
              "wall_s": round(heard["wall"], 1),
              "overflows": heard["overflows"], "repaired_s": round(heard["repaired_s"], 3),
              "device_losses": heard["losses"], "output_underflows": heard["underflows"],
              "events": heard["events"][:20],
              "file_last_tums": [round(t, 4) for t in ref],
              "live_last_tums": [round(t, 4) for t in heard["last_tums"]]}
    shown = {k: v for k, v in report.items() if k not in ("file_last_tums", "live_last_tums")}
    shown["missed"] = report["missed"][:20]
    print(json.dumps(shown, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    ok = not report["missed"] and report["extra"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
