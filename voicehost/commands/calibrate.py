"""``voicehost calibrate``: measure the sound path's round-trip latency, the room's noise floor and its bandwidth.

The host judges plays on its sample clock, and everything that reaches it
through a sound card arrives late by the card's latency. Calibration plays
a click train on the output while listening on the input, exactly as the
host listens, and cross-correlates what came back (see
:mod:`voicehost.audio.calibration`). The same clicks say whether the path
is narrowband (nothing above 4 kHz: a Bluetooth headset in call mode), which
hides the "T" of Tum and the slap of a card from the onset detector. The
result goes into the user's settings (:mod:`voicehost.hosts.settings`), where
both games' voices read the latency (they mute the microphone that much
longer after each line: a speaker that plays late must not be heard by the
host) and both games read the bandwidth.

:class:`PlayWhileListening` is the measuring loop; the loopback tests and
``python -m bench soak`` reuse it to play recordings into a sound card while
the pipeline listens.
"""

from __future__ import annotations

import argparse
import json
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from voicehost.audio.blocks import PIPELINE_RATE, Block
from voicehost.errors import DeviceError

HELP = ("measure the sound card's round-trip latency, the noise floor and whether the path "
        "is narrowband, and save them")
ORDER = 61

#: Seconds of listening before the clicks, the last half of which measures the noise floor.
WARMUP = 1.5
#: The longest latency looked for, in seconds: a network speaker (AirPlay, a
#: casting dongle) plays up to about two seconds late.
MAX_LATENCY = 2.5
#: Said when the clicks came back with nothing above 4 kHz.
NARROWBAND_NOTE = (
    "Warning: this sound path is narrowband (nothing above 4 kHz: a Bluetooth headset in "
    "call mode, or a telephone-grade sound card). The \"T\" of Tum and the slap of a card "
    "are heard up there: the host will place last Tums later and take cards for singing, "
    "and more plays will be judged wrongly. Use a wideband microphone (a USB or built-in "
    "one, or a headset with wideband speech) and calibrate again.")
#: Listening buffer (samples at 16 kHz). Small buffers reach the consumer at
#: a steady lag: with 100 ms buffers the pulse plugin delivers them up to
#: ~100 ms late or early from one run to the next, which no latency can fix.
LISTEN_BLOCK = 160


class PlayWhileListening:
    """Listen on ``source``; once its clock passes ``start_after``, play ``chunks`` on the output.

    ``play_at`` is the listener's sample clock at the moment playback was
    started: a sound at time ``t`` of the played signal is heard at
    ``play_at + latency + t``. Listening goes on ``tail`` seconds after the
    last chunk has been played. The output is opened before listening starts
    so that starting it costs no more than a call.
    """

    def __init__(self, source: Any, chunks: Iterable[np.ndarray], output_device: int | str | None,
                 rate: int = PIPELINE_RATE, start_after: float = WARMUP, tail: float = MAX_LATENCY,
                 stall_timeout: float = 5.0, output_latency: float = 0.3):
        import sounddevice as sd

        from voicehost.commands.devices import find_output_device

        self.source = source
        self.chunks = chunks
        self.rate = rate
        self.start_after = start_after
        self.tail = tail
        self.stall_timeout = stall_timeout
        self.play_at: float | None = None
        self.finished_at: float | None = None
        self.error: BaseException | None = None
        self.underflows = 0  # output buffers the card ran out of (the playback then slips)
        self._done = threading.Event()
        self._stop = threading.Event()
        device = find_output_device(output_device) if isinstance(output_device, str) else output_device
        try:
            self._out = sd.OutputStream(device=device, samplerate=rate, channels=1,
                                        dtype="float32", latency=output_latency)
        except Exception as exc:
            raise DeviceError(f"cannot play on the output device ({exc}); check it is free "
                              "and plugged in, or choose another with --output-device.") from None

    def _play(self) -> None:
        try:
            self._out.start()
            for chunk in self.chunks:
                if self._stop.is_set():
                    break
                data = np.ascontiguousarray(chunk, dtype=np.float32).reshape(-1, 1)
                if self._out.write(data):
                    self.underflows += 1
            # Some host APIs (ALSA's pulse plugin) drop what is still buffered
            # on stop: push silence through so the signal's end is heard.
            pad = int((self._out.latency + 0.2) * self.rate)
            self._out.write(np.zeros((pad, 1), dtype=np.float32))
            self._out.stop()
        except BaseException as exc:  # reported on the listener's thread
            self.error = exc
        finally:
            self._done.set()

    def blocks(self) -> Iterator[Block]:
        from voicehost.audio.resilient import BlockReader

        player = threading.Thread(target=self._play, daemon=True, name="voicehost-player")

        def trigger(block: Block) -> None:
            # On the recording thread: a consumer busy with analysis would
            # otherwise start the playback late and make the latency look longer.
            if self.play_at is None and block.end / block.rate >= self.start_after:
                self.play_at = block.end / block.rate
                player.start()

        reader = BlockReader(self.source, on_block=trigger)
        try:
            clock = 0.0
            while True:
                block = reader.get(self.stall_timeout)
                if block is None:
                    raise DeviceError(f"no sound came from the input device for "
                                      f"{self.stall_timeout:g} s; check it with 'voicehost devices'.")
                clock = block.end / block.rate
                yield block
                if self.error is not None:
                    raise DeviceError(f"playing on the output device failed ({self.error}).")
                if self._done.is_set():
                    if self.finished_at is None:
                        self.finished_at = clock
                    elif clock >= self.finished_at + self.tail:
                        return
        finally:
            self._stop.set()
            if player.is_alive():
                player.join(2.0)
            reader.close()
            try:
                self._out.close()
            except Exception:
                pass


