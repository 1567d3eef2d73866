"""Blocks of mono audio stamped with the sample clock.

Every stage downstream of a source (onset detection, chant tracking, the
speech listener) consumes :class:`Block` objects and never asks where they
came from, so a file and a live microphone give the same results. Time is
the source's sample clock: seconds since its first sample, computed from the
sample count, never from a wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

#: The rate every stage runs at. 16 kHz keeps speech models happy (both
#: PocketSphinx's default model and Vosk's small models are 16 kHz) and is
#: plenty for syllable onsets.
PIPELINE_RATE = 16000


@dataclass(frozen=True)
class Block:
    """A run of mono float32 samples starting at sample ``start`` of the clock.

    ``start`` is an integer sample index so that concatenating blocks can never
    accumulate rounding error; :attr:`t` gives it in seconds.
    """

    start: int
    samples: np.ndarray
    rate: int = PIPELINE_RATE

    @property
    def t(self) -> float:
        """Time of the first sample, in seconds on the sample clock."""
        return self.start / self.rate

    @property
    def end(self) -> int:
        """Index of the sample just after this block."""
        return self.start + len(self.samples)

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate


def blocks_from_array(
    samples: np.ndarray, rate: int = PIPELINE_RATE, blocksize: int = 1600, start: int = 0
) -> Iterator[Block]:
    """Cut an in-memory signal into blocks, the way a source would deliver it."""
    samples = np.asarray(samples, dtype=np.float32)
    if blocksize <= 0:
        raise ValueError("blocksize must be positive")
    for i in range(0, len(samples), blocksize):
        yield Block(start + i, samples[i : i + blocksize], rate)


def concatenate(blocks: Iterator[Block]) -> np.ndarray:
    """Join blocks back into one signal (for tests and offline tools)."""
    parts = [b.samples for b in blocks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
