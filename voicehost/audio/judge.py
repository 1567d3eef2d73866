"""Judge a declared card play against the last Tum of its bar.

design.md section 4.1: a play is on the beat within a window around the last
Tum's onset (normal +-120 ms, easy +-200 ms, hard +-60 ms). The play is timed
by the card's slap when the microphone heard one near the declaration (the
key press or the spoken "kraken two" comes after the slap), else by the
declaration itself. A card slapped with the Tum (within the 50 ms the
detector hears as one onset) is heard as one sound with it, with a click far
sharper than the table's sung Tums: the tracker marks such a last Tum
``struck`` (:attr:`voicehost.audio.chant.LastTum.struck`), and the card's
time (``card_t``, the sound heard) times a play declared in the 250 ms after
it when no slap of its own was heard; heard before the beat predicted, the
sound is the card's, and the last Tum itself then lies halfway between it
and the beat predicted, as for a card that hid its Tum.
Timed by the key press, 120 ms after the card, such plays were judged late
(held-out seeds 1 to 8, real voices seeds 1 to 4 and the committed chants:
237 of 352 plays judged as their true offset says at the normal windows,
301 with struck Tums; 10 of 412 last Tums with no card near them are struck
too).

The last Tum is the onset of its first sound (the earliest singer's
consonant), as located: the syllable heard, a quarter of the way to the beat
the tracker predicted (:data:`voicehost.audio.chant.PREDICTED_SHARE`).
People feel a syllable's beat somewhat later, near its vowel (its
perceptual centre); :data:`PERCEPTUAL_OFFSET_MS` is that shift, added to
the last Tum before comparing and reported in every verdict, so it is never
a hidden bias. It is 0 until it is calibrated on real tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

WINDOWS_MS = {"normal": 120.0, "easy": 200.0, "hard": 60.0}
#: How far from a declaration a slap may be and still time the play.
SLAP_SEARCH = 0.25
#: Perceptual centre of a sung "Tum" after its acoustic onset (ms).
PERCEPTUAL_OFFSET_MS = 0.0
#: A play further than this from every last Tum is not in a sung bar at all.
NO_SONG_GAP = 1.5

ON_BEAT = "on_beat"
EARLY = "early"
LATE = "late"
NO_SONG = "no_song"


@dataclass(frozen=True)
class Heard:
    """What the microphone heard that a verdict rests on: times on the sample clock (s).

    The host gathers it as the song goes on, :func:`~voicehost.audio.analysis.judge_plays`
    from a whole recording; the judge needs nothing else, so it stays a pure function
    of a play's time and this.
    """

    #: The last Tums located (heard, or a bar's last beat the song went on through).
    last_tums: Sequence[float] = ()
    #: Onsets the detector called slaps: a card slapped on the table.
    slaps: Sequence[float] = ()
    #: When the song stopped.
    stops: Sequence[float] = ()
    #: Voice onsets off the chant's beats: one just before a declaration is most
    #: likely its card (a slap into a singing table does not always sound like one).
    off_grid: Sequence[float] = ()
    #: Cards heard as one sound with a last Tum: that sound's time (``LastTum.card_t``).
    struck: Sequence[float] = ()
    #: When the microphone was masked, ``(start, end)``: the host spoke (half duplex).
    deaf: Sequence[tuple[float, float]] = ()


@dataclass(frozen=True)
class Verdict:
    """``t``: the play's time (the slap's, or the declaration's when none was heard)."""

    t: float
    last_tum: float | None
    offset_ms: float | None
    verdict: str
    declared_t: float = 0.0
    timed_by: str = "declaration"  # or "slap", or "deaf" (see Judge.judge)
    window_ms: float = 120.0
    perceptual_offset_ms: float = PERCEPTUAL_OFFSET_MS

    def as_dict(self) -> dict:
        return {
            "t": round(self.t, 4),
            "declared_t": round(self.declared_t, 4),
            "timed_by": self.timed_by,
            "last_tum": None if self.last_tum is None else round(self.last_tum, 4),
            "offset_ms": None if self.offset_ms is None else round(self.offset_ms, 1),
            "verdict": self.verdict,
            "window_ms": self.window_ms,
            "perceptual_offset_ms": self.perceptual_offset_ms,
        }


