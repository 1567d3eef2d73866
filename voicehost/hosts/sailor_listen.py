"""The host's ears for Sunken Sailor: one utterance per question, on the sample clock.

The speech package's listener had not landed when this host was written, so
the host carries the small part it needs: a :class:`Tape` that reads one
block source (file or microphone) sample by sample, and an energy endpointer
that cuts the next utterance out of it for the real recogniser. Everything
is measured in samples of the source, so a recording and a live table make
the same decisions, and a turn time-out or the accusation timer is a number
of samples consumed, never wall time.

Each :meth:`Ears.listen` starts afresh at the tape's position (no state is
carried from one question to the next), so a game resumed at a journalled
position hears exactly what the uninterrupted game heard from there on.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import numpy as np

#: Analysis frame: 20 ms at 16 kHz.
FRAME = 320
#: Speech must stand this far (dB) above the noise floor ...
OVER_FLOOR_DB = 12.0
#: ... and above this absolute level (dBFS).
MIN_SPEECH_DB = -52.0
#: Frames of speech in a row that open an utterance (60 ms).
START_FRAMES = 3
#: Silence that closes an utterance (s).
HANGOVER = 0.4
#: Audio kept before the utterance opened and given to the recogniser (s).
PRE_ROLL = 0.3
#: An utterance is cut here even if the speaker goes on (s).
MAX_UTTERANCE = 6.0
#: Shorter bursts (s of speech) are knocks and clicks, not answers.
MIN_SPEECH = 0.12


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


@dataclass(frozen=True)
class Utterance:
    """One endpointed stretch of speech: samples (with pre-roll), and when (s)."""

    samples: np.ndarray
    start: float
    end: float


def frame_db(frame: np.ndarray) -> float:
    if len(frame) == 0:
        return -120.0
    power = float(np.mean(np.square(frame, dtype=np.float64)))
    return 10.0 * math.log10(power + 1e-12)


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
        own voice plays, frames count as silence (half duplex).
    """

    def __init__(self, tape: Tape, recognizer: Any, mute: Any = None):
        self.tape = tape
        self.recognizer = recognizer
        self.mute = mute
        self._prepared: dict[Any, Any] = {}
        self.heard: list[dict[str, Any]] = []

    @property
    def clock(self) -> float:
        return self.tape.clock

    @property
    def ended(self) -> bool:
        return self.tape.ended

    def wait_until(self, t: float) -> None:
        """Let the table talk until ``t`` (the accusation timer): audio is consumed, unheard."""
        self.tape.skip_to(t)

    def utterance(self, until: float | None) -> Utterance | None:
        """The next utterance that starts before ``until`` (s), or None (time out, end of audio).

        Bursts too short to be a word (a knock, a click) are skipped.
        """
        while True:
            said = self._next(until)
            if said is not True:
                return said

    def _next(self, until: float | None) -> Utterance | None | bool:
        rate = self.tape.rate
        pre: deque[np.ndarray] = deque(maxlen=max(1, int(PRE_ROLL * rate / FRAME)))
        floor: float | None = None
        run = 0
        started: int | None = None
        voiced = 0
        quiet = 0
        frames: list[np.ndarray] = []
        hang = int(HANGOVER * rate / FRAME)
        longest = int(MAX_UTTERANCE * rate / FRAME)
        while True:
            at = self.tape.position
            if started is None and until is not None and at >= until * rate:
                return None
            frame = self.tape.read(FRAME)
            if frame is None:
                break
            t = at / rate
            muted = self.mute is not None and self.mute.overlaps(t, t + len(frame) / rate)
            db = -120.0 if muted else frame_db(frame)
            if floor is None:
                floor = min(db, MIN_SPEECH_DB - 2.0)
            speech = db > max(floor + OVER_FLOOR_DB, MIN_SPEECH_DB)
            if not speech:
                floor = db if db < floor else floor + 0.02 * (db - floor)
            if started is None:
                if speech and not muted:
                    run += 1
                    frames.append(frame)
                    if run >= START_FRAMES:
                        started = at - (run - 1) * FRAME
                        voiced = run
                        quiet = 0
                        frames = list(pre) + frames
                        pre_len = sum(len(f) for f in pre)
                        start_sample = started - pre_len
                else:
                    for f in frames:
                        pre.append(f)
                    frames = []
                    run = 0
                    pre.append(frame)
                continue
            frames.append(frame)
            if speech:
                voiced += 1
                quiet = 0
            else:
                quiet += 1
            if quiet >= hang or len(frames) >= longest:
                break
        if started is None:
            return None
        if voiced * FRAME / rate < MIN_SPEECH:
            return True  # a click: go on listening from here
        samples = np.concatenate(frames).astype(np.float32)
        return Utterance(samples, max(0, start_sample) / rate, self.tape.position / rate)

    def prepare(self, question: Any) -> Any:
        key = (question.name, question.choices, tuple(sorted(
            (c, tuple(p)) for c, p in question.phrases.items())))
        if key not in self._prepared:
            self._prepared[key] = self.recognizer.prepare(question)
        return self._prepared[key]

    def hear(self, question: Any, until: float | None, label: str = "") -> Any | None:
        """One answer to ``question``: an :class:`Answer`, or None (nothing said in time).

        An answer whose ``choice`` is None was speech the question does not
        accept (rejected): the host asks again.
        """
        said = self.utterance(until)
        if said is None:
            return None
        prepared = self.prepare(question)
        fresh_start(self.recognizer)
        answer = self.recognizer.recognize(said.samples, prepared)
        self.heard.append({"t": round(said.start, 3), "end": round(said.end, 3),
                           "question": label or question.name, "heard": answer.heard,
                           "choice": answer.choice,
                           "confidence": round(float(answer.confidence), 3)})
        return answer


def fresh_start(recognizer: Any) -> None:
    """Make the next decode depend on its utterance alone.

    PocketSphinx carries its cepstral mean and its noise estimate from one
    utterance to the next, so the same answer could be heard differently
    after a different history (measured: "done" heard as "done" or as "word"
    at the same spot of a recording; resetting the mean alone was not
    enough). Re-initialising the feature front end before every utterance
    makes an answer's reading a function of its audio, which the fixtures
    and a resumed game rely on. Other backends have no decoder and are left
    alone.
    """
    decoder = getattr(recognizer, "_decoder", None)
    if decoder is None:
        return
    try:
        decoder.reinit_feat()
    except Exception:  # another pocketsphinx version: keep its own behaviour
        pass
