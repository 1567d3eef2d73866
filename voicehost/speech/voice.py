"""The host's voice: espeak-ng text to speech, to the speakers, a WAV file, or the terminal.

espeak-ng is run as the Debian ``espeak-ng`` program (``--stdout`` gives a
WAV): setup.sh installs it, it needs no binding code, and a crash in it cannot
take the host down. (The ``espeakng-loader`` wheel ships the library and its
data for machines with no system package, but needs a ctypes binding of the
C API; the program is simpler and enough here.)

Half-duplex: every time the voice speaks it adds the stretch of the sample
clock it plays over (plus the tail of :class:`MuteWindows`) to the shared
mute windows, so the listener and the onset detector drop what the
microphone hears meanwhile: the host saying "red" is never taken as a vote.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import numpy as np

from voicehost.audio.mute import MuteWindows
from voicehost.errors import DeviceError, VoicehostError, print_notes


#: Sound-device notes already printed in this run.
_NOTED: set[str] = set()


class VoiceError(VoicehostError):
    """Text to speech is not available or failed."""


def synthesize(text: str, voice: str = "en-us", speed: int = 165, pitch: int = 50,
               rate: int = 16000) -> np.ndarray:
    """Speech for ``text`` as mono float32 at ``rate``."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise VoiceError(
            "espeak-ng is not installed; run `sudo apt-get install espeak-ng`, or use --quiet "
            "to print what the host says."
        )
    try:
        wav = subprocess.run(
            [exe, "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
            capture_output=True, check=True, timeout=30,
        ).stdout
    except subprocess.CalledProcessError as exc:
        msg = exc.stderr.decode(errors="replace").strip() or "no reason given"
        raise VoiceError(f"espeak-ng failed for voice {voice!r} ({msg}); try --voice en-us.") from None
    except subprocess.TimeoutExpired:
        raise VoiceError("espeak-ng did not answer within 30 s; check that it runs.") from None
    import soundfile as sf

    samples, file_rate = sf.read(io.BytesIO(wav), dtype="float32")
    if samples.ndim > 1:
        samples = samples.mean(axis=1)
    if file_rate != rate:
        import soxr

        samples = soxr.resample(samples, file_rate, rate).astype(np.float32)
    return samples


@dataclass
class Voice:
    """Speaks for the host.

    Parameters
    ----------
    mute
        Shared half-duplex windows; each utterance adds its playing time.
    quiet
        Print what the host says instead of speaking it.
    wav
        Write everything said to this WAV file (gaps of silence between) instead of playing it.
    voice, speed
        espeak-ng voice name and words per minute.
    echo
        Print what cannot be spoken (quiet, or the sound device failed). An
        :class:`~voicehost.hosts.announce.Announcer` that prints every line
        itself turns this off, or each such line came out twice.
    """

    mute: MuteWindows = field(default_factory=MuteWindows)
    quiet: bool = False
    wav: str | Path | None = None
    voice: str = "en-us"
    speed: int = 165
    rate: int = 16000
    out: TextIO = field(default_factory=lambda: sys.stdout)
    play: Callable[[np.ndarray, int], None] | None = None
    echo: bool = True
    _said: list[np.ndarray] = field(default_factory=list, init=False, repr=False)

    def say(self, text: str, at: float = 0.0) -> float:
        """Say ``text`` starting at clock time ``at``; returns its duration in seconds.

        The mute window is registered before playing, so a listener reading
        the microphone meanwhile already drops those blocks.
        """
        if self.quiet:
            self._print(text)
            return 0.0
        samples = synthesize(text, self.voice, self.speed, rate=self.rate)
        duration = len(samples) / self.rate
        self.mute.add(at, at + duration)
        if self.wav is not None:
            self._write(samples)
            return duration
        try:
            (self.play or _play_device)(samples, self.rate)
        except DeviceError as exc:
            note = f"{exc} Printing what the host says instead (--quiet does so from the start)."
            if note not in _NOTED:  # once per run: the demo sets up a voice per game
                _NOTED.add(note)
                print_notes([note])
            self.quiet = True
            self._print(text)
        return duration

    def _print(self, text: str) -> None:
        if self.echo:
            print(f"host: {text}", file=self.out, flush=True)

    def _write(self, samples: np.ndarray) -> None:
        import soundfile as sf

        gap = np.zeros(int(0.3 * self.rate), dtype=np.float32)
        self._said.extend([samples, gap])
        sf.write(str(self.wav), np.concatenate(self._said), self.rate, subtype="PCM_16")


def _play_device(samples: np.ndarray, rate: int) -> None:
    try:
        import sounddevice as sd
    except OSError as exc:  # PortAudio library missing
        raise DeviceError(f"no sound output ({exc}).") from None
    try:
        sd.play(samples, rate)
        sd.wait()
    except Exception as exc:  # PortAudioError and friends
        raise DeviceError(f"cannot play sound ({exc}); `voicehost devices` lists the output "
                          "devices and --output-device picks one.") from None
