"""Blocks from a live microphone, on the same sample clock as a file.

The PortAudio callback runs on a real-time thread: it only copies the block
and its ADC timestamp into a queue (no allocation beyond the copy, no locks
held by the consumer, no Python work that could stall). Everything else
(downmix, resampling, cutting into pipeline blocks, mapping time) happens in
:meth:`MicrophoneSource.blocks`, on the consumer's thread.

Time: sample 0 is the first sample PortAudio delivers; the sample clock then
counts samples. PortAudio's ``inputBufferAdcTime`` of each buffer tells when
it was captured on the stream's clock; the mapping from stream time to the
sample clock lets other inputs (a key press, stamped with the stream's
``time``) land on the same clock via :meth:`MicrophoneSource.to_sample_clock`.
When the input overflows (the consumer was too slow and PortAudio dropped
audio) the overflow is counted, and if the timestamps show that a stretch of
audio is missing, silence of that length is inserted so that the sample clock
stays equal to real time.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from voicehost.audio.blocks import PIPELINE_RATE, Block
from voicehost.errors import DeviceError


@dataclass
class MicStats:
    """What went wrong while listening, for the host to report."""

    overflows: int = 0  # buffers PortAudio flagged as input overflow
    dropped: int = 0  # buffers the queue had no room for
    gaps: int = 0  # stretches of audio lost in an overflow, filled with silence
    gap_seconds: float = 0.0

    def summary(self) -> str:
        """One sentence for the host to show or say, empty when nothing went wrong."""
        if not (self.overflows or self.dropped):
            return ""
        parts = []
        if self.overflows:
            parts.append(f"the sound card overflowed {self.overflows} times"
                         + (f" ({self.gap_seconds:.2f} s of audio lost)" if self.gaps else ""))
        if self.dropped:
            parts.append(f"{self.dropped} blocks were dropped because the host fell behind")
        return ("Listening problems: " + "; ".join(parts)
                + "; close other programs or choose a larger block size.")


def list_input_devices() -> list[tuple[int, str]]:
    import sounddevice as sd

    try:
        devices = sd.query_devices()
    except Exception as exc:  # PortAudio missing or broken
        raise DeviceError(f"cannot list sound devices ({exc}); install libportaudio2.") from None
    return [(i, d["name"]) for i, d in enumerate(devices) if d["max_input_channels"] > 0]


def find_device(spec: int | str | None) -> int | None:
    """The input device for ``spec``: an index, a name or part of one, or None (default).

    Indices change between boots and when devices are plugged in, so a name
    substring (case-insensitive) is the stable way to choose; an exact name
    wins over a partial one.
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return None
    inputs = list_input_devices()
    listing = "; ".join(f"{i}: {n}" for i, n in inputs) or "none"
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        index = int(spec)
        if any(i == index for i, _ in inputs):
            return index
        raise DeviceError(f"no input device number {index}; input devices are: {listing}.")
    want = spec.strip().lower()
    exact = [i for i, n in inputs if n.lower() == want]
    if exact:
        return exact[0]
    partial = [i for i, n in inputs if want in n.lower()]
    if partial:
        return partial[0]
    raise DeviceError(f'no input device named like "{spec}"; input devices are: {listing}.')


