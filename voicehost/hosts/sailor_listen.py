"""The host's ears for Sunken Sailor: one utterance per question, on the sample clock.

A :class:`Tape` reads one block source (file or microphone) forward, sample
by sample, and keeps the sample clock exact; :class:`Ears` feeds it, one
20 ms frame at a time, to the speech package's
:class:`~voicehost.speech.listener.Endpointer` and gives each utterance to
the real recogniser. Feeding frame by frame means an utterance is decided
exactly at the tape's position, so the next question starts listening at
the very next sample: nothing is skipped between questions, and a turn
time-out or the accusation timer is a number of samples consumed, never
wall time. (The speech package's ``Listener`` reads whole blocks and drops
the rest of the block an answer ends in; questions asked back to back need
that rest, and a journal needs positions that do not depend on block size.)

Each :meth:`Ears.hear` starts a fresh endpointer at the tape's position, and
the recogniser starts each utterance afresh (PocketSphinx re-initialises its
front end per utterance: see ``speech/sphinx.py``), so a game
resumed at a journalled position hears exactly what the uninterrupted game
heard from there on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import numpy as np

from voicehost.errors import print_notes

if TYPE_CHECKING:
    from voicehost.speech.listener import EndpointConfig

#: Frames fed to the endpointer: its own hop (20 ms at 16 kHz).
FRAME = 320


@dataclass
class Tape:
    """A block source read forward in frames, with the sample clock kept exactly.

    ``position`` is the index of the next sample to read; :meth:`skip_to`
    moves it forward without analysing anything (resume).
    """

    blocks: Iterator[Any]
    rate: int = 16000
    position: int = 0
    ended: bool = False
    on_block: Callable[[float], None] | None = None
    _buf: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    _buf_start: int = 0

    @classmethod
    def of(cls, blocks: Iterable[Any], rate: int = 16000,
           on_block: Callable[[float], None] | None = None) -> "Tape":
        return cls(iter(blocks), rate, on_block=on_block)

    @property
    def clock(self) -> float:
        return self.position / self.rate

    def _fill(self, need_end: int) -> bool:
        while self._buf_start + len(self._buf) < need_end:
            try:
                block = next(self.blocks)
            except StopIteration:
                self.ended = True
                return False
            samples = np.asarray(block.samples, dtype=np.float32)
            start = int(block.start)
            have_end = self._buf_start + len(self._buf)
            if start > have_end:  # a source that skipped: keep the clock, fill with silence
                samples = np.concatenate([np.zeros(start - have_end, np.float32), samples])
                start = have_end
            elif start < have_end:
                samples = samples[have_end - start:]
            # Drop what was consumed already, keep the rest.
            keep = self._buf[self.position - self._buf_start:] if self.position > self._buf_start \
                else self._buf
            base = max(self.position, self._buf_start)
            self._buf = np.concatenate([keep, samples]) if len(keep) else samples
            self._buf_start = base
            if self.on_block is not None:
                self.on_block((self._buf_start + len(self._buf)) / self.rate)
        return True

    def prime(self) -> None:
        """Fetch the first block, if none was: a microphone starts recording now."""
        if not self.ended and self._buf_start + len(self._buf) == 0:
            self._fill(1)

    def read(self, n: int = FRAME) -> np.ndarray | None:
        """The next ``n`` samples (fewer at the end), or None when the source is over."""
        if not self._fill(self.position + n):
            available = self._buf_start + len(self._buf) - self.position
            if available <= 0:
                return None
            n = available
        i = self.position - self._buf_start
        out = self._buf[i:i + n]
        self.position += len(out)
        return out

    def skip_to(self, t: float) -> None:
        """Move forward to sample-clock time ``t`` (s); earlier times are ignored."""
        target = int(round(t * self.rate))
        while self.position < target:
            if self.read(min(16000, target - self.position)) is None:
                break


class Ears:
    """Endpointing on a :class:`Tape`, then the real recogniser on each utterance.

    Parameters
    ----------
    tape
        Where the audio comes from.
    recognizer
        A :class:`voicehost.speech.recognizer.Recognizer` (PocketSphinx or Vosk).
    mute
        Optional :class:`~voicehost.audio.mute.MuteWindows`: while the host's
        own voice plays, frames are not heard (half duplex).
    endpoint
        Optional endpointing settings.

    A live microphone that goes away (see :meth:`device_event`) pauses the
    listening: ``on_outage(True)`` is called once it is noticed, the outage's
    silence is consumed unheard, ``on_outage(False)`` once the device is back,
    and the question goes on with the listening time it had left, so nobody
    loses a vote or a turn to a pulled cable.
    """

    def __init__(self, tape: Tape, recognizer: Any, mute: Any = None,
                 endpoint: EndpointConfig | None = None,
                 on_outage: Callable[[bool], None] | None = None):
        self.tape: Tape = tape
        self.recognizer = recognizer
        self.mute = mute
        #: The endpointer's :class:`~voicehost.speech.listener.EndpointConfig` (default: its own).
        self.endpoint = endpoint
        #: Called with True when the microphone is found gone, False when it is back.
        self.on_outage = on_outage
        self._prepared: dict[Any, Any] = {}
        self._noted: set[str] = set()  # missing words already reported
        self.heard: list[dict[str, Any]] = []
        #: Seconds of listening sat out while the microphone was gone (a
        #: deadline spanning several answers moves on by as much).
        self.paused = 0.0
        self._lost = False  # the device is gone (set by device_event, inside a read)
        self._said_lost = False  # on_outage(True) was called and not yet False

    def device_event(self, event: Any) -> None:
        """The resilient source's ``on_event``: note the microphone going and coming back.

        It runs inside a read of the tape, so it only notes; the outage is
        dealt with between reads (:meth:`_sit_out`).
        """
        kind = type(event).__name__
        if kind == "DeviceLost":
            self._lost = True
        elif kind == "DeviceBack":
            self._lost = False

    def _tell(self) -> None:
        if self._lost != self._said_lost:
            self._said_lost = self._lost
            if self.on_outage is not None:
                self.on_outage(self._lost)

    def _sit_out(self) -> None:
        """Consume the outage's silence, unheard, until the device is back (or the source ends)."""
        self._tell()
        start = self.tape.clock
        while self._lost and self.tape.read(FRAME) is not None:
            pass
        self.paused += self.tape.clock - start
        self._tell()

    @property
    def clock(self) -> float:
        return self.tape.clock

    @property
    def ended(self) -> bool:
        return self.tape.ended

    def prime(self) -> None:
        """Start the source (a microphone records from here on) without hearing anything."""
        self.tape.prime()

    def catch_up(self, now: float) -> None:
        """Skip, unheard, to the last frame boundary before ``now`` (live: the microphone's clock).

        On the frame grid, so that hosting a recording of the input (which
        reads every frame from the first sample) frames the audio exactly as
        the live host did, and decides the same.
        """
        frames = int(now * self.tape.rate) // FRAME
        self.tape.skip_to(frames * FRAME / self.tape.rate)

    def wait_until(self, t: float) -> None:
        """Let the table talk until ``t`` (the accusation timer): audio is consumed, unheard.

        A microphone that goes and comes back meanwhile is announced; the
        timer runs on (the table talks without it).
        """
        while self.tape.clock < t:
            self.tape.skip_to(min(t, self.tape.clock + 0.1))
            self._tell()
            if self.tape.ended:
                break

    def utterance(self, until: float | None) -> Any | None:
        """The next utterance that starts before ``until`` (s), or None (time out, end of audio).

        An utterance is the speech package's
        :class:`~voicehost.speech.listener.Utterance`; bursts too short to be a
        word (a knock, a click) are skipped by the endpointer.
        """
        from voicehost.audio.blocks import Block
        from voicehost.speech.listener import Endpointer

        rate = self.tape.rate
        endpointer = Endpointer(self.endpoint, rate=rate)
        hop = endpointer.hop
        while True:
            at = self.tape.position
            if until is not None and at >= until * rate and not _in_speech(endpointer):
                return None
            frame = self.tape.read(hop)
            if frame is None:
                return endpointer.finish()
            if self._lost:
                # The microphone went away: nothing it gave is an answer. Wait
                # for it, then listen afresh for the time that was left.
                left = None if until is None else max(0.0, until - at / rate)
                self._sit_out()
                endpointer = Endpointer(self.endpoint, rate=rate)
                until = None if left is None else self.tape.clock + left
                continue
            t = at / rate
            if self.mute is not None and self.mute.overlaps(t, t + len(frame) / rate):
                continue  # the host's own voice: never fed (the endpointer restarts after it)
            said = endpointer.feed(Block(at, frame, rate))
            if said is not None:
                return said

    def prepare(self, question: Any) -> Any:
        key = (question.name, question.choices, tuple(sorted(
            (c, tuple(p)) for c, p in question.phrases.items())))
        if key not in self._prepared:
            prepared = self.recognizer.prepare(question)
            self._prepared[key] = prepared
            self._note_missing(prepared.missing)
        return self._prepared[key]

    def _note_missing(self, missing: list[str]) -> None:
        """Tell whoever runs the host, once each, which words the model cannot hear.

        A Vosk model knows only its own vocabulary: a player's unusual name
        is left out of the grammar (that player can still be named by
        colour or seat), and a model without ``[unk]`` rejects nothing.
        Silently dropped, the table would only find out when a vote for
        that name is never heard.
        """
        from voicehost.speech.recognizer import missing_notes

        new = [w for w in missing if w not in self._noted]
        self._noted.update(new)
        print_notes(missing_notes(getattr(self.recognizer, "name", "speech"), new))

    def hear(self, question: Any, until: float | None, label: str = "") -> Any | None:
        """One answer to ``question``: an :class:`Answer`, or None (nothing said in time).

        An answer whose ``choice`` is None was speech the question does not
        accept (rejected): the host asks again.
        """
        said = self.utterance(until)
        if said is None:
            return None
        prepared = self.prepare(question)
        answer = self.recognizer.recognize(said.samples, prepared)
        self.heard.append({"t": round(said.start, 3), "end": round(said.decided, 3),
                           "question": label or question.name, "heard": answer.heard,
                           "choice": answer.choice,
                           "confidence": round(float(answer.confidence), 3)})
        return answer


def _in_speech(endpointer: Any) -> bool:
    """Whether an utterance is under way (the endpointer has no public flag for it)."""
    return getattr(endpointer, "_speech_start", None) is not None
