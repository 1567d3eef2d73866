"""Keeping what the host heard: the live blocks written to a WAV on the sample clock.

When a live game goes wrong (an answer missed, a play judged late), the
question is always what the microphone actually delivered. ``--record-input``
keeps it: every block the host consumed, in order, with any stretch the
source skipped written as silence, so sample ``n`` of the file is sample ``n``
of the host's clock and hosting the file with ``--input`` hears the same audio
at the same times. The file is written on the consumer's thread (never in
PortAudio's callback) and flushed every few seconds, so a crash keeps all
but the last moments. The samples are kept as 32-bit floats, exactly as
the host had them: rounded to 16 bits, a borderline answer can already be
read otherwise (measured: one "green" in a live match), and the point of the
file is to see the same thing happen again (about 3.8 MB a minute).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np

from voicehost.audio.blocks import Block
from voicehost.errors import DeviceError

#: Seconds of audio between flushes to disk.
FLUSH_EVERY = 5.0


class InputRecorder:
    """A source that records itself: ``blocks()`` passes the source's blocks
    through unchanged while writing them to ``path`` (a 32-bit float WAV).

    Everything else (``rate``, ``now``, ``stats``...) is the source's own, so
    the hosts use it in the source's place. :meth:`close` closes both.
    """

    def __init__(self, source: Any, path: str | Path):
        self.source = source
        self.path = Path(path)
        self.written = 0  # samples, silence included
        self._file = None
        self._flushed = 0
        self._open()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.source, name)

    def _open(self) -> None:
        import soundfile as sf

        try:
            self._file = sf.SoundFile(str(self.path), "w", samplerate=self.source.rate,
                                      channels=1, subtype="FLOAT", format="WAV")
        except (OSError, RuntimeError, sf.LibsndfileError) as exc:
            raise DeviceError(f"cannot write the input recording {self.path} ({exc}); "
                              "choose a writable path for --record-input.") from None

    def blocks(self, *args: Any, **kwargs: Any) -> Iterator[Block]:
        for block in self.source.blocks(*args, **kwargs):
            self.write(block)
            yield block

    def close(self) -> None:
        try:
            self.source.close()
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> "InputRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def write(self, block: Block) -> None:
        """Write ``block`` at its place on the clock (a skipped stretch becomes silence)."""
        if self._file is None:
            return  # closed: the game is over, later blocks are not the game's
        samples = np.asarray(block.samples, dtype=np.float32)
        if block.start > self.written:
            self._file.write(np.zeros(block.start - self.written, dtype=np.float32))
            self.written = block.start
        elif block.start < self.written:  # overlap: keep what was written first
            samples = samples[self.written - block.start:]
        self._file.write(samples)
        self.written += len(samples)
        if self.written - self._flushed >= FLUSH_EVERY * self.source.rate:
            self._file.flush()
            self._flushed = self.written
