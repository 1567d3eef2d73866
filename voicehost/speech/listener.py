"""Listening for an answer on the shared audio source: endpointing, half-duplex, asking again.

The listener reads the same sample-clock blocks as the rhythm pipeline (a
file or the microphone: any iterable of :class:`~voicehost.audio.blocks.Block`).
An energy endpointer with an adaptive noise floor finds where speech starts
and, more importantly, where it stops: the utterance is decoded as soon as
``hangover`` seconds of quiet follow it, instead of waiting out a long fixed
silence (the 1.5 to 2.5 s that Vosk's own endpointing costs). Blocks that
overlap a :class:`~voicehost.audio.mute.MuteWindows` window (the host's own
voice) are dropped, so the host never hears itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from voicehost.audio.blocks import Block
from voicehost.audio.mute import MuteWindows
from voicehost.speech.grammar import Question
from voicehost.speech.recognizer import Answer, Prepared, Recognizer


@dataclass
class EndpointConfig:
    """Endpointing settings (seconds and decibels)."""

    frame: float = 0.02
    #: Speech starts when a frame is this far above the noise floor ...
    start_db: float = 9.0
    #: ... and goes on while frames stay this far above it.
    keep_db: float = 5.0
    #: Frames below -60 dBFS are never speech.
    min_dbfs: float = -60.0
    #: Frames below this are digital silence, not a quiet room (16-bit audio's
    #: quietest step is -96 dBFS): they never set the noise floor.
    silent_dbfs: float = -100.0
    #: Quiet after speech that ends the utterance.
    hangover: float = 0.22
    #: Shorter bursts are clicks or knocks, not answers.
    min_speech: float = 0.12
    #: Audio kept before the detected start (weak onsets such as "f", "th").
    pre_roll: float = 0.25
    #: Audio kept after the detected end.
    post_roll: float = 0.1
    #: An utterance is cut at this length.
    max_utterance: float = 5.0
    #: How fast the noise floor may rise, dB per second (it falls at once).
    floor_rise: float = 3.0
    #: A frame this far under the floor during speech shows the floor was
    #: taken on sound, not on the room: it becomes the floor. Listening that
    #: starts inside a sound (a declaration said right after the slap, while
    #: the table's last Tum rings) took the Tum as the room, 25 dB too loud,
    #: and cut the answer at its next short pause ("Kraken ... two").
    relearn_db: float = 10.0
    #: The level is measured above this high-pass, in Hz (0: the raw signal).
    #: 150 Hz ends answers in a room's rumble (pink noise), where 20 ms frames
    #: swing by 10 dB around the floor. Measured on ``bench speech --quick``
    #: against the raw level: 20 dB 86.4% (84.8), 5 dB 59.1% (57.6), 10 dB
    #: false rejections 7.6% (9.1), clean and real digits the same.
    highpass: float = 150.0


@dataclass
class Utterance:
    """One stretch of speech on the sample clock."""

    samples: np.ndarray
    start: float
    end: float
    #: When the endpointer decided the speech was over (end + hangover).
    decided: float
    rate: int = 16000


class Endpointer:
    """Online speech/quiet segmentation; state lives in the object (feed blocks in order)."""

    def __init__(self, config: EndpointConfig | None = None, rate: int = 16000):
        self.config = config or EndpointConfig()
        self.rate = rate
        self.hop = max(1, int(round(self.config.frame * rate)))
        self.reset()

    def reset(self) -> None:
        self._sos = None
        if self.config.highpass:
            from scipy.signal import butter, sosfilt

            self._sosfilt = sosfilt
            self._sos = butter(2, self.config.highpass / (self.rate / 2), btype="highpass",
                               output="sos")
            self._zi = np.zeros((len(self._sos), 2))  # the filter at rest
        self._floor: float | None = None
        self._buf = np.zeros(0, dtype=np.float32)
        self._buf_start = 0  # sample index of _buf[0]
        self._pos = 0  # next sample index to frame
        self._speech_start: int | None = None
        self._last_loud = 0
        self._loud_frames = 0

    def feed(self, block: Block) -> Utterance | None:
        """Add a block; return an utterance once its end is certain."""
        if block.start != self._buf_start + len(self._buf):
            # a gap (dropped or muted blocks): start afresh after it
            self._buf = np.zeros(0, dtype=np.float32)
            self._buf_start = self._pos = block.start
            self._speech_start = None
            self._loud_frames = 0
            if self._sos is not None:
                self._zi = np.zeros_like(self._zi)
        self._buf = np.concatenate([self._buf, block.samples.astype(np.float32, copy=False)])
        return self._scan()

    def finish(self) -> Utterance | None:
        """The source ended: close any utterance in progress."""
        if self._speech_start is None:
            return None
        return self._emit(self._buf_start + len(self._buf), self._buf_start + len(self._buf))

    def _scan(self) -> Utterance | None:
        c = self.config
        while self._pos + self.hop <= self._buf_start + len(self._buf):
            i = self._pos - self._buf_start
            frame = self._buf[i : i + self.hop].astype(np.float64)
            if self._sos is not None:
                # Level above a high-pass: a room's rumble (pink noise, traffic,
                # a fan) carries its power below ~150 Hz, where 20 ms frames
                # swing by 10 dB, and an answer seemed never to end; speech
                # keeps its voice and consonants above.
                frame, self._zi = self._sosfilt(self._sos, frame, zi=self._zi)
            db = 10 * np.log10(float(np.mean(frame**2)) + 1e-12)
            t_frame = self._pos
            self._pos += self.hop
            if self._speech_start is None:
                if db < c.silent_dbfs:
                    # Digital silence (a stream opening, a gap filled after an
                    # overflow) says nothing about the room. Taken as its
                    # floor, it made a noisy room's every frame "speech": one
                    # 5-second utterance after another, every answer lost.
                    self._loud_frames = 0
                    self._trim()
                    continue
                if self._floor is None:
                    self._floor = db
                loud = db > max(self._floor + c.start_db, c.min_dbfs)
                self._loud_frames = self._loud_frames + 1 if loud else 0
                if self._loud_frames * self.hop >= 0.03 * self.rate:
                    self._speech_start = t_frame - (self._loud_frames - 1) * self.hop
                    self._last_loud = self._pos
                else:
                    self._track_floor(db)
                    self._trim()
                continue
            if db > max(self._floor + c.keep_db, c.min_dbfs):
                self._last_loud = self._pos
            elif c.silent_dbfs <= db < self._floor - c.relearn_db:
                self._floor = db
            too_long = self._pos - self._speech_start > c.max_utterance * self.rate
            if self._pos - self._last_loud >= c.hangover * self.rate or too_long:
                utt = self._emit(self._last_loud, self._pos)
                if utt is not None:
                    return utt
        return None

    def _track_floor(self, db: float) -> None:
        rise = self.config.floor_rise * self.config.frame
        self._floor = min(db, self._floor + rise)

    def _trim(self) -> None:
        keep = int((self.config.pre_roll + self.config.frame) * self.rate)
        drop = (self._pos - keep) - self._buf_start
        if drop > 0:
            self._buf = self._buf[drop:]
            self._buf_start += drop

    def _emit(self, end: int, decided: int) -> Utterance | None:
        c = self.config
        start = self._speech_start
        self._speech_start = None
        self._loud_frames = 0
        if end - start < c.min_speech * self.rate:
            self._trim()
            return None
        lo = max(self._buf_start, start - int(c.pre_roll * self.rate))
        hi = min(self._buf_start + len(self._buf), end + int(c.post_roll * self.rate))
        samples = self._buf[lo - self._buf_start : hi - self._buf_start].copy()
        self._trim()
        return Utterance(samples, start / self.rate, end / self.rate, decided / self.rate, self.rate)


@dataclass
class Heard:
    """An answer with its timing on the sample clock."""

    answer: Answer
    utterance: Utterance | None
    #: Sample-clock time when the answer was ready (decision time + decode CPU time).
    ready: float | None = None
    decode_seconds: float = 0.0


@dataclass
class AskResult:
    """The outcome of asking: an answer, or a fallback after ``attempts`` tries."""

    answer: Answer
    attempts: int
    fallback: bool
    heard: list[Heard] = field(default_factory=list)


class Listener:
    """Hears one answer at a time from a block stream.

    Parameters
    ----------
    recognizer
        Any :class:`~voicehost.speech.recognizer.Recognizer`.
    mute
        The host voice's :class:`MuteWindows`; overlapping blocks are dropped.
    config
        Endpointing settings.
    """

    def __init__(self, recognizer: Recognizer, mute: MuteWindows | None = None,
                 config: EndpointConfig | None = None):
        self.recognizer = recognizer
        self.mute = mute if mute is not None else MuteWindows()
        self.config = config or EndpointConfig()
        #: Sample-clock time of the end of the last block read (the voice speaks "now").
        self.now = 0.0

    def audible(self, blocks: Iterable[Block]) -> Iterator[Block]:
        """The blocks the listener may hear: those not overlapping the host's voice."""
        for block in blocks:
            self.now = block.end / block.rate
            if not self.mute.overlaps(block.t, block.end / block.rate):
                yield block

    def listen(self, blocks: Iterable[Block], question: Question | Prepared,
               max_wait: float = 8.0, whole_if_silent: bool = False) -> Heard:
        """Wait for one utterance (at most ``max_wait`` s of clock) and recognise it.

        Reading stops right after the utterance ends, so the caller can keep
        using the same block iterator. With ``whole_if_silent`` (for a single
        recorded answer) the whole audio is decoded when no speech was found.
        """
        prepared = self.recognizer.prepare(question)
        ep = Endpointer(self.config, self.recognizer.rate)
        first: float | None = None
        kept: list[np.ndarray] = []
        utt = None
        for block in self.audible(blocks):
            if first is None:
                first = block.t
            if whole_if_silent:
                kept.append(block.samples)
            utt = ep.feed(block)
            if utt is not None:
                break
            if block.end / block.rate - first >= max_wait and ep._speech_start is None:
                break
        else:
            utt = ep.finish()
        if utt is None and whole_if_silent and kept:
            audio = np.concatenate(kept)
            end = (first or 0.0) + len(audio) / self.recognizer.rate
            utt = Utterance(audio, first or 0.0, end, end, self.recognizer.rate)
        if utt is None:
            return Heard(Answer(None, 0.0, "", self.recognizer.name), None)
        t0 = time.process_time()
        answer = self.recognizer.recognize(utt.samples, prepared)
        cpu = time.process_time() - t0
        return Heard(answer, utt, utt.decided + cpu, cpu)

    def ask(
        self,
        blocks: Iterable[Block],
        question: Question,
        prompt: str,
        say: Callable[[str, float], object] | None = None,
        attempts: int = 3,
        max_wait: float = 8.0,
        retry_prompt: str = "Sorry, I did not catch that. {prompt}",
    ) -> AskResult:
        """Say ``prompt``, listen, and ask again on silence or rejection, up to ``attempts``.

        ``say(text, t)`` is the voice (e.g. :meth:`Voice.say`), called with the
        clock time ``t`` of the last block read; it registers its own mute
        window, so the listener skips the host's words. After the last
        attempt the result has ``fallback=True`` so the host can offer the
        keyboard instead.
        """
        prepared = self.recognizer.prepare(question)
        stream = iter(blocks)
        tries: list[Heard] = []
        for n in range(attempts):
            if say is not None:
                say(prompt if n == 0 else retry_prompt.format(prompt=prompt), self.now)
            heard = self.listen(stream, prepared, max_wait=max_wait)
            tries.append(heard)
            if heard.answer.choice is not None:
                return AskResult(heard.answer, n + 1, False, tries)
        last = tries[-1].answer if tries else Answer(None, 0.0, "", self.recognizer.name)
        return AskResult(last, attempts, True, tries)