@dataclass(frozen=True)
class Calibration:
    """What ``calibrate`` measured."""

    latency: float  # seconds, round trip on the sample clock
    jitter: float  # spread of the clicks' own latencies, seconds
    clicks: int
    clarity: float
    noise_floor: float  # dBFS
    per_click: tuple[float, ...] = ()
    #: The clicks' upper band as heard against as played (see
    #: :class:`~voicehost.audio.calibration.Bandwidth`); None: not measured.
    upper_band_db: float | None = None
    #: Seconds the room's echo of a sound lasts once it stops (see
    #: :func:`~voicehost.audio.calibration.measure_echo`); None: not measured.
    echo: float | None = None

    @property
    def narrowband(self) -> bool:
        from voicehost.audio.calibration import Bandwidth

        return self.upper_band_db is not None and Bandwidth(self.upper_band_db).narrow

    def as_settings(self) -> dict[str, Any]:
        return {"latency": round(self.latency, 4), "latency_jitter": round(self.jitter, 5),
                "noise_floor": round(self.noise_floor, 1),
                "upper_band_db": None if self.upper_band_db is None else round(self.upper_band_db, 1),
                "echo": None if self.echo is None else round(self.echo, 3)}


def calibrate(input_device: int | str | None = None, output_device: int | str | None = None,
              open_source: Callable[[], Any] | None = None) -> Calibration:
    """Play the click train on ``output_device`` and measure it on ``input_device``."""
    from voicehost.audio.calibration import (click_train, measure_bandwidth, measure_echo,
                                             measure_latency, noise_floor)
    from voicehost.audio.microphone import MicrophoneSource

    train = click_train(PIPELINE_RATE)
    source = open_source() if open_source else MicrophoneSource(input_device, PIPELINE_RATE,
                                                                blocksize=LISTEN_BLOCK)
    session = PlayWhileListening(source, [train.signal], output_device, PIPELINE_RATE)
    parts = [b.samples for b in session.blocks()]
    recorded = np.concatenate(parts)
    assert session.play_at is not None
    quiet = recorded[int(WARMUP / 3 * PIPELINE_RATE) : int(session.play_at * PIPELINE_RATE)]
    floor = noise_floor(quiet, PIPELINE_RATE)
    lat = measure_latency(recorded, train, session.play_at, MAX_LATENCY)
    band = measure_bandwidth(recorded, train, session.play_at, lat.latency, quiet)
    echo = measure_echo(recorded, train, session.play_at, lat.latency, quiet)
    return Calibration(lat.latency, lat.jitter, len(lat.per_click), lat.clarity, floor,
                       lat.per_click, None if band is None else band.upper_db, echo)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input-device", metavar="NAME|INDEX",
                        help="the microphone the host listens to (see 'voicehost devices')")
    parser.add_argument("--output-device", metavar="NAME|INDEX",
                        help="where the clicks (and the host's voice) play")
    parser.add_argument("--json", action="store_true", help="print the measurement as JSON")
    parser.add_argument("--no-save", action="store_true",
                        help="measure only; keep the stored settings as they are")


def run(args: argparse.Namespace) -> int:
    from voicehost.audio.microphone import find_device
    from voicehost.commands.devices import find_output_device
    from voicehost.hosts.settings import save_settings

    inp = args.input_device
    out = args.output_device
    find_device(inp)  # a clear error for an unknown name before anything plays
    out_index = find_output_device(out)
    if not args.json:
        print("Calibrating: keep the room quiet; clicks will play on the output device.")
    result = calibrate(inp, out_index)
    path = None
    if not args.no_save:
        settings = result.as_settings()
        settings.update({"calibrated_input": inp, "calibrated_output": out})
        path = save_settings(settings)
    if args.json:
        out_json = {"latency_ms": round(result.latency * 1000, 2),
                    "jitter_ms": round(result.jitter * 1000, 2),
                    "clicks": result.clicks, "clarity": round(result.clarity, 2),
                    "per_click_ms": [round(c * 1000, 2) for c in result.per_click],
                    "noise_floor_dbfs": round(result.noise_floor, 1),
                    "upper_band_db": (None if result.upper_band_db is None
                                      else round(result.upper_band_db, 1)),
                    "narrowband": result.narrowband,
                    "echo_ms": None if result.echo is None else round(result.echo * 1000, 1),
                    "saved_to": None if path is None else str(path)}
        print(json.dumps(out_json, indent=1))
        return 0
    print(f"Round-trip latency: {result.latency * 1000:.1f} ms "
          f"({result.clicks} clicks, spread {result.jitter * 1000:.1f} ms).")
    print(f"Noise floor: {result.noise_floor:.1f} dBFS.")
    if result.echo is not None:
        print(f"Echo: the room rings {result.echo * 1000:.0f} ms after a sound stops "
              "(the host listens again after it).")
    else:
        print("Echo: not measured (the clicks were not loud enough over the room); "
              "the host listens again a quarter of a second after each line.")
    if result.upper_band_db is not None:
        print(f"High frequencies (4.5 to 7 kHz): {result.upper_band_db:+.0f} dB against "
              "1 to 4 kHz (0: as played).")
    if result.narrowband:
        print(NARROWBAND_NOTE)
    if path is not None:
        print(f"Saved to {path}; the hosts use it from the next game on.")
    return 0
