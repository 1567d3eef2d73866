"""Each player's timing over a game, as rhythm games show accuracy.

A judged play keeps the judge's verdict; at the end the host reports, per
player, how many plays were on the beat, the mean offset from the last Tum
(negative: early) and its spread (population standard deviation), in ms.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from voicehost.audio.judge import Verdict


@dataclass
class JudgedPlay:
    """A play the rules took (accepted or refused by them), with its verdict."""

    t: float
    player: str
    card: str
    slot: int
    timing: str
    verdict: Verdict | None
    mistake: str | None = None
    #: The play stopped the song (a mistake or an island): the table warms up again.
    stops_song: bool = False

    @property
    def offset_ms(self) -> float | None:
        return None if self.verdict is None else self.verdict.offset_ms


@dataclass
class PlayerTiming:
    """A player's accuracy over their judged plays, as rhythm games show it."""

    player: str
    plays: int
    on_beat: int
    mean_ms: float | None
    spread_ms: float | None

    def say(self) -> str:
        name = self.player[:1].upper() + self.player[1:]
        if not self.plays or self.mean_ms is None:
            return f"{name}: no judged play."
        if round(self.mean_ms) == 0:
            average = "right on the beat on average"
        else:
            early = "late" if self.mean_ms > 0 else "early"
            average = f"average {abs(self.mean_ms):.0f} ms {early}"
        return (f"{name}: {self.on_beat} of {self.plays} on the beat, {average}, "
                f"spread {self.spread_ms:.0f} ms.")

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "plays": self.plays, "on_beat": self.on_beat,
                "mean_ms": None if self.mean_ms is None else round(self.mean_ms, 1),
                "spread_ms": None if self.spread_ms is None else round(self.spread_ms, 1)}


def timing_summary(players: Sequence[str], plays: Iterable[JudgedPlay]) -> list[PlayerTiming]:
    """Mean offset and spread (population standard deviation) per player, in ms."""
    plays = list(plays)
    out = []
    for p in players:
        offs = [x.offset_ms for x in plays if x.player == p and x.offset_ms is not None]
        on = sum(1 for x in plays if x.player == p and x.verdict is not None
                 and x.verdict.verdict == "on_beat")
        n = sum(1 for x in plays if x.player == p and x.verdict is not None)
        mean = statistics.fmean(offs) if offs else None
        spread = statistics.pstdev(offs) if len(offs) > 1 else (0.0 if offs else None)
        out.append(PlayerTiming(p, n, on, mean, spread))
    return out
