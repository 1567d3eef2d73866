"""A live source that survives its sound device going away.

A USB microphone gets knocked out, Bluetooth drops, the sound server
restarts: PortAudio then simply stops calling back, and a plain
:class:`~voicehost.audio.microphone.MicrophoneSource` waits forever. A game
must not end that way. :class:`ResilientSource` watches the blocks; when
none come for ``stall_timeout`` seconds (or the source fails), it tells the
host through ``on_event`` (so the host can say so), keeps the sample clock
running with silence paced by the wall clock (so the tracker sees the song
stop and key presses still land on the clock), tries to reopen the device
every ``retry_every`` seconds, and when audio flows again it resumes, with
the whole outage counted as silence: the sample clock stays equal to real
time, so bars and judged times after the gap stay right. It also passes on
the overflows the source counts (:class:`~voicehost.audio.microphone.MicStats`).

The wall clock is used only to measure how long the device was away: while
there is no device there is no sample clock to read.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol

import numpy as np

from voicehost.audio.blocks import PIPELINE_RATE, Block
from voicehost.errors import VoicehostError


class LiveSource(Protocol):
    """What the wrapper needs from a source: blocks until closed, and close."""

    def blocks(self) -> Iterator[Block]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DeviceLost:
    """No audio since ``t`` (sample clock); ``reason`` says why, for the log."""

    t: float
    reason: str


@dataclass(frozen=True)
class DeviceBack:
    """Audio flows again from ``t``; ``gap`` seconds were filled with silence."""

    t: float
    gap: float
    attempts: int


@dataclass(frozen=True)
class Overflow:
    """The input overflowed (audio lost under load) ``count`` more times by ``t``."""

    t: float
    count: int
    total: int
    gap_seconds: float


DeviceEvent = DeviceLost | DeviceBack | Overflow


@dataclass
class ResilientStats:
    """What happened to the device during the session, for the host's report."""

    losses: int = 0
    reconnects: int = 0
    attempts: int = 0
    gap_seconds: float = 0.0
    overflows: int = 0
    events: list[Any] = field(default_factory=list)


_END = object()


class BlockReader:
    """Runs a source's ``blocks()`` on a thread so a silent device cannot hang the caller.

    ``get(timeout)`` returns the next block, ``None`` on timeout, or raises
    what the source raised; ``ended`` is set when the source's iterator
    finished (which a live device should never do). ``on_block`` sees each
    block the moment it is recorded, before a busy consumer gets to it.
    """

    def __init__(self, source: LiveSource, maxsize: int = 0,
                 on_block: Callable[[Block], None] | None = None):
        self.source = source
        self.on_block = on_block  # runs on the reader's thread, as soon as a block arrives
        self._queue: queue.Queue = queue.Queue(maxsize)
        self.ended = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="voicehost-reader")
        self._thread.start()

    def _run(self) -> None:
        try:
            for block in self.source.blocks():
                if self.on_block is not None:
                    self.on_block(block)
                self._queue.put(block)
        except BaseException as exc:  # handed over to the consumer's thread
            self._queue.put(exc)
        self._queue.put(_END)

    def get(self, timeout: float) -> Block | None:
        if self.ended:
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _END:
            self.ended = True
            return None
        if isinstance(item, BaseException):
            self.ended = True
            raise item
        return item

    def close(self, wait: float = 2.0) -> None:
        """Close the source without letting a dead device's close hang us."""
        closer = threading.Thread(target=_quiet_close, args=(self.source,), daemon=True)
        closer.start()
        closer.join(wait)


def _quiet_close(source: LiveSource) -> None:
    try:
        source.close()
    except Exception:  # the device is gone; nothing more to release
        pass


