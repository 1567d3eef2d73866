"""Half-duplex: the stretches of the sample clock when the host must not listen.

While the host's voice plays (and for a short tail after, to let the room's
echo die down) the microphone hears the host itself. The voice adds those
stretches here; the speech listener drops blocks that overlap one, and the
onset detector's onsets inside one are discarded, so the host never takes its
own "red" for a vote or its own "Tum" for the table's.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

#: Extra time after the voice stops during which the room may still echo it.
DEFAULT_TAIL = 0.25


@dataclass
class MuteWindows:
    """Sorted, merged, half-open intervals ``[start, end)`` in seconds."""

    tail: float = DEFAULT_TAIL
    _starts: list[float] = field(default_factory=list)
    _ends: list[float] = field(default_factory=list)

    def add(self, start: float, end: float) -> None:
        """Mute ``[start, end + tail)``, merging with any window it touches."""
        end = end + self.tail
        if end <= start:
            return
        i = bisect.bisect_left(self._ends, start)
        j = bisect.bisect_right(self._starts, end)
        if i < j:
            start = min(start, self._starts[i])
            end = max(end, self._ends[j - 1])
        self._starts[i:j] = [start]
        self._ends[i:j] = [end]

    def covers(self, t: float) -> bool:
        """Whether the instant ``t`` is muted."""
        i = bisect.bisect_right(self._starts, t) - 1
        return i >= 0 and t < self._ends[i]

    def overlaps(self, start: float, end: float) -> bool:
        """Whether any part of ``[start, end)`` is muted."""
        i = bisect.bisect_right(self._ends, start)
        return i < len(self._starts) and self._starts[i] < end

    def spans(self) -> list[tuple[float, float]]:
        """The windows, ``(start, end)``, in time order."""
        return list(zip(self._starts, self._ends))

    def forget_before(self, t: float) -> None:
        """Drop windows that ended before ``t`` so a long game keeps memory flat."""
        i = bisect.bisect_right(self._ends, t)
        del self._starts[:i]
        del self._ends[:i]

    def __len__(self) -> int:
        return len(self._starts)
