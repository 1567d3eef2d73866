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
from collections import deque
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
    repaired_seconds: float = 0.0  # audio lost in overflows, put back as silence here
    events: list[Any] = field(default_factory=list)


_END = object()

#: Seconds of blocks held back after an overflow to measure what was lost.
SETTLE = 0.5
#: Seconds over which the most punctual block gives the path's latency.
BASELINE_WINDOW = 30.0


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
        self.arrival = 0.0  # when the block last returned by get() was recorded (monotonic)
        #: The newest block recorded (its end, in the source's samples) and when,
        #: even while the consumer is busy elsewhere and blocks wait in the queue.
        self.latest: tuple[int, float] | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="voicehost-reader")
        self._thread.start()

    def _run(self) -> None:
        try:
            for block in self.source.blocks():
                if self.on_block is not None:
                    self.on_block(block)
                arrival = time.monotonic()
                self.latest = (block.end, arrival)
                self._queue.put((block, arrival))
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
        block, self.arrival = item
        return block

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
        self._last_arrival = 0.0
        self._overflows_seen = 0
        self._baseline = 0.0  # smallest recent lateness of a block (s)
        self._recent: deque[tuple[float, float]] = deque()  # (arrival, lateness)
        self._inserted_source = 0.0  # silence put in for this source's losses (s)
        self._held: list[tuple[Block, float]] = []  # with each block's lateness
        self._held_since = 0.0
        # (reader, emitted - source sample index) as of the last block passed on
        # from that reader: maps its newest block onto the delivered clock.
        self._offset: tuple[BlockReader, int] | None = None

    # -- the sample clock --------------------------------------------------------
    @property
    def delivered(self) -> float:
        """Seconds of audio delivered so far: the sample clock at the consumer."""
        return self._emitted / self.rate

    def now(self) -> float:
        """The sample clock now: the newest block's end plus the time since it was recorded.

        Other inputs (a key press, a phone's tap) are stamped with it; it
        counts on through an outage like the silence that fills it. The newest
        block is the one the device last delivered, not the one the consumer
        last read: a host that was busy (the cards going round) and has
        seconds of audio waiting still learns where the table is now.

        A block that arrived late (the sound server delivered in a burst, the
        machine was busy) would stamp every key pressed until the next one
        early by its lateness, tens of milliseconds: the time since it came
        counts from when the path's most punctual block would have brought it.
        """
        reader = self._reader
        latest = reader.latest if reader is not None else None
        if latest is not None and self._offset is not None and self._offset[0] is reader:
            end, arrival = latest
            late = self._lateness(end, arrival) - self._baseline  # than the most punctual block
            since = self._clock() - arrival + max(0.0, late)
            return (end + self._offset[1]) / self.rate + min(max(since, 0.0), 1.0)
        since = self._clock() - self._last_arrival if self._last_arrival else 0.0
        return self._emitted / self.rate + min(max(since, 0.0), 1.0)

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
        first = True
        while not self._closed.is_set():
            reason = ""
            try:
                # PortAudio takes a while to deliver a new stream's first buffer.
                block = self._reader.get(max(self.stall_timeout, 5.0) if first else self.stall_timeout)
                first = first and block is None
            except VoicehostError as exc:
                block, reason = None, str(exc)
            except Exception as exc:  # PortAudioError from a dying stream
                block, reason = None, f"{type(exc).__name__}: {exc}"
            if self._closed.is_set():
                break
            if block is not None:
                last_audio = self._clock()
                self._last_arrival = self._reader.arrival
                yield from self._deliver(block, self._reader.arrival)
                if not self._held:  # passed on, silence for any loss before it
                    self._offset = (self._reader, self._emitted - block.end)
                continue
            if not reason:
                reason = ("the input device stopped (its stream ended)" if self._reader.ended
                          else f"no sound from the input device for {self.stall_timeout:g} s")
            yield from self._outage(last_audio, reason)
            last_audio = self._clock()

    # -- overflows: audio lost while the device stayed -------------------------
    def _deliver(self, block: Block, arrival: float) -> Iterator[Block]:
        """Pass a block on, repairing the clock after an overflow the source could not measure.

        Each block's lateness is its arrival time minus the source's own
        sample count; the smallest lateness seen is the path's latency. After
        an overflow (the process stalled, the device's buffer overran and
        audio was dropped) the source should have filled the hole with
        silence; some host APIs give no usable timestamps (ALSA's pulse
        plugin), so the source cannot. The blocks of the next
        :data:`SETTLE` seconds are held back; if even the most punctual of
        them is late by more than a block, that much audio was lost: the
        silence goes in before them, where the hole was.
        """
        late = self._lateness(block.end, arrival)
        if not self._held:
            # The path's latency: the most punctual block of the last half
            # minute (a window, so a device clock that runs slow or fast
            # against the wall clock is not taken for lost audio).
            # A sliding-window minimum: the deque's lateness only increases.
            while self._recent and self._recent[-1][1] >= late:
                self._recent.pop()
            self._recent.append((arrival, late))
            while self._recent[0][0] < arrival - BASELINE_WINDOW:
                self._recent.popleft()
            self._baseline = self._recent[0][1]
        if self._held:
            self._held.append((block, late))
            if arrival - self._held_since < SETTLE:
                return
            held, self._held = self._held, []
            floor = min(lt for _, lt in held)
            lost = floor - self._baseline
            # The audio buffered before the overrun arrives in a burst, later and
            # later behind real time; after the hole, blocks are punctual again.
            at = next(i for i, (_, lt) in enumerate(held) if lt <= floor + 2 * block.duration)
            for b, _ in held[:at]:
                yield self._emit(b.samples)
            if lost > max(0.05, 2 * block.duration):
                n = int(round(lost * self.rate))
                self._inserted_source += n / self.rate
                self.stats.repaired_seconds += n / self.rate
                yield self._emit(np.zeros(n, dtype=np.float32))
            for b, _ in held[at:]:
                yield self._emit(b.samples)
            return
        if self._check_overflows():
            self._held, self._held_since = [(block, late)], arrival
            return
        yield self._emit(block.samples)

    def _lateness(self, end: int, arrival: float) -> float:
        """How long after its last sample (``end``) a block of this source's arrived, give or
        take the clocks' offset: the silence put in for its losses is not late."""
        return arrival - end / self.rate - self._inserted_source

    def _check_overflows(self) -> bool:
        source = self._reader.source if self._reader is not None else None
        stats = getattr(source, "stats", None)
        total = getattr(stats, "overflows", 0) + getattr(stats, "dropped", 0)
        if total > self._overflows_seen:
            new = total - self._overflows_seen
            self._overflows_seen = total
            self.stats.overflows += new
            self._report(Overflow(self.delivered, new, self.stats.overflows,
                                  float(getattr(stats, "gap_seconds", 0.0))))
            return True
        return False

    def _outage(self, last_audio: float, reason: str) -> Iterator[Block]:
        """Silence in real time while retrying, then top the gap up to its true length."""
        from voicehost.errors import DeviceError

        for b, _ in self._held:  # audio heard before the device went
            yield self._emit(b.samples)
        self._held = []
        lost_at = self.delivered
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
                self._last_arrival = last_audio + silence_sent / self.rate
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
            self._recent, self._inserted_source, self._held = deque(), 0.0, []
            self.stats.reconnects += 1
            self.stats.gap_seconds += silence_sent / self.rate
            self._last_arrival = arrived
            self._report(DeviceBack(self.delivered, silence_sent / self.rate, attempts))
            yield self._emit(first.samples)
            return
