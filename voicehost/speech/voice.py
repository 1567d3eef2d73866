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
That stretch ends as late as the microphone can hear the line: the speaker
may play it well after the card was handed it (:attr:`Voice.delay`).
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


#: Below the line's loudest sample by this much (dB), its end is silence.
SILENT_DB = 50.0
#: Seconds kept after the line's last sound (the fade of its last phoneme).
KEEP_AFTER = 0.02


def _without_trailing_silence(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` cut :data:`KEEP_AFTER` after the last sound.

    espeak-ng ends every line with a third of a second of silence. Played
    and muted with it, the microphone stayed deaf that long after the host
    had finished (0.6 s with the echo's tail), and a player who answered
    "Blue" 0.3 s after "Red, who do you accuse?", as people do, lost the
    start of the word: 7 of 30 recorded colours were recognised so, 26 now,
    29 said 0.9 s after (test_speech_listener).
    """
    level = np.abs(samples)
    if not len(level) or level.max() <= 0:
        return samples
    loud = np.flatnonzero(level > level.max() * 10.0 ** (-SILENT_DB / 20.0))
    return samples[: min(len(samples), int(loud[-1]) + 1 + int(KEEP_AFTER * rate))]


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
    delay
        Seconds from handing the sound card a line to the microphone hearing
        it, as ``voicehost calibrate`` measured the path. A Bluetooth speaker
        plays 0.2 to 0.3 s late, a network speaker a second: muted only for
        the line's length from the moment it was handed over, its last words
        reach the microphone unmuted and the host hears itself ("... 3 to 8"
        taken for an answer). The mute runs that much longer, or as long as
        the player's own ``latency`` (what the card reports), if longer.
    clock
        The microphone's sample clock now; when given, each line's mute runs
        from the moment it is handed to the card (``at`` is earlier by the
        time the speech took to make) rather than from ``at``.
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
    delay: float = 0.0
    clock: Callable[[], float] | None = None
    _said: list[np.ndarray] = field(default_factory=list, init=False, repr=False)

    def say(self, text: str, at: float = 0.0) -> float:
        """Say ``text`` starting at clock time ``at``; returns its duration in seconds.

        The mute window is registered before playing, so a listener reading
        the microphone meanwhile already drops those blocks.
        """
        if self.quiet:
            self._print(text)
            return 0.0
        samples = _without_trailing_silence(synthesize(text, self.voice, self.speed, rate=self.rate),
                                            self.rate)
        duration = len(samples) / self.rate
        if self.wav is not None:
            self.mute.add(at, at + duration)
            self._write(samples)
            return duration
        play = self.play or _DEFAULT_PLAYER
        start = at if self.clock is None else max(at, self.clock())
        late = max(self.delay, getattr(play, "latency", 0.0))
        self.mute.add(at, start + late + duration)
        try:
            play(samples, self.rate)
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


class DevicePlayer:
    """Plays samples on one output device (``None``: the default one) and waits for the end.

    ``latency`` is the output latency the card reports for such a stream
    (``sounddevice.play`` opens it with PortAudio's "high" latency): the
    least time from handing it a line to the line being played. It is read
    once, on first use; 0 when the card cannot say.
    """

    def __init__(self, device: int | str | None = None):
        self.device: int | str | None = (int(device) if isinstance(device, str)
                                         and device.strip().isdigit() else device)
        self._latency: float | None = None

    def check(self) -> "DevicePlayer":
        """Resolve a named or numbered device now: a one-line error listing the outputs if none matches."""
        from voicehost.commands.devices import find_output_device

        if self.device is not None:
            self.device = find_output_device(self.device)
        return self

    @property
    def latency(self) -> float:
        if self._latency is None:
            self._latency = 0.0
            try:
                import sounddevice as sd

                info = sd.query_devices(self.device, "output")
                self._latency = float(info["default_high_output_latency"])
            except Exception:  # no PortAudio, no such device: playing will say so
                pass
        return self._latency

    def __call__(self, samples: np.ndarray, rate: int) -> None:
        try:
            import sounddevice as sd
        except OSError as exc:  # PortAudio library missing
            raise DeviceError(f"no sound output ({exc}).") from None
        # Some host APIs (ALSA's pulse plugin) drop what is still buffered
        # when the stream stops: the line's last 10 ms went unheard. Silence
        # after it is dropped instead (it needs no mute: nothing is heard).
        pad = np.zeros(int((self.latency + PAD) * rate), dtype=np.float32)
        try:
            sd.play(np.concatenate([np.asarray(samples, dtype=np.float32), pad]), rate,
                    device=self.device)
            sd.wait()
        except Exception as exc:  # PortAudioError and friends
            where = "" if self.device is None else f" on output device {self.device!r}"
            raise DeviceError(f"cannot play sound{where} ({exc}); `voicehost devices` lists the "
                              "output devices and --output-device picks one.") from None


#: Seconds of silence played after a line, beyond the card's latency (see DevicePlayer).
PAD = 0.05

_DEFAULT_PLAYER = DevicePlayer()