class MicrophoneSource:
    """Blocks from a sounddevice ``InputStream``, stamped with the sample clock.

    Parameters
    ----------
    device
        Index, name or part of a name (see :func:`find_device`); None for the default.
    rate
        The pipeline rate. When the device cannot record at it, it records at
        its own default rate and the blocks are resampled.
    blocksize
        Samples per pipeline block.
    channels
        Channels to record (downmixed to mono).
    max_queue
        Buffers the callback may queue before dropping (about 10 s at 100 ms).
    """

    def __init__(self, device: int | str | None = None, rate: int = PIPELINE_RATE,
                 blocksize: int = 1600, channels: int = 1, max_queue: int = 100,
                 latency: str | float = "low"):
        self.device = find_device(device)
        self.rate = rate
        self.blocksize = blocksize
        self.channels = channels
        self.latency = latency
        self.stats = MicStats()
        self._queue: queue.Queue = queue.Queue(maxsize=max_queue)
        self._stream = None
        self._device_rate = rate
        self._stop = threading.Event()
        # Clock mapping: stream time of sample 0, and samples received so far.
        self._adc0: float | None = None
        self._received = 0  # at the device rate, including inserted silence
        # Frames the callback could not queue (written on its thread only),
        # and how many of them the consumer has already put back as silence.
        self._dropped_frames = 0
        self._dropped_filled = 0

    # -- the real-time side ------------------------------------------------------
    def _callback(self, indata, frames, time_info, status) -> None:
        overflow = bool(status and status.input_overflow)
        if overflow:
            self.stats.overflows += 1
        adc = float(getattr(time_info, "inputBufferAdcTime", 0.0) or 0.0)
        if adc == 0.0:  # some host APIs leave it empty: use the callback's time
            adc = float(getattr(time_info, "currentTime", 0.0) or 0.0) - frames / self._device_rate
        try:
            self._queue.put_nowait((indata.copy(), adc, overflow, self._dropped_frames))
        except queue.Full:
            self.stats.dropped += 1
            self._dropped_frames += frames

    # -- the consumer side -------------------------------------------------------
    def start(self) -> None:
        """Open the device and start recording (``blocks`` calls it for you)."""
        import sounddevice as sd

        if self._stream is not None:
            return
        self._stop.clear()
        last_exc: Exception | None = None
        rates = [self.rate]
        try:
            default = int(sd.query_devices(self.device, "input")["default_samplerate"])
            if default != self.rate:
                rates.append(default)
        except Exception as exc:
            raise DeviceError(f"cannot open the input device ({exc}); "
                              "check it is plugged in, or choose another with --device.") from None
        for r in rates:
            try:
                self._stream = sd.InputStream(
                    device=self.device, samplerate=r, channels=self.channels, dtype="float32",
                    blocksize=max(1, int(round(self.blocksize * r / self.rate))),
                    latency=self.latency, callback=self._callback)
                self._device_rate = r
                break
            except Exception as exc:  # PortAudioError, ValueError for bad settings
                last_exc = exc
        if self._stream is None:
            raise DeviceError(f"cannot record from the input device ({last_exc}); "
                              "check it is free and plugged in, or choose another with --device.")
        self._stream.start()

    def close(self) -> None:
        """Stop recording; ``blocks`` ends after the audio already queued."""
        self._stop.set()
        if self._stream is not None:
            try:
                self._stream.stop()
                self._stream.close()
            finally:
                self._stream = None

    def __enter__(self) -> "MicrophoneSource":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def blocks(self, max_seconds: float | None = None) -> Iterator[Block]:
        """Yield pipeline blocks until :meth:`close` (or ``max_seconds`` of audio)."""
        self.start()
        yield from self._blocks_from_queue(max_seconds)

    def _blocks_from_queue(self, max_seconds: float | None = None) -> Iterator[Block]:
        resampler = None
        if self._device_rate != self.rate:
            import soxr

            resampler = soxr.ResampleStream(self._device_rate, self.rate, 1, dtype="float32")
        pending = np.zeros(0, dtype=np.float32)
        emitted = 0
        limit = None if max_seconds is None else int(max_seconds * self.rate)
        while True:
            try:
                data, adc, overflow, dropped = self._queue.get(timeout=0.1)
            except queue.Empty:
                if self._stop.is_set():
                    break
                continue
            mono = data[:, 0] if data.ndim == 2 and data.shape[1] == 1 else (
                data.mean(axis=1) if data.ndim == 2 else data)
            mono = np.asarray(mono, dtype=np.float32)
            # Buffers dropped on a full queue came just before this one: silence
            # of their length keeps the sample clock with real time.
            lost = dropped - self._dropped_filled
            self._dropped_filled = dropped
            if lost and self._adc0 is not None:
                self._received += lost
                self.stats.gaps += 1
                self.stats.gap_seconds += lost / self._device_rate
                mono = np.concatenate([np.zeros(lost, dtype=np.float32), mono])
            mono = np.concatenate([self._gap_fill(adc, len(data), overflow), mono])
            if resampler is not None:
                mono = resampler.resample_chunk(mono)
            pending = np.concatenate([pending, mono])
            while len(pending) >= self.blocksize:
                yield Block(emitted, pending[: self.blocksize].copy(), self.rate)
                emitted += self.blocksize
                pending = pending[self.blocksize :]
                if limit is not None and emitted >= limit:
                    return

    def _gap_fill(self, adc: float, frames: int, overflow: bool = False) -> np.ndarray:
        """Silence for audio PortAudio lost, so the sample clock keeps real time.

        Only after an overflow: some host APIs (PulseAudio's monitor sources)
        give timestamps that jump at start-up without losing anything, so
        without an overflow a jump only re-anchors the stream-time mapping.
        """
        r = self._device_rate
        if self._adc0 is None:
            self._adc0 = adc
            self._received = frames
            return np.zeros(0, dtype=np.float32)
        expected = self._adc0 + self._received / r
        missing = int(round((adc - expected) * r))
        fill = np.zeros(0, dtype=np.float32)
        # Only a clear hole (more than half a buffer) counts: timestamps jitter.
        if not overflow:
            # Follow the stream clock's drift and jumps, never insert audio.
            if abs(missing) > int(0.002 * r):
                self._adc0 = adc - self._received / r
            self._received += frames
            return fill
        if missing > max(frames // 2, int(0.01 * r)):
            self.stats.gaps += 1
            self.stats.gap_seconds += missing / r
            fill = np.zeros(missing, dtype=np.float32)
            self._received += missing
        self._received += frames
        return fill

    def to_sample_clock(self, stream_time: float) -> float:
        """Map a time on PortAudio's stream clock (``stream.time``) to the sample clock."""
        if self._adc0 is None:
            return 0.0
        return stream_time - self._adc0

    def now(self) -> float:
        """The sample clock now (from PortAudio's stream time)."""
        if self._stream is None or self._adc0 is None:
            return 0.0
        return self.to_sample_clock(float(self._stream.time))
