"""Where blocks come from: an audio file (and, later in this module, a microphone).

A source yields :class:`~voicehost.audio.blocks.Block` objects of mono float32
audio at the pipeline rate, each stamped with the sample clock. Whatever the
file holds (any rate, channel count, bit depth or container that libsndfile
reads) is downmixed and resampled here, once, so that no stage downstream
ever deals with formats. Files are read in chunks, so an hour-long recording
takes no more memory than a short one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator

import numpy as np

from voicehost.audio.blocks import PIPELINE_RATE, Block
from voicehost.errors import AudioFileError

#: Frames read from the file at a time (before resampling).
_READ_FRAMES = 65536
#: A file recorded at a lower rate lacks the upper bands the pipeline listens to.
NARROWBAND_RATE = PIPELINE_RATE


class FileSource:
    """Blocks from an audio file, as if it were being recorded now.

    Parameters
    ----------
    path
        Any file libsndfile reads (WAV, FLAC, OGG, AIFF ...).
    rate
        The pipeline rate to resample to.
    blocksize
        Samples per block at ``rate``; the last block may be shorter.
    """

    def __init__(self, path: str | Path, rate: int = PIPELINE_RATE, blocksize: int = 1600):
        import soundfile as sf

        self.path = Path(path)
        self.rate = rate
        self.blocksize = blocksize
        if not self.path.exists():
            raise AudioFileError(f"{self.path}: no such file; check the path.")
        if self.path.is_dir():
            raise AudioFileError(f"{self.path} is a folder; give an audio file (WAV, FLAC, OGG).")
        try:
            info = sf.info(str(self.path))
        except Exception as exc:  # libsndfile says little more than "format not recognised"
            raise AudioFileError(
                f"{self.path}: cannot read it as audio ({_reason(exc)}); "
                "give a WAV, FLAC or OGG recording."
            ) from None
        if info.samplerate <= 0 or info.channels <= 0:
            raise AudioFileError(f"{self.path}: the file's header is damaged (no sample rate).")
        self.file_rate = int(info.samplerate)
        self.channels = int(info.channels)
        self.frames = int(info.frames)
        #: Frames the file's header says it holds, when that is not what it holds.
        self.declared_frames: int | None = None
        if info.format in ("WAV", "WAVEX"):
            declared = _wav_declared_frames(self.path)
            if declared is not None and declared > self.frames:
                self.declared_frames = declared

    @property
    def notes(self) -> list[str]:
        """What the user should know about this recording before trusting what is heard in it.

        Neither stops the analysis: a recording cut off is analysed as far as
        it goes, a narrowband one as it is.
        """
        out = []
        if self.declared_frames is not None:
            out.append(f"{self.path} ends {self.duration:.1f} s in, though its header says "
                       f"{self.declared_frames / self.file_rate:.1f} s: the recording was cut "
                       "off (a crash, or an interrupted copy); what is there is analysed.")
        if self.file_rate < NARROWBAND_RATE:
            out.append(f"{self.path} is recorded at {self.file_rate} Hz: nothing above "
                       f"{self.file_rate / 2000:g} kHz, where the \"T\" of Tum, a card's slap "
                       "and much of speech are heard. Last Tums come out later, cards are "
                       "often taken for singing and answers are misheard more; record at "
                       f"{NARROWBAND_RATE // 1000} kHz or more.")
        return out

    @property
    def duration(self) -> float:
        """Length of the recording in seconds."""
        return self.frames / self.file_rate if self.file_rate else 0.0

    def blocks(self) -> Iterator[Block]:
        """Yield the whole file as pipeline-rate blocks of exactly ``blocksize`` samples."""
        import soundfile as sf

        resampler = None
        if self.file_rate != self.rate:
            import soxr

            resampler = soxr.ResampleStream(self.file_rate, self.rate, 1, dtype="float32")
        pending = np.zeros(0, dtype=np.float32)
        emitted = 0
        try:
            with sf.SoundFile(str(self.path)) as f:
                while True:
                    chunk = f.read(_READ_FRAMES, dtype="float32", always_2d=True)
                    last = len(chunk) < _READ_FRAMES
                    mono = _downmix(chunk)
                    if not np.all(np.isfinite(mono)):
                        raise AudioFileError(
                            f"{self.path}: the recording contains invalid samples (NaN or "
                            "infinity); re-export it from your audio editor."
                        )
                    if resampler is not None:
                        mono = resampler.resample_chunk(mono, last=last)
                    pending = np.concatenate([pending, mono]) if len(pending) else mono
                    while len(pending) >= self.blocksize:
                        yield Block(emitted, pending[: self.blocksize].copy(), self.rate)
                        emitted += self.blocksize
                        pending = pending[self.blocksize :]
                    if last:
                        break
        except AudioFileError:
            raise
        except (RuntimeError, sf.LibsndfileError) as exc:
            raise AudioFileError(
                f"{self.path}: the file is damaged or truncated ({_reason(exc)})."
            ) from None
        if len(pending):
            yield Block(emitted, pending.copy(), self.rate)

    def read(self) -> np.ndarray:
        """The whole file at the pipeline rate (for offline tools and tests)."""
        parts = [b.samples for b in self.blocks()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


def _wav_declared_frames(path: Path) -> int | None:
    """Frames a RIFF/WAVE header says its data chunk holds (None: no such header or size).

    libsndfile reads a WAV cut off short without a word (it counts what is
    there); the header still says how long the recording was meant to be.
    """
    import struct

    try:
        with open(path, "rb") as f:
            head = f.read(12)
            if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
                return None
            align = 0
            while True:
                chunk = f.read(8)
                if len(chunk) < 8:
                    return None
                cid, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
                if cid == b"fmt ":
                    fmt = f.read(size + (size & 1))
                    if len(fmt) < 14:
                        return None
                    align = struct.unpack("<H", fmt[12:14])[0]
                elif cid == b"data":
                    # 0 and 0xFFFFFFFF: a size never written (a stream, an RF64 body).
                    if align <= 0 or size in (0, 0xFFFFFFFF):
                        return None
                    return size // align
                else:
                    f.seek(size + (size & 1), 1)
    except OSError:
        return None


def _downmix(chunk: np.ndarray) -> np.ndarray:
    if chunk.shape[1] == 1:
        return np.ascontiguousarray(chunk[:, 0])
    return chunk.mean(axis=1, dtype=np.float32)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
    return text.split(": ", 1)[-1] if "Error opening" in text else text


def read_audio(path: str | Path, rate: int = PIPELINE_RATE) -> np.ndarray:
    """Read a whole file as mono float32 at ``rate`` (convenience for offline use)."""
    return FileSource(path, rate=rate).read()


def expected_samples(frames: int, file_rate: int, rate: int) -> int:
    """How many pipeline samples a file of ``frames`` frames gives, for sanity checks."""
    return int(math.ceil(frames * rate / file_rate))


def __getattr__(name: str):
    """``MicrophoneSource`` and ``find_device`` live in :mod:`voicehost.audio.microphone`."""
    if name in ("MicrophoneSource", "find_device", "list_input_devices", "MicStats"):
        from voicehost.audio import microphone

        return getattr(microphone, name)
    raise AttributeError(name)
