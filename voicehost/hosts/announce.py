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

    def say(self, text: str, t: float = 0.0, kind: str = "info") -> Line:
        """Announce ``text`` at sample-clock time ``t`` (s)."""
        line = Line(round(float(t), 4), text, kind)
        self.lines.append(line)
        if self.silent:
            return line
        for listener in self.listeners:
            listener(line)
        spoken = False
        if self.voice is not None and not self.quiet:
            try:
                seconds = self.voice.say(text)
                spoken = True
            except Exception as exc:  # a broken voice must not stop the game: print instead
                self.voice = None
                print(f"(voice unavailable: {exc}; printing instead)",
                      file=self.stream or sys.stdout)
                seconds = None
            if seconds and self.mute is not None:
                self.mute.add(t, t + float(seconds))
        if not spoken or self.echo:
            if not self.listeners:
                print(text, file=self.stream or sys.stdout, flush=True)
        return line

    @property
    def texts(self) -> list[str]:
        return [line.text for line in self.lines]


def default_voice(quiet: bool, device=None) -> Voice | None:
    """The espeak-ng voice from :mod:`voicehost.speech.voice` when it is available.

    The speech package is another engineer's; until it offers a voice this
    returns ``None`` and the host prints.
    """
    if quiet:
        return None
    try:
        from voicehost.speech import voice as voice_module  # type: ignore[attr-defined]
    except Exception:
        return None
    for name in ("Voice", "EspeakVoice"):
        cls = getattr(voice_module, name, None)
        if cls is not None:
            try:
                return cls(device=device) if device is not None else cls()
            except TypeError:
                try:
                    return cls()
                except Exception:
                    return None
            except Exception:
                return None
    return None
