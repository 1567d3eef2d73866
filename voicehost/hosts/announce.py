"""What the host says: one place where a line becomes sound, text, or both.

Every host calls :meth:`Announcer.say` with each line and the sample-clock
time it is said at. The announcer keeps the lines (tests and the journal of
what was said rely on them), prints them when quiet or when no voice is
available, and otherwise hands them to a voice object. Keeping the coupling
to the speech package in this one class means the hosts never import it.

A voice is anything with ``say(text) -> float | None`` (the seconds of audio
it played, if known). When the voice reports a duration and the announcer
was given :class:`~voicehost.audio.mute.MuteWindows`, that stretch of the
sample clock is muted so the host does not hear itself as the table
(half duplex, design.md 3.1).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TextIO

from voicehost.errors import print_notes


class Voice(Protocol):
    def say(self, text: str) -> float | None: ...


@dataclass(frozen=True)
class Line:
    """One announcement: when (sample clock, s), what, and of which kind."""

    t: float
    text: str
    kind: str = "info"


@dataclass
class Announcer:
    """Says lines through a voice, or prints them.

    Parameters
    ----------
    voice
        Optional text-to-speech object (see module docstring); ``None`` prints.
    quiet
        Never speak, only print.
    stream
        Where printed lines go (default: standard output).
    echo
        Also print lines that are spoken (so the screen shows what was said).
    mute
        Optional mute windows to extend with the voice's duration.
    listeners
        Callbacks ``(line)`` called for every line (the ``--large`` view).
    """

    voice: Voice | None = None
    quiet: bool = False
    stream: TextIO | None = None
    echo: bool = True
    mute: Any = None
    listeners: list[Callable[[Line], None]] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    silent: bool = False
    #: Which lines are spoken (the others are printed and shown): ``None`` speaks all.
    speak: Callable[[Line], bool] | None = None

    def __post_init__(self) -> None:
        # One set of mute windows: a voice that registers its own (speech.voice.Voice)
        # shares the announcer's, so the onset detector and the listener see them.
        if self.voice is not None and self.mute is not None and hasattr(self.voice, "mute"):
            try:
                self.voice.mute = self.mute
            except AttributeError:
                pass
        if self.echo and hasattr(self.voice, "echo"):
            # Every line is printed (or shown) here: a voice that falls back
            # to printing (no sound device) would print it a second time.
            self.voice.echo = False

    def say(self, text: str, t: float = 0.0, kind: str = "info") -> Line:
        """Announce ``text`` at sample-clock time ``t`` (s)."""
        line = Line(round(float(t), 4), text, kind)
        self.lines.append(line)
        if self.silent:
            return line
        for listener in self.listeners:
            listener(line)
        spoken = False
        wanted = self.speak is None or self.speak(line)
        if self.voice is not None and not self.quiet and wanted:
            try:
                try:
                    seconds = self.voice.say(text, at=float(t))
                except TypeError:  # a voice without a clock argument
                    seconds = self.voice.say(text)
                spoken = True
            except Exception as exc:  # a broken voice must not stop the game: print instead
                self.voice = None
                print(f"(voice unavailable: {exc}; printing instead)",
                      file=self.stream or sys.stdout)
                seconds = None
            if seconds and self.mute is not None and not hasattr(self.voice, "mute"):
                self.mute.add(t, t + float(seconds))
        if not spoken or self.echo:
            if not self.listeners:
                print(text, file=self.stream or sys.stdout, flush=True)
        return line

    @property
    def texts(self) -> list[str]:
        return [line.text for line in self.lines]


def make_announcer(quiet: bool, output_device: Any = None, mute: Any = None,
                   clock: Callable[[], float] | None = None) -> Announcer:
    """Both hosts' announcer: the voice on ``output_device`` (name or index), or printing."""
    return Announcer(voice=default_voice(quiet, output_device, mute, clock), quiet=quiet, mute=mute)


def default_voice(quiet: bool, device=None, mute=None,
                  clock: Callable[[], float] | None = None) -> Voice | None:
    """The espeak-ng voice of :mod:`voicehost.speech.voice`, playing on ``device``.

    ``clock`` is the microphone's sample clock live: each line is then muted
    from when it is handed to the card (see :class:`~voicehost.speech.voice.Voice`).

    ``None`` (print instead) when quiet, or when the voice cannot be set up
    (no speech package, no espeak-ng: the voice reports that when it speaks).
    A ``device`` no output matches is a :class:`~voicehost.errors.DeviceError`
    naming the outputs, before the game starts rather than at its first line.
    """
    if quiet:
        return None
    try:
        from voicehost.speech.voice import DevicePlayer, Voice as EspeakVoice
    except Exception:
        return None
    import shutil

    if shutil.which("espeak-ng") is None:
        print_notes(["espeak-ng is not installed; printing what the host says."])
        return None
    from voicehost.hosts.settings import calibration_latency

    # The calibrated round trip: how late the microphone hears what the card
    # is handed (a Bluetooth speaker's delay), so the voice mutes it whole.
    kwargs: dict[str, Any] = {"delay": calibration_latency()}
    if mute is not None:
        kwargs["mute"] = mute
    if clock is not None:
        kwargs["clock"] = clock
    if device is not None:
        kwargs["play"] = DevicePlayer(device).check()
    try:
        return EspeakVoice(**kwargs)
    except Exception:
        return None


class BackgroundVoice:
    """Speaks on a thread so a live host keeps reading the microphone meanwhile.

    A blocking voice would stall the loop for the length of each sentence
    while the microphone's queue fills. Each line is spoken when the
    previous one is done, and its mute window starts at the sample clock of
    that moment (``clock()``), not when it was queued.
    """

    def __init__(self, voice: Any, clock: Callable[[], float]):
        import queue
        import threading

        self.voice = voice
        self.clock = clock
        self._queue: "queue.Queue[str | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def mute(self):
        return getattr(self.voice, "mute", None)

    @mute.setter
    def mute(self, value) -> None:
        if hasattr(self.voice, "mute"):
            self.voice.mute = value

    def say(self, text: str, at: float = 0.0) -> None:
        self._queue.put(text)
        return None

    def _run(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            try:
                self.voice.say(text, at=self.clock())
            except Exception as exc:  # keep the game going; say why once
                print_notes([f"the voice failed ({exc})."])

    def close(self, wait: float = 30.0) -> None:
        """Finish the lines already queued (up to ``wait`` seconds), then stop."""
        self._queue.put(None)
        self._thread.join(wait)