class ResilientSource:
    """Blocks from ``open_source()``, continuing across outages of the device.

    Parameters
    ----------
    open_source
        Opens the device afresh (e.g. ``lambda: MicrophoneSource("pulse")``);
        called again for every retry, and raises (DeviceError ...) while the
        device is missing.
    rate, blocksize
        Of the blocks the source gives; silence is made in the same shape.
    on_event
        Called with :class:`DeviceLost`, :class:`DeviceBack` and
        :class:`Overflow`, on the consumer's thread.
    stall_timeout
        Seconds without a block after which the device counts as gone.
    retry_every
        Seconds between attempts to reopen it.
    max_outage
        Give up (DeviceError) after this many seconds without a device;
        ``None`` waits for ever (a table can wait for a cable).
    """

    def __init__(self, open_source: Callable[[], LiveSource], rate: int = PIPELINE_RATE,
                 blocksize: int = 1600, on_event: Callable[[Any], None] | None = None,
                 stall_timeout: float = 1.5, retry_every: float = 1.0,
                 max_outage: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.open_source = open_source
        self.rate = rate
        self.blocksize = blocksize
        self.on_event = on_event
        self.stall_timeout = stall_timeout
        self.retry_every = retry_every
        self.max_outage = max_outage
        self.stats = ResilientStats()
        self._clock = clock
        self._closed = threading.Event()
        self._reader: BlockReader | None = None
        self._emitted = 0
        self._overflows_seen = 0

    # -- the sample clock --------------------------------------------------------
    @property
    def now(self) -> float:
        """Seconds of audio delivered so far: the sample clock at the consumer."""
        return self._emitted / self.rate

    def _emit(self, samples: np.ndarray) -> Block:
        block = Block(self._emitted, samples, self.rate)
        self._emitted += len(samples)
        return block

    def _report(self, event: Any) -> None:
        self.stats.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # -- life cycle --------------------------------------------------------------
    def close(self) -> None:
        self._closed.set()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __enter__(self) -> "ResilientSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self) -> BlockReader:
        source = self.open_source()
        return BlockReader(source)

    def blocks(self) -> Iterator[Block]:
        """Blocks on one continuous sample clock until :meth:`close`."""
        self._reader = self._open()  # the first open's errors are the user's to see
        last_audio = self._clock()
        while not self._closed.is_set():
            reason = ""
            try:
                block = self._reader.get(self.stall_timeout)
            except VoicehostError as exc:
                block, reason = None, str(exc)
            except Exception as exc:  # PortAudioError from a dying stream
                block, reason = None, f"{type(exc).__name__}: {exc}"
            if self._closed.is_set():
                break
            if block is not None:
                last_audio = self._clock()
                yield self._emit(block.samples)
                self._check_overflows()
                continue
            if not reason:
                reason = ("the input device stopped (its stream ended)" if self._reader.ended
                          else f"no sound from the input device for {self.stall_timeout:g} s")
            yield from self._outage(last_audio, reason)
            last_audio = self._clock()

    def _check_overflows(self) -> None:
        source = self._reader.source if self._reader is not None else None
        stats = getattr(source, "stats", None)
        total = getattr(stats, "overflows", 0) + getattr(stats, "dropped", 0)
        if total > self._overflows_seen:
            new = total - self._overflows_seen
            self._overflows_seen = total
            self.stats.overflows += new
            self._report(Overflow(self.now, new, self.stats.overflows,
                                  float(getattr(stats, "gap_seconds", 0.0))))

    def _outage(self, last_audio: float, reason: str) -> Iterator[Block]:
        """Silence in real time while retrying, then top the gap up to its true length."""
        from voicehost.errors import DeviceError

        lost_at = self.now
        self.stats.losses += 1
        self._report(DeviceLost(lost_at, reason))
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        silence_sent = 0
        attempts = 0
        next_try = self._clock() + self.retry_every
        while not self._closed.is_set():
            # Keep the clock going: as much silence as real time has passed.
            due = int((self._clock() - last_audio) * self.rate) - silence_sent
            while due >= self.blocksize:
                silence_sent += self.blocksize
                due -= self.blocksize
                yield self._emit(np.zeros(self.blocksize, dtype=np.float32))
            if self.max_outage is not None and self._clock() - last_audio > self.max_outage:
                raise DeviceError(f"the input device has been gone for {self.max_outage:g} s "
                                  f"({reason}); plug it back in and resume the game.")
            wait = next_try - self._clock()
            if wait > 0:
                self._closed.wait(min(wait, self.blocksize / self.rate))
                continue
            next_try = self._clock() + self.retry_every
            attempts += 1
            self.stats.attempts += 1
            try:
                reader = self._open()
                first = reader.get(self.stall_timeout + 1.0)
            except Exception:  # still gone: try again later
                continue
            if first is None:
                reader.close()
                continue
            arrived = self._clock()
            # The first block's audio began its own duration before it arrived.
            gap = max(0.0, arrived - len(first.samples) / self.rate - last_audio)
            top_up = int(round(gap * self.rate)) - silence_sent
            if top_up > 0:
                silence_sent += top_up
                yield self._emit(np.zeros(top_up, dtype=np.float32))
            self._reader = reader
            self._overflows_seen = 0
            self.stats.reconnects += 1
            self.stats.gap_seconds += silence_sent / self.rate
            self._report(DeviceBack(self.now, silence_sent / self.rate, attempts))
            yield self._emit(first.samples)
            return