class Judge:
    """Pairs plays with last Tums and gives a verdict.

    Parameters
    ----------
    windows
        ``"normal"``, ``"easy"`` or ``"hard"``, or a half-width in ms.
    max_gap
        A play further than this (s) from every last Tum, or made while the
        song has stopped, is ``no_song``. The default is about a bar at the
        slowest tempo the tracker follows: a play belongs to the bar around it.
    """

    def __init__(self, windows: str | float = "normal", max_gap: float = NO_SONG_GAP,
                 perceptual_offset_ms: float = PERCEPTUAL_OFFSET_MS):
        if isinstance(windows, str):
            if windows not in WINDOWS_MS:
                raise ValueError(f"windows must be one of {', '.join(WINDOWS_MS)}")
            self.window_ms = WINDOWS_MS[windows]
        else:
            self.window_ms = float(windows)
        self.max_gap = max_gap
        self.perceptual_offset_ms = perceptual_offset_ms

    def judge(self, play_t: float, heard: Heard) -> Verdict:
        """Verdict for a play declared at ``play_t``, from what was ``heard`` so far.

        The play is timed by the slap nearest the declaration (within
        ``SLAP_SEARCH``); else by an off-grid onset just before it; else by a
        struck last Tum just before it; else by the declaration itself. When
        the microphone was masked in the ``SLAP_SEARCH`` before the
        declaration (the host spoke), the card may have been slapped then,
        unheard: the play is timed where in that masked stretch it would lie
        nearest its last Tum (``timed_by="deaf"``). What the host could not
        hear is not held against the player: declared by a key press 120 ms
        after the card, such plays were judged late, on the card's beat.
        """
        t, by = play_t, "declaration"
        near = [s for s in heard.slaps if abs(s - play_t) <= SLAP_SEARCH]
        if near:
            t, by = min(near, key=lambda s: abs(s - play_t)), "slap"
        else:
            before = [s for s in heard.off_grid if 0.0 <= play_t - s <= SLAP_SEARCH]
            if not before:
                before = [s for s in heard.struck if 0.0 <= play_t - s <= SLAP_SEARCH]
            if before:
                t, by = max(before), "slap"
        shift = self.perceptual_offset_ms / 1000.0
        cands = [lt for lt in heard.last_tums if abs(lt + shift - t) <= self.max_gap]
        common = dict(declared_t=play_t, timed_by=by, window_ms=self.window_ms,
                      perceptual_offset_ms=self.perceptual_offset_ms)
        if not cands:
            return Verdict(t, None, None, NO_SONG, **common)
        lt = min(cands, key=lambda x: abs(x + shift - t))
        masked = _within(heard.deaf, play_t - SLAP_SEARCH, play_t) if by == "declaration" else []
        if masked:
            t = min((min(max(lt + shift, a), b) for a, b in masked), key=lambda x: abs(x - lt - shift))
            common["timed_by"] = "deaf"
        # A stop between the last Tum and the play: the song was no longer going.
        if (any(min(lt, t) < s <= max(lt, t) for s in heard.stops)
                and abs(t - lt) * 1000 > self.window_ms):
            return Verdict(t, None, None, NO_SONG, **common)
        off = (t - (lt + shift)) * 1000.0
        if abs(off) <= self.window_ms:
            v = ON_BEAT
        else:
            v = EARLY if off < 0 else LATE
        return Verdict(t, lt, off, v, **common)


def _within(spans: Sequence[tuple[float, float]], lo: float, hi: float) -> list[tuple[float, float]]:
    """The parts of ``spans`` inside ``[lo, hi]``."""
    return [(max(a, lo), min(b, hi)) for a, b in spans if a < hi and b > lo]
