"""Follow the table's chant: beat period and phase, bars, and where the last Tum falls.

The song is a bar of ``1 + tums`` beats: "Drak-kar" takes one beat with two
syllables (the second on the half beat), then one beat per Tum. Reversed
(after Whirlpool Island), the Tums come first and "Drak-kar" ends the bar,
and the play falls on "Drak". The double onset is the landmark: it is the
only beat with an onset on its half beat, so it tells where the bar is
without any knowledge of the game beyond the expected song.

The tracker is online (madmom style, state in the object): it is fed onsets
as the detector decides them, plus the current sample-clock time so it can
notice silence, and returns events as soon as they can be known. Its
answers depend only on the onsets and on when the detector decided them,
never on how often it is called: each window closes at its own deadline on
the sample clock, interleaved in time order with the onsets, ``LATENCY``
after the fact so the onsets of that window have been handed out (see
:meth:`ChantTracker.process`). So a file cut into any block size, a sound
card and the host's tick all give the same bars.


* a beat *slot* is expected at ``next_beat``; an onset within a tolerance
  is that beat, and its time corrects phase and period (a simple
  phase-locked loop);
* a slot is closed once its half-beat window has passed: it was a *double*
  ("Drak-kar"), a *single* (a Tum) or *empty* (the half beat is counted from
  the beat heard or from the beat predicted, whichever puts an onset on it);
* the position in the bar says which slot is the last Tum, so
  :class:`LastTum` is reported the moment its onset is heard, and
  :class:`LastTumPredicted` as soon as the bar starts;
* a beat heard only as a slap (a card slapped just before the Tum hid the
  syllable) is placed halfway between the slap and the beat predicted: the
  slap is a player's timing, not the table's, and taken as the Tum it
  judged its own play at 0 ms (measured on 46 such Tums of the committed
  and held-out chants: error beyond 30 ms in 10 of them as the slap, 1 halfway);
  so is a slap heard inside a "syllable" stamped well before the beat
  predicted: in chatter, a card's rise stamped back on the chatter before it
  (``CHATTER_BEFORE``); and so is a last Tum heard as one sound with a card
  slapped with it (:attr:`LastTum.struck`, no slap heard apart) before the
  beat predicted: the card came first and the sound is the card's (its time
  is :attr:`LastTum.card_t`);
* a double in the wrong place means the table sang a different song
  (:class:`WrongSong`, with the number of Tums heard), if its "kar" is
  plainly sung (near the half beat, not faint): chatter is not. Once two
  doubles in a row fell where the bars put them, it is believed only when
  the table sings that song again (a bar later), unless it is the song the
  game told before the last change. Before the lock is confirmed it is one
  "Drak-kar" against the lock's own, which may have rested on chatter: the
  plainer "kar" places the bars (those laid a beat off are forgotten), and
  the song stays the one expected: the weaker is chatter, unless a
  "Drak-kar" comes a bar after it;
* no onset where one was due for 1.5 beats means the song stopped
  (:class:`SongStopped`); but not while the tracker was deaf (``deaf``: the
  host speaking, half duplex, its onsets masked): a song followed (its lock
  confirmed) goes on at its tempo through the beats it could not hear, its
  last Tums where the beats fall (:meth:`ChantTracker._deafened`), and the
  1.5 beats count from the last beat it could hear;
* a tempo more than 8 % off the one the lock was confirmed at means the
  table drifted (:class:`TempoChanged`; see :meth:`ChantTracker._check_tempo`);
* a one-Tum song ("Drak, kar, Tum" and a rest, on half beats) followed at
  twice its tempo, chatter in its rest, hears nothing on the rest twice
  running and no "Drak-kar" of its own: it is followed at its own tempo from
  the table's next beat (:meth:`ChantTracker._rest_heard_as_a_beat`);
* a room's echo swallows the "kar": the detector hands on faint rises
  (``FAINT`` onsets, under its threshold) for the tracker alone. One is
  never a beat; it may be the "kar" of a beat where a bar begins, when it
  rises twice as high as anything on the other half beats of the last bar
  (chatter rises there too); a lock may rest on one only once eight
  onsets passed with none (held-out chants in a room with pink or white
  noise: no lock at all before, measured in :meth:`ChantTracker._faint_stands_out`);
* following the song heard (offline analysis), doubles keeping an equal
  gap other than the bar followed say which song is sung, even when each
  falls where a bar of the followed song begins (three Tums heard as one).

Acquisition needs three beats a period apart with an onset on the half beat
of one of them ("Drak, kar, Tum, Tum" or "Tum, Drak, kar, Tum"), or "Drak,
kar", a beat unheard and two beats, so the tracker locks during the first
warm-up bar. An onset among them that the pattern does not explain keeps it
off (a pattern at twice the table's period skips real beats), unless it is
weak, or near one of its beats (chatter just before the table's
syllable; such a lock is confirmed with one stray onset fewer until it kept
time for two bars). A "kar" sung early in its beat
(a quarter to 0.4 of it: "Drakkar" said quickly at a slow tempo) locks once
the table sang it so on two "Drak"s, and the half-beat window then follows
where this table sings its "kar"s. The lock is provisional until
the rhythm is confirmed (four beats within 12 % of a period of their
prediction, a period of 0.4 s above 150 BPM, a second "Drak-kar" one bar
later, at most one stray onset or beat with nothing heard on it, a
"Drak-kar" right after another counting as a stray onset):
people talking are full of syllables and some always fit a grid, but they
do not keep time and repeat a bar. Events of a provisional lock are held
back and released at once on confirmation (the table sings two warm-up
bars, so nothing is lost); a lock that is not confirmed leaves no trace,
but for a song the game told meanwhile: that one is sung from the first bar
begun after it was told.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field, replace
from statistics import median, median_high
from typing import Callable, Iterable, Protocol, Sequence

from voicehost.audio.onsets import FAINT, SLAP, Onset

MIN_BPM = 50.0
MAX_BPM = 200.0
MAX_TUMS = 3
#: The shortest beat (s: 150 BPM) that a lock's tolerances shrink with (see
#: :func:`_tol_beat`).
TOL_BEAT = 0.4
#: How long (s) after an onset the tracker waits for the detector to hand it out
#: before it closes the window the onset falls in. The detector decides most
#: onsets 50 to 90 ms after they begin (a few up to 160 ms in noise); an onset
#: decided later than this is used from ``detected_t - LATENCY`` on.
LATENCY = 0.1
#: A syllable after a slap takes the beat from it unless the slap was this much
#: closer to the predicted beat (s): the prediction wanders by tens of ms.
SLAP_ON_BEAT = 0.03
#: Where a "kar" that changes the song may fall: this share of a beat either side
#: of where the table's own "kar"s fall (half a beat until any is heard) ...
KAR_AT = 0.11
#: ... and how strong it must be, times the recent "kar"s (see ChantTracker._plain_kar).
KAR_STRENGTH = 0.5
#: A syllable with a slap heard inside it this soon after its start (s) is no sure
#: beat: of 90 such onsets on the 16 cached chant sets, 68 lay 25 ms or more from
#: any syllable sung; many were a slap's own rise, stamped early on chatter before
#: it (real voices seed 1, chant 5: a card slapped 80 ms before the last Tum, heard
#: as a syllable 28 ms before its click, took that Tum 108 ms early from the sung
#: one, heard 10 ms after the beat predicted).
CLICKED_WITHIN = 0.05
#: A slap heard inside a syllable takes the beat from it (placed halfway to the
#: beat predicted, as any slap that hid its syllable) when the syllable began at
#: least ``CHATTER_BEFORE`` (s) before the beat predicted and the slap lies
#: ``NEARER_BY`` (s) nearer to it: in chatter the detector decided such a
#: "syllable" on the slap's rise and stamped it back on the chatter before it
#: (held-out seeds 1 to 8 in babble: last Tums 53 to 142 ms early).
CHATTER_BEFORE = 0.04
NEARER_BY = 0.02
#: A beat is reported this share of the way from the syllable heard to the beat
#: predicted from the beats before it. Each is off on its own: the stamp is late
#: where loud hiss hides a "T" (stamped on its vowel) and early where chatter
#: just before a syllable starts its sound; the prediction carries the table's
#: own unevenness. Their errors partly cancel. Over the 13 benchmark sets, last
#: Tums more than 30 ms off 116 -> 101, 95th percentile 43.5 -> 42.3 ms, median
#: 8.6 -> 9.1 ms, plays judged right 312 / 294 -> 317 / 293 (normal / hard);
#: sixteen unseen sets and the echoing rooms gained alike (0.33 or 0.5: about
#: as good, the median worse). The tracker times its own windows by the
#: syllable heard (``_Slot.heard``), so no lock, bar or song changes.
PREDICTED_SHARE = 0.25
#: A last Tum heard this many times as strong as the table's beats lately holds a
#: card slapped with it (within the 50 ms the detector hears as one onset).
STRUCK = 1.5
#: ... or, where its click can be compared, one whose click (:attr:`Onset.click`) is
#: this many dB sharper than the median of the same syllable's lately (at least
#: ``CLICK_BEATS`` of them heard, the lock's own beats included): a card is a
#: click, a sung "T" a breath. ``STRUCK`` is left for onsets with no click.
CLICKED_DB = 4.0
CLICK_BEATS = 1
#: An early "kar" (under 0.4 of a beat) locks once sung again this close (share of a beat).
EARLY_AGAIN = 0.08
#: Three "Drak-kar"s in a row with their half beats this near the middle of the beat
#: (share of a beat) say the lock is at twice the table's period.
TWICE_AT = 0.06
#: Beats in time, with at most one stray onset, that confirm a lock whose "kar"s
#: went unheard after its own (two bars of the longest song: chatter keeps no time
#: that long).
KEPT_TIME = 8
#: Beats in time after which a provisional lock may have heard more stray onsets
#: than one: one in ``STRAY_EVERY`` (three bars of the longest song).
LONG_TIME = 12
STRAY_EVERY = 4
#: A provisional lock's beats keep a steady tempo when they lie this close to one
#: (root mean square, share of a period of 0.4 s or more; see ChantTracker._unsteady).
STEADY = 0.05
#: Onsets this near one of a pattern's beats (share of a beat, and seconds) may be
#: let pass as chatter when a lock is sought (see ChantTracker._pattern).
NEAR_BEAT = 0.25
NEAR_BEAT_S = 0.15
#: Half beats in a one-Tum bar: "Drak", "kar", Tum and a rest (see
#: ChantTracker._rest_heard_as_a_beat).
REST_CYCLE = 4
#: Beats a stop leaves unheard: the one after the last heard, and the next, whose
#: window closes 1.5 beats after it (see ChantTracker._stopped_short).
STOP_UNHEARD = 2
#: Beats heard since the tempo was last set that tell the tempo now (:meth:`ChantTracker._tempo_now`),
#: and the least of them that does.
TEMPO_BEATS = 12
TEMPO_FIT = 8
#: Beats heard through which the song goes on under the host's voice
#: (:meth:`ChantTracker._coast_from_the_beats`).
COAST_BEATS = 8
#: A lock found in the recent onsets: (its rank, the three beats, which of them is
#: the "Drak-kar", its "kar", the period).
_Pattern = tuple[tuple[int, int, bool, float], list[Onset], int, Onset, float]
#: A faint "kar" counts when it rises this many times higher than anything on the
#: half beats where none is sung (see ChantTracker._faint_stands_out).
FAINT_OVER = 2.0


# -- events ------------------------------------------------------------------
@dataclass(frozen=True)
class BarStart:
    t: float
    index: int
    tums: int = 3
    reversed: bool = False


@dataclass(frozen=True)
class Beat:
    t: float
    bar: int
    index: int
    heard: bool = True


@dataclass(frozen=True)
class LastTumPredicted:
    t: float
    bar: int = -1


@dataclass(frozen=True)
class LastTum:
    """The last Tum of a bar (in a reversed song, the "Drak" that ends it), as heard.

    ``t`` is the syllable heard, ``PREDICTED_SHARE`` of the way to
    ``predicted_t``, the beat the tracker predicted from the beats before it.
    """

    t: float
    predicted_t: float
    bar: int = -1
    #: A card slapped with it, heard as one sound with the Tum: its click far
    #: sharper than the table's Tums lately (see ``CLICKED_DB``). Heard before
    #: the beat predicted, the sound is the card's, and ``t`` lies halfway to
    #: the beat predicted, as for a slap that hid its syllable.
    struck: bool = False
    #: When struck: the sound heard, the card's time (it times the play).
    card_t: float | None = None


@dataclass(frozen=True)
class SongStopped:
    t: float


@dataclass(frozen=True)
class TempoChanged:
    t: float
    old_bpm: float
    new_bpm: float


@dataclass(frozen=True)
class WrongSong:
    t: float
    expected_tums: int
    heard_tums: int


Event = BarStart | Beat | LastTumPredicted | LastTum | SongStopped | TempoChanged | WrongSong


class Deafness(Protocol):
    """The stretches of the sample clock when the onsets were masked (:class:`~voicehost.audio.mute.MuteWindows`)."""

    def overlaps(self, start: float, end: float) -> bool: ...


@dataclass
class Bar:
    """One bar as heard (for offline analysis and plots)."""

    index: int
    start: float
    tums: int
    reversed: bool
    beats: list[float] = field(default_factory=list)
    last_tum: float | None = None
    expected_tums: int = 3


@dataclass
class _Probe:
    """What was heard since beats went on unheard (see :meth:`ChantTracker._heard_again`)."""

    strays_before: int  # the tracker's count of stray onsets when the voice ended
    beats_left: int  # beats after the voice still to be watched
    in_time: int = 0  # beats heard in time since
    first_beat: float | None = None  # the first beat due after the voice


@dataclass
class _Slot:
    b: float  # predicted time of the beat
    period: float
    onset: Onset | None = None
    half: Onset | None = None
    pos: int = 0
    clicked: bool = False  # a slap was heard inside its onset's sound, right after it
    card: bool = False  # its onset, a last Tum, holds a card slapped with it (LastTum.struck)
    slap_heard: bool = False  # a slap was heard apart within its window
    deaf: bool = False  # due while the tracker was deaf, nothing heard (see ChantTracker._deafened)

    @property
    def heard(self) -> float:
        """The beat as heard, by which the tracker times its own windows; a slap that
        hid its syllable, or a last Tum with a card in it, halfway to the beat predicted."""
        if self.onset is None:
            return self.b
        if self.onset.kind == SLAP or self.card:
            return 0.5 * (self.onset.t + self.b)
        return self.onset.t

    @property
    def t(self) -> float:
        """The beat as reported: a syllable heard, ``PREDICTED_SHARE`` of the way to the
        beat predicted (a slap or a card in it: as :attr:`heard`)."""
        if self.onset is None or self.onset.kind == SLAP or self.card:
            return self.heard
        return self.onset.t + PREDICTED_SHARE * (self.b - self.onset.t)

    @property
    def half_at(self) -> float:
        """Where its half-beat onset (the "kar") fell after its onset, as a share of the beat."""
        assert self.onset is not None and self.half is not None
        return (self.half.t - self.onset.t) / self.period


class ChantTracker:
    """Online chant tracker (see module docstring).

    Parameters
    ----------
    tums
        Tums the game expects in each bar (1 to 3).
    reversed
        True after Whirlpool Island: "Tum Tum Tum Drak-kar".
    follow
        Adopt the song the table actually sings after a :class:`WrongSong`
        (offline analysis of a recording whose song changes). The live host
        leaves it off and tells the tracker the song with :meth:`set_song`.
    deaf
        When the onsets were masked (the host's own voice; the detector's
        ``mute``): a beat unheard then is not the table stopping.
    """

    def __init__(self, tums: int = 3, reversed: bool = False, follow: bool = False,
                 phase_gain: float = 0.5, period_gain: float = 0.12,
                 tempo_change: float = 0.08, stop_beats: float = 1.5,
                 latency: float = LATENCY, deaf: Deafness | None = None):
        _check_tums(tums)
        self.deaf = deaf
        self.tums = tums
        self.reversed = reversed
        self.follow = follow
        self.phase_gain = phase_gain
        self.period_gain = period_gain
        self.tempo_change = tempo_change
        self.stop_beats = stop_beats
        self.latency = latency
        #: Onsets handed in but not yet usable (see :meth:`process`).
        self._pending: list[Onset] = []
        self.confirm_beats = 4  # beats in time after a lock before its events go out
        # A "kar" is at least this share of a typical beat's strength. Right
        # after a lock "typical" is mostly the loud "Drak"s; sung "kar"s
        # measured 0.33 and 0.34 of it in a recorded game, and at 0.35 the
        # short warm-up after a stop was never confirmed.
        self.half_ratio = 0.25
        # A beat is at least this share of a typical beat's strength (sung
        # beats measured on every fixture: 0.36 and up; the room's faint
        # sounds after a song ends: 0.03).
        self.beat_ratio = 0.12
        self._pending_song: tuple[int, bool] | None = None
        self._told = (tums, reversed)  # the song the game last told
        self._told_before: tuple[int, bool] | None = None  # ... and the one before it
        self._told_since_lock = False  # the game told a song since the last lock was made
        self._horizon = -math.inf  # how far the clock has been followed (see process)
        self._told_t = -math.inf  # ... when the game last told a song
        #: The pending song is for bars begun from then on (after a dropped lock).
        self._pending_from = -math.inf
        self.bars: list[Bar] = []
        self.events: list[Event] = []
        #: Times of the onsets taken as beats or half beats (the rest are off the grid).
        self.on_grid: set[float] = set()
        self._bar_count = 0
        self._unlock()

    # -- public API --------------------------------------------------------------
    @property
    def locked(self) -> bool:
        return self._period is not None

    @property
    def bpm(self) -> float | None:
        return 60.0 / self._period if self._period else None

    def set_song(self, tums: int, reversed: bool = False) -> None:
        """The song the game expects from the next bar on (call after each play)."""
        _check_tums(tums)
        self._pending_song = (tums, reversed)
        self._pending_from = -math.inf
        self._told_since_lock = True
        self._told_t = self._horizon
        if (tums, reversed) != self._told:
            self._told_before = self._told
        self._told = (tums, reversed)
        if not self.locked:
            self._apply_song()

    @property
    def following(self) -> bool:
        """Whether a song is followed: a lock confirmed (its events go out)."""
        return self._period is not None and self._confirmed

    @property
    def unsure(self) -> bool:
        """Whether the song goes on from beats it could not hear, not yet heard in time again.

        While the host speaks over the song and for a bar after (see
        :meth:`_heard_again`): its last Tums are where the table should be, not
        where it was heard.
        """
        return self._probe is not None

    def expect_stop(self, t: float) -> None:
        """The game stopped the song at ``t`` (a mistake, an island): the table stops singing.

        The beats due after ``t`` while the tracker is deaf are then not sung
        on unheard (:meth:`_deafened`): the host's "Stop!" or "Land ho!"
        masks the table falling silent, and bars gone on under it were
        counted as warm-up songs the table never sang, a play judged on them.
        The next song is followed as ever, from its own lock; a table that
        sings on, a bar and more after ``t``, is sung under again.
        """
        self._stop_from = min(self._stop_from, t)

    def process(self, onsets: Sequence[Onset], now_t: float) -> list[Event]:
        """Feed the onsets decided since the last call; ``now_t`` is the sample clock now.

        The answers do not depend on how often this is called (a sound card's
        block size, a host's tick): every decision belongs to a moment of the
        sample clock, either an onset becoming usable or a window's deadline,
        and those moments are handled in their own time order up to the
        horizon ``now_t - latency``. ``now_t`` only says how far that horizon
        has come; it is never the time of a decision. An onset is usable from
        ``max(t, detected_t - latency)``: by then, ``latency`` later on the
        clock, the detector has handed it out, so a live run (which cannot
        use an onset before ``detected_t``) and an offline one agree.
        Onsets must be passed at the first call whose ``now_t`` reaches their
        ``detected_t`` (or later in one batch, before ``now_t`` moves past
        it); an onset passed later still counts, from the horizon on.
        """
        for o in onsets:
            self._pending.append(o)
        self._pending.sort(key=lambda o: (self._usable_at(o), o.t))
        horizon = now_t - self.latency
        self._horizon = max(self._horizon, horizon)
        out: list[Event] = []
        while True:
            deadline = self._next_deadline()
            nxt = self._pending[0] if self._pending else None
            due = nxt is not None and self._usable_at(nxt) <= horizon
            was = self._confirmed
            step: list[Event] = []
            if due and (deadline is None or self._usable_at(nxt) <= deadline):
                # On a tie the onset comes first: a window includes its edge.
                self._pending.pop(0)
                self._onset(nxt, step)
            elif deadline is not None and deadline < horizon:
                self._deadline(deadline, step)
            else:
                break
            out += self._gate(step, was)
        self.events.extend(out)
        return out

    def _usable_at(self, o: Onset) -> float:
        """When an onset may be used: its time, or later if the detector took long to decide it."""
        return max(o.t, (o.detected_t or o.t) - self.latency)

    def _gate(self, step: list[Event], was_confirmed: bool) -> list[Event]:
        """Hold a new lock's events until the rhythm is confirmed.

        Chatter is full of syllables, and at five a second some of them fall
        on any grid one cares to draw. A chant is different: its beats keep
        time closely and little is heard between them. So after a lock the
        events wait until ``confirm_beats`` beats came within 12 % of a period
        (of 0.4 s or more: :func:`_tol_beat`) of their prediction and a second
        "Drak-kar" came where the song has it, with at most one stray onset or
        beat unheard (:meth:`_out_of_place`;
        a "Drak-kar" right after another is a stray onset: :meth:`_two_in_a_row`;
        more once it kept time for long: :meth:`_strays_allowed`; one more
        if its beats keep no steady tempo: :meth:`_unsteady`); two more
        stray onsets first, or a stop, and the lock is dropped as if it never
        happened (unless it stopped a beat short: :meth:`_stopped_short`).
        Chatter can bury every "kar" after the lock's own (:meth:`_kept_time`).
        """
        # A stop is reported only for a confirmed lock: one kept as it stopped
        # (_stopped_short) has unlocked already, and its step goes out whole.
        if was_confirmed or any(isinstance(e, SongStopped) for e in step):
            return step
        if self._period is None:  # never locked, or a provisional lock was dropped
            return []
        if self._doubtful():
            self._reject()
            return []
        self._held += step
        heard = self._tight >= self.confirm_beats and self._bar_seen() or self._kept_time()
        if heard and self._out_of_place() <= self._strays_allowed():
            self._confirmed = True
            self._set_tempo_reference()
            released, self._held = self._held, []
            return released
        return []

    def _doubtful(self) -> bool:
        """Whether a provisional lock is dropped.

        Two stray onsets more than :meth:`_strays_allowed` (three at first),
        a lock at twice the table's period, or a tempo that wandered; also
        what keeps a lock that stops a beat short from being kept.
        """
        return (self._offgrid >= self._strays_allowed() + 2 or self._twice_the_period()
                or self._wandered())

    def _out_of_place(self) -> int:
        """Beats of a provisional lock that were not what a song puts there: strays and unheard.

        Talk keeps no time, so a grid laid on it has syllables off its beats
        and beats with no syllable on them; a chant has neither, but for a
        beat lost in the noise now and then. Counting the stray onsets alone,
        real spoken digits (``python -m bench onsets --talk``, seeds 100, 300,
        500 and 700: 48 sequences) gave 94 false bars: 17 of the 27 locks
        confirmed there had a beat unheard, against 12 of the 188 confirmed
        on the held-out, real-voice and room chants. Counted together: 49
        false bars. A lock whose "Drak-kar" came three times a bar apart
        may have one beat unheard more: a one-Tum song at 149 BPM in
        chatter (held-out seed 1, chant 4) had a stray onset and one Tum
        lost, and was not followed at all. Measured on the 16 cached
        chant sets: three chants change, 5 last Tums lost (the first bars
        of a chant at 150 BPM whose first "Drak" went unheard, and a room
        in babble at 10 dB, followed again since a lock may rest on a beat
        unheard: see :meth:`_acquire`), 1 found, 2 misplaced ones gone.

        A lock found by letting chatter near its beats pass (see
        :meth:`_pattern`) counts one more until it kept time for
        ``KEPT_TIME`` beats: counted as nothing, it confirmed locks on talk
        (false bars 29 -> 48 over seeds 100 to 700); counted for good, it
        lost a babble chant whose lock kept time for ten beats.
        """
        d, bar = self._doubles, self._lock_tums + 1
        sung_thrice = len(d) >= 3 and d[-1] - d[-2] == bar and d[-2] - d[-3] == bar
        crowded = self._lock_crowded and self._tight < KEPT_TIME
        n = self._offgrid + max(0, self._unheard - sung_thrice) + crowded
        return n + (n > 0 and self._unsteady())

    def _strays_allowed(self) -> int:
        """Stray onsets a provisional lock may have heard and still be confirmed.

        One; and once ``LONG_TIME`` beats kept time, one in ``STRAY_EVERY``.
        In babble at 10 dB a three-Tum song kept time for fourteen beats,
        its "Drak-kar"s a bar apart from the second on, with three syllables
        of chatter among them, and was dropped (held-out seed 8, chant 1: 0
        of 5 last Tums; 4 now). People talking do not keep time that long:
        no bar more on 48 sequences of fifty real spoken digits.
        """
        return 1 if self._tight < LONG_TIME else max(1, self._tight // STRAY_EVERY)

    def _twice_the_period(self) -> bool:
        """Whether the last three beats were all "Drak-kar"s, each half beat right in the middle.

        A lock at twice the table's period takes every other beat for a beat
        and the ones between for "kar"s: a room's echo swallowed a bar's "kar"
        and first Tum, and "Drak, Tum, Tum, Drak" locked as "Tum, Drak-kar,
        Tum" (held-out seed 3 in a room, chant 10: a wrong song announced at
        every bar, its 4 last Tums put on the wrong beat). No song has two
        "Drak-kar"s in a row; at twice the period every beat is one, its
        half beat a sung beat, in the middle of it to within the singers'
        jitter. Chatter on the half beats of a right lock falls anywhere in
        the window (0.42 to 0.74 of a beat in the babble that made three in
        a row).
        """
        d = self._doubles
        return (len(d) >= 3 and d[-1] - d[-3] == 2
                and all(abs(at - 0.5) <= TWICE_AT for at in self._double_at[-3:]))

    def _wandered(self) -> bool:
        """Whether the tempo moved by more than ``tempo_change`` before the lock was confirmed.

        A share of the slowest period heard, of 0.4 s or more (:func:`_tol_beat`).

        A table keeps its tempo from the first bar; words said one after
        another do not, and the phase-locked loop follows them from word to
        word. Real spoken digits (twelve sequences of fifty from the Free
        Spoken Digit Dataset, about four and a half minutes) were confirmed
        as songs whose tempo wandered more than 8 % within their first bars (up to
        28 %: 109 to 140 BPM in five bars): 42 bars over the three songs.
        Dropping such a lock leaves 33, and changed no bar of the chants
        measured (twelve sets, and the early-"kar" chants); at 6 % it lost a
        bar and misplaced three.
        """
        lo, hi = self._periods
        return hi - lo > self.tempo_change * _tol_beat(lo)

    def _kept_time(self) -> bool:
        """Whether ``KEPT_TIME`` beats came in time and no "Drak-kar" since the lock disagrees.

        In babble a "kar" often rises no higher than the chatter's syllables
        on the other half beats, so no second "Drak-kar" is heard for bars:
        held-out seed 4, chant 0 (babble at 10 dB, three Tums) kept time for
        eleven beats after its lock, one stray onset among them, and was
        never followed. Eight beats in time are the table's; the bars stay
        where the lock's own "Drak-kar" put them, unless a "Drak-kar" heard
        since falls where the song has none (a lock on chatter's "kar").
        A faint rise alone does not place them: as faint a rise of chatter on
        another half beat would place them as well.
        """
        d = self._doubles
        bar = self._lock_tums + 1
        return (self._tight >= KEPT_TIME and self._kar_sung
                and all((b - a) % bar == 0 for a, b in zip(d, d[1:])))

    def _stopped_short(self) -> bool:
        """Whether a song that stopped before its lock was confirmed was the table's all the same.

        A short song stops a beat short of the four beats that confirm a
        lock: a table that stops for a play after a few bars, a recording
        that ends. One "Tum" sung at 119 BPM in white noise (real voices,
        seed 1, chant 3) locked late, on a Tum heard as a slap and its vowel
        heard apart; then three beats came in time, with "Drak-kar"s a bar
        apart, and the song ended: none of its five bars was followed. Such
        a lock is kept when it heard what confirms one, a beat less and with
        no stray onset at all: with one allowed, real spoken digits said one
        after another gave three more bars of a one-Tum song in twelve
        sequences of fifty (28 before, from locks confirmed as usual). Nor
        is a lock resting on a beat unheard (see :meth:`_acquire`) kept so:
        one on talk, made as the recording ended, was. Nor one that heard
        no onset on a beat before the two the stop leaves unheard: a lock at
        twice the table's period (two Tums at 70 BPM in babble, unseen
        held-out seed 14, chant 3, once chatter before a beat no longer kept
        a lock off: see :meth:`_pattern`) took the table's syllables for beats and
        left every Tum's half beat unheard, six beats, for ten seconds
        unconfirmed, and was kept when the song stopped: four last Tums
        misplaced, none found.
        """
        return (self._tight >= self.confirm_beats - 1 and self._offgrid == 0
                and not self._lock_unheard and self._unheard <= STOP_UNHEARD
                and self._bar_seen() and not self._doubtful() and not self._unsteady())

    def _unsteady(self) -> bool:
        """Whether a provisional lock's beats keep no steady tempo: then a stray onset counts one more.

        The phase-locked loop follows each beat, so a grid laid on talk
        keeps within its windows a while; but a table sings at one tempo
        from the first bar, and its beats lie on a straight line in time,
        while words said one after another scatter about it. Measured at
        the moment a lock is confirmed (all its beats fitted to one tempo,
        root mean square of what is left, share of a period): 166 locks on
        the 13 chant sets of the benchmark, median 0.017, 95th percentile
        0.044; 16 locks on real spoken digits, from 0.026 to 0.087, median
        0.045. Chatter moves a chant's stamps as much (babble at 10 dB:
        0.055 to 0.072), so this alone does not tell them apart: it is
        asked only of a lock with a stray onset or a beat unheard, and of
        one kept as it stopped short, both weaker evidence already. With the
        detector's energy floor relative to the chant: false bars on 96
        sequences of real spoken digits 94 -> 66; plays judged right on the
        13 chant sets unchanged, on six unseen sets one fewer of 160. Asked
        of every lock, it cost 3 of those 160, and 6 of 352 on the 13 sets
        with the floor fixed.
        """
        fit = self._beat_line(self._beat_times)
        return fit is not None and fit[1] > STEADY * _tol_beat(fit[0])

    def _beat_indices(self, t: Sequence[float]) -> list[int]:
        """Which beat each of the beats heard at ``t`` is, counted from the first (a beat unheard between skips one)."""
        assert self._period is not None
        idx = [0]
        for a, b in zip(t, t[1:]):
            idx.append(idx[-1] + max(1, round((b - a) / self._period)))
        return idx

    def _beat_line(self, t: Sequence[float]) -> tuple[float, float, float] | None:
        """The straight line through the beats heard at ``t``: its period, the rms left
        about it, and where it puts the last of them (s)."""
        if len(t) < 3 or self._period is None:
            return None
        idx = self._beat_indices(t)
        n = len(t)
        mi, mt = sum(idx) / n, sum(t) / n
        sxx = sum((i - mi) ** 2 for i in idx)
        slope = sum((i - mi) * (x - mt) for i, x in zip(idx, t)) / sxx
        res = [x - mt - slope * (i - mi) for i, x in zip(idx, t)]
        return slope, math.sqrt(sum(r * r for r in res) / n), mt + slope * (idx[-1] - mi)

    def _bar_seen(self) -> bool:
        """Two "Drak-kar"s whole bars of the expected song apart, or one same bar twice.

        Whole bars, not only one: a "kar" the detector missed (a sub-frame
        shift of the audio is enough) left a warm-up of two bars and a play
        unconfirmed, and the play was refused as if sung in the warm-up.

        Nor only the last two: the lock's own "Drak-kar" and any since, whole
        bars after it. Chatter on the half beat after a Tum makes a "Drak-kar"
        where the song has none (it counts as a stray onset already, see
        :meth:`_two_in_a_row`), and it hid the one sung a bar after the lock:
        real voices in babble at 15 dB (seed 4, chant 6) were heard singing
        "Drak-kar" on slots 1, 4, 5 and 7 of a two-Tum song, and the lock
        was dropped with its first bar. Measured with :meth:`_unsteady`: the
        13 chant sets of the benchmark, plays right 303 -> 305 of 352, last
        Tums 771 -> 776; six unseen sets, 144 -> 145 of 160; false bars on
        96 sequences of real spoken digits 66 -> 88.
        """
        d = self._doubles
        bar = self._lock_tums + 1
        gaps = [b - a for a, b in zip(d, d[1:])]
        if gaps and gaps[-1] % bar == 0:
            return True
        if len(gaps) >= 2 and gaps[-1] == gaps[-2] and 2 <= gaps[-1] <= MAX_TUMS + 1:
            return True
        return any((x - d[0]) % bar == 0 for x in d[1:])

    def _reject(self) -> None:
        """Drop a provisional lock, and look again at what it was built on.

        The lock may have been a stray sound or two before the song (a cough,
        the room coming in) that happened to fit the song's first syllables.
        Its first onset is the likeliest culprit, so the onsets heard since,
        all but that one, are handed in again: the song's first bar is found
        from them as if the stray sound had never been, rather than bars
        later from onsets still to come. Each rejection drops at least one
        onset, so this ends.
        """
        n_bars, n_count, added, song = self._lock_state
        del self.bars[n_bars:]
        self._bar_count = n_count
        self.on_grid -= added
        self.tums, self.reversed = song  # a song "followed" on a false lock was never sung
        if self._told_since_lock:
            # Nor one the game told while it stood, applied at a bar it laid: that
            # one is sung from the first bar begun after it was told (the onsets
            # handed in again may be older).
            self._pending_song = self._told
            self._pending_from = self._told_t
        first = self._since_lock[0].t if self._since_lock else math.inf
        again = [o for o in self._since_lock if o.t > first]
        self._unlock()
        self._pending = sorted(again + self._pending, key=lambda o: (self._usable_at(o), o.t))

    def finish(self, end_t: float) -> list[Event]:
        """End of the recording: close what can be closed."""
        out = self.process([], end_t + 2.0)
        self._close_bar(final=True)
        return out

    # -- state -------------------------------------------------------------------
    def _unlock(self) -> None:
        self._period: float | None = None
        #: The period tempo changes are measured from (see _tempo_from; set once the lock is confirmed).
        self._ref_period: float | None = None
        #: The least and the most period since a provisional lock (see _wandered; none yet).
        self._periods = (math.inf, math.inf)
        self._recent: list[Onset] = []
        #: A provisional lock's onsets, from its first beat on, in time order.
        self._since_lock: list[Onset] = []
        self._slot: _Slot | None = None  # the slot being filled
        self._closing: list[_Slot] = []  # slots waiting for their half beat
        self._deferred: list[_Slot] = []  # closed slots with no onset, not yet counted
        self._last_heard = -1e9
        self._last_deaf = -1e9  # the last beat due while the tracker was deaf (see _deafened)
        self._stop_from = math.inf  # the game stopped the song then (see expect_stop)
        #: After beats gone on unheard, what was heard since (see _heard_again), and the onsets.
        self._probe: _Probe | None = None
        self._since_deaf: list[Onset] = []
        #: Bars went on unheard since a "Drak-kar" was last heard where they put one.
        self._coasted = False
        self._first_missed: float | None = None  # the first beat with no onset since one was heard
        self._strengths: deque[float] = deque(maxlen=8)
        #: Clicks of the beats heard lately (Onset.click), by syllable: a "Drak" (True) or a Tum.
        self._clicks: deque[tuple[bool, float]] = deque(maxlen=24)
        #: Faint rises on the half beats of the last beats where no "kar" is sung (0: none).
        self._off_half: deque[float] = deque(maxlen=MAX_TUMS)
        # The "kar"s sung where the song has them: (strength, share of a beat after "Drak").
        self._kars: deque[tuple[float, float]] = deque(maxlen=6)
        self._pos = 0
        self._uncertain = False
        self._bar: Bar | None = None
        self._bar_number = -1
        self._prev_double: _Slot | None = None
        self._confirmed = False
        self._held: list[Event] = []
        self._tight = 0  # beats since the lock that came close to their prediction
        self._offgrid = 0  # onsets since the lock that fit no beat and no half beat
        self._doubles: list[int] = []  # slot numbers of the "Drak-kar"s since the lock
        #: Whether each of the last beats of a one-Tum lock was heard (see _rest_heard_as_a_beat).
        self._beats_heard: deque[bool] = deque(maxlen=2 * REST_CYCLE)
        self._double_at: list[float] = []  # ... and where in the beat their half-beat onsets fell
        self._kar_sung = False  # one of them had a sung "kar", not only a faint rise
        #: Slot numbers and times of the last "Drak-kar"s heard where the song has them.
        self._sung_doubles: list[tuple[int, float]] = []
        self._slot_no = 0
        #: Early "kar"s seen before a lock: (its "Drak"'s time, share of a beat).
        self._early_seen: list[tuple[float, float]] = []
        self._last_double_no: int | None = None  # slot number of the last "Drak-kar" taken
        self._phase_heard = 0  # "Drak-kar"s heard where the bars put them, since they last moved
        #: A "Drak-kar" where the song has none, not yet sung again: (slot number,
        #: slots since the "Drak-kar" before it).
        self._suspect: tuple[int, int] | None = None
        self._lock_tums = self.tums if hasattr(self, "tums") else 3
        #: The strength of the "kar" a provisional lock was made on (0: a faint rise,
        #: weaker evidence than any sung "kar").
        self._lock_kar = 0.0
        self._lock_moved = False  # the bars moved once already (see _lock_was_off)
        self._rival: int | None = None  # slot of a "Drak-kar" that lost to the lock's
        self._last_beat: _Slot | None = None  # the last beat a bar took
        self._unheard = 0  # beats since a provisional lock with no onset on them
        self._beat_times: list[float] = []  # a provisional lock's beats, its own first
        #: The beats heard since the tempo reference was set (see _check_tempo).
        self._tempo_beats: deque[float] = deque(maxlen=TEMPO_BEATS)
        self._tempo_off = False  # the tempo now was off the reference at the last beat
        self._lock_unheard = False  # the lock itself rests on a beat unheard (see _acquire)
        self._lock_crowded = False  # ... or let chatter near its beats pass (see _pattern)
        # A provisional lock's undo: bars and bar count before it, the onsets it
        # put on the grid, the song expected when it was made.
        self._lock_state: tuple[int, int, set[float], tuple[int, bool]] | None = None

    def _apply_song(self) -> None:
        if self._pending_song is not None:
            self.tums, self.reversed = self._pending_song
            self._pending_song = None
            self._pending_from = -math.inf
            self._sung_doubles = []
            self._beats_heard.clear()
            # Right after the game changed the song the table may well sing
            # the old one: the first "Drak-kar" that says so is believed.
            self._phase_heard = 0
            self._suspect = None

    def _tol(self, period: float) -> float:
        return max(0.06, 0.2 * period)

    # -- onsets ------------------------------------------------------------------
    def _grid_add(self, t: float) -> None:
        self.on_grid.add(t)
        if not self._confirmed and self._lock_state is not None:
            self._lock_state[2].add(t)

    def _onset(self, o: Onset, out: list[Event]) -> None:
        if self._period is None:
            self._acquire(o, out)
            return
        if o.kind == FAINT:
            # Only ever a "kar" lost under the echo of its "Drak": never a beat.
            for s in self._closing:
                if s.onset is not None and s.half is None and self._on_half_beat(o, s):
                    s.half = o
                    return
            return
        if not self._confirmed:
            self._since_lock.append(o)
        if self._probe is not None:
            self._since_deaf.append(o)
        # Half-beat of a slot waiting to close? A stray weak onset (chatter,
        # a chair) is not the table's "kar".
        typical = self._typical()
        for s in self._closing:
            if (s.onset is not None and (s.half is None or s.half.kind == FAINT) and o.kind != SLAP
                    and self._on_half_beat(o, s)
                    and o.strength >= self.half_ratio * typical):
                s.half = o
                self._grid_add(o.t)
                self._last_heard = o.t
                return
        slot = self._slot
        assert slot is not None
        tol = self._tol(self._period)
        if o.kind == SLAP and abs(o.t - slot.b) <= tol:
            slot.slap_heard = True
        if (o.kind == SLAP and o.inside and slot.onset is not None and slot.onset.kind != SLAP
                and 0 < o.t - slot.onset.t < CLICKED_WITHIN):
            slot.clicked = True  # see _better
        if abs(o.t - slot.b) > tol:
            if o.kind != SLAP:
                self._offgrid += 1
        elif o.strength < self.beat_ratio * typical:
            # Far fainter than the table's beats: the room, a chair. Taken as
            # beats, such sounds kept a song that had ended going, bars that
            # nobody sang, and the next song was heard as a wrong one.
            pass
        else:
            cur = slot.onset
            if cur is None or self._better(o, cur, slot):
                # The best onset of the window (sung, loud and near the
                # predicted beat), not a stray sound that happened to come
                # first; the choice is final when the window closes.
                if cur is not None:
                    self.on_grid.discard(cur.t)
                slot.onset = o
                self._grid_add(o.t)
                self._last_heard = o.t

    def _better(self, o: Onset, cur: Onset, slot: _Slot) -> bool:
        """Whether ``o`` (heard after ``cur``) is the slot's beat rather than ``cur``.

        The beat is the sung syllable; a slap is a play. A card slapped 80 ms
        before the last Tum is far louder than the Tum heard over its tail:
        ranked by strength, it became the last Tum and every play near it
        was judged on the beat. So a syllable after a slap takes the beat
        from it, and a slap heard inside a syllable takes it only from
        chatter stamped well before the beat (CHATTER_BEFORE). A slap
        heard as an onset of its own after a syllable may still be the beat
        (it hid the Tum, and the syllable was a stray sound): strength decides.
        A syllable well after a slap that fell on the predicted beat is the
        Tum's vowel coming out from under the card (60 ms after it, some
        frame alignments hear it apart): the slap keeps the beat. A syllable
        with a slap's click heard right after its start weighs half, as a
        slap does: it was often the slap's own rise, stamped early.
        """
        if cur.kind == SLAP and o.kind != SLAP:
            return abs(o.t - slot.b) < abs(cur.t - slot.b) + SLAP_ON_BEAT
        if o.inside:
            # Inside a syllable stamped well before the beat, and nearer the
            # beat: the syllable was the chatter before the card (see
            # CHATTER_BEFORE). Only once the lock is confirmed: before, the
            # beats it places decide whether there is a song at all.
            early = slot.b - cur.t
            return (self._confirmed and cur.kind != SLAP and early >= CHATTER_BEFORE
                    and early - abs(o.t - slot.b) >= NEARER_BY)
        # A syllable with a slap's click heard right after its start is as
        # doubtful as a slap (see CLICKED_WITHIN).
        return self._score(o, slot) > self._score(cur, slot) * (0.5 if slot.clicked else 1.0)

    def _score(self, o: Onset, slot: _Slot) -> float:
        """How much an onset looks like the beat a slot expects."""
        sigma = 0.12 * slot.period
        closeness = math.exp(-0.5 * ((o.t - slot.b) / sigma) ** 2)
        return max(o.strength, 1e-3) * closeness * (0.5 if o.kind == SLAP else 1.0)

    def _typical(self) -> float:
        """Typical strength of the beats heard lately (0 before any)."""
        if not self._strengths:
            return 0.0
        v = sorted(self._strengths)
        return v[len(v) // 2]

    def _acquire(self, o: Onset, out: list[Event]) -> None:
        """Lock on three beats a period apart with an onset on one half beat.

        The three beats are "Drak, Tum, Tum" (the half beat after the first)
        or "Tum, Drak, Tum" (after the second); onsets in between that fit
        neither are ignored, so one stray onset does not delay the lock.
        Or "Drak-kar", a beat unheard, then two beats, the "kar" sung: in an
        echoing room or in chatter the Tum right after the "kar" is often
        lost under its tail, and the lock waited bars for three beats in a
        row (held-out seed 1 in a room, chant 0: none of 5 last Tums; seed 2
        in a room, chant 4: none). Its unheard beat is out of place
        (:meth:`_out_of_place`), so the lock is confirmed only if all else
        is in place; counted as nothing, it confirmed locks on chatter at
        half or three quarters of the table's period (held-out seeds 1 and
        8 in babble: 12 last Tums misplaced). Measured: people talking gave
        49 -> 54 false bars (``bench onsets --talk``, seeds 100 to 700), the
        16 cached chant sets 12 last Tums more and none misplaced. With the
        unheard beat anywhere in the pattern: 57 false bars, and a committed
        chant lost the one bar it had.

        Chatter said just before the table's "Drak" or "Tum" is let pass
        (see :meth:`_pattern`): it kept every right pattern off in babble.
        """
        self._recent.append(o)
        while self._recent and (sum(x.kind != FAINT for x in self._recent) > 8
                                or self._recent[0].kind == FAINT):
            self._recent.pop(0)  # the last eight onsets, and the faint rises among them
        if o.kind == FAINT:
            return  # a "kar" between beats, never the last beat of the pattern
        r = self._recent
        n = len(r)
        real = sum(x.kind != FAINT for x in r)
        if n < 4:
            return
        best = self._pattern(r, real, self._half_window)
        if real >= 8 and (best is None or best[3].kind == FAINT):
            # A faint rise on the half beat is not this table's "kar" when it
            # sings one, early, on the same "Drak" (see _early_pattern).
            early = self._early_pattern(r, real)
            if early is not None:
                best = early
        if best is not None:
            self._lock(best[1], best[2], best[3], best[4], out)
            self._lock_crowded = best[0][1] > 0

    def _early_pattern(self, r: list[Onset], real: int) -> _Pattern | None:
        """A lock on a "kar" sung early in its beat, once the table sang it so twice.

        "Drak-kar" is one beat of two syllables, but a table saying "Drakkar"
        quickly at a slow tempo puts its "kar" a quarter to 0.4 of a beat in
        (no bar at all was found: the window is 0.4 to 0.75). A "kar" that
        early is also where a stamping error puts a sung one now and then,
        and a lock on that lone early "kar" came a bar sooner with a worse
        period (a play 40 ms early judged on the beat): so an early "kar"
        locks only once eight onsets passed with no lock (or with a lock on
        a faint rise alone) and the table sang it a second time, on another
        "Drak", as far into the beat.
        """
        found = self._pattern(r, real, self._early_window, faint=False)
        if found is None:
            return None
        beats, dbl, half, period = found[1], found[2], found[3], found[4]
        share = (half.t - beats[dbl].t) / period
        seen = [(t, sh) for t, sh in self._early_seen if t != beats[dbl].t]
        if any(abs(sh - share) <= EARLY_AGAIN for _, sh in seen):
            return found
        self._early_seen = (seen + [(beats[dbl].t, share)])[-4:]
        return None

    def _early_window(self, dt: float, period: float) -> bool:
        """Whether ``dt`` after a beat is an early "kar": a quarter beat (and 150 ms) to 0.4 of one."""
        return max(0.25 * period, 0.15) <= dt < 0.4 * period

    def _pattern(self, r: list[Onset], real: int, window: Callable[[float, float], bool],
                 faint: bool = True) -> _Pattern | None:
        """The best lock in ``r``: three beats a period apart, one with a "kar" where ``window`` says.

        ``faint``: a faint rise may be that onset (never an early "kar": the
        "Drak"'s own vowel rises there).
        """
        n = len(r)
        d = r[-1]  # the newest onset is always the last beat of the pattern
        best = None
        for ci, gap in ((ci, gap) for ci in range(n - 2, 0, -1) for gap in (1, 2)):
            c = r[ci]
            if c.kind == FAINT:
                continue
            period = d.t - c.t
            if not (60.0 / MAX_BPM <= period <= 60.0 / MIN_BPM):
                continue
            for ai in range(ci - 1, -1, -1):
                a = r[ai]
                if a.kind == FAINT or abs((c.t - a.t) - gap * period) > 0.2 * period:
                    continue
                p = (d.t - a.t) / (gap + 1)
                unheard = gap > 1  # "Drak-kar", a beat unheard, two beats (see _acquire)
                for lo, hi, dbl in ((ai, ci, ai), (ci, n - 1, ci))[: 1 if unheard else 2]:
                    base = r[dbl].t
                    # A faint "kar" only once eight onsets passed with no lock:
                    # in a room that swallows the "kar"s, not before a sung one.
                    mids = sorted((k for k in range(lo + 1, hi)
                                   if window(r[k].t - base, p)
                                   and (r[k].kind != FAINT or (faint and real >= 8))),
                                  key=lambda k: r[k].kind == FAINT)  # a sung "kar" first
                    if not mids or (unheard and r[mids[0]].kind == FAINT):
                        continue
                    if r[mids[0]].kind == FAINT and not self._faint_stands_out(
                            r, mids[0], [x for x in (ai, ci) if x != dbl], p):
                        continue
                    # Onsets inside the pattern that it does not explain: a
                    # pattern at twice the true period skips real beats.
                    # Weak ones (chatter) may be skipped, at most one. A
                    # late singer of a syllable, heard apart from it (less
                    # than 0.3 of a beat after it), is no skipped beat.
                    used = {ai, ci, n - 1, mids[0]}
                    # An onset it does not explain this strong keeps it off.
                    strong = 0.5 * min(r[k].strength for k in used if r[k].kind != FAINT)
                    others = [r[k] for k in range(ai + 1, n - 1) if k not in used
                              and r[k].kind != FAINT
                              and not any(0 < r[k].t - r[u].t < 0.3 * p for u in used)]
                    passed = 0
                    if len(others) > 1 or any(x.strength >= strong for x in others):
                        # Those skipped beats fall on its half beats. An onset
                        # within a quarter beat (and 150 ms) of one of its beats
                        # is no such beat: in chatter, a syllable said just
                        # before the table's "Drak" or "Tum" (those just after
                        # one it heard are left out above). Let pass, it is
                        # still ranked as unexplained, and the lock is weaker
                        # evidence (see _out_of_place).
                        near_beat = min(NEAR_BEAT, NEAR_BEAT_S / p)
                        near = [x for x in others
                                if abs((x.t - a.t) / p % 1.0 - 0.5) > 0.5 - near_beat]
                        others = [x for x in others if x not in near]
                        passed = len(near)
                    extra = len(others)
                    if any(x.strength >= strong for x in others):
                        continue
                    key = (extra + passed, passed, unheard, p)
                    if extra <= 1 and (best is None or key < best[0]):
                        beats = [a, c, d]
                        best = (key, beats, beats.index(r[dbl]), r[mids[0]], p)
        return best

    def _faint_stands_out(self, r: list[Onset], mid: int, others: list[int], period: float) -> bool:
        """Whether the faint "kar" ``r[mid]`` rises twice as high as anything on the other beats' half beats.

        Measured in a reverberant room (held-out chants at RT60 0.5 s): the
        flux on the "kar"'s half beat is 0.2 to 0.9 of the onset threshold,
        on the half beats where nothing is sung under 0.15 in pink or white
        noise; in babble the chatter rises as high there, and a faint rise
        says nothing.
        """
        rival = max((r[k].strength for k in range(len(r)) for b in others
                     if k != mid and self._half_window(r[k].t - r[b].t, period)), default=0.0)
        return r[mid].strength >= FAINT_OVER * rival

    def _on_half_beat(self, o: Onset, s: _Slot) -> bool:
        """Whether ``o`` falls on the half beat of slot ``s``, from its beat as heard or as predicted.

        A "Drak" stamped late (its consonant lost under chatter, 30 ms here)
        put its own "kar" before the window opened, and that "kar" counted
        as a stray onset: with one stray sound more, a new lock was never
        confirmed (held-out seed 1, babble at 20 dB, 149 BPM: no bar of five
        located). The beat predicted for the slot is the second reference.
        """
        lo, hi = self._half_bounds(s.period)
        return lo <= o.t - s.heard <= hi or lo <= o.t - s.b <= hi

    def _half_window(self, dt: float, period: float) -> bool:
        """Whether an onset ``dt`` after a beat's onset is that beat's half beat ("kar")."""
        lo, hi = self._half_bounds(period)
        return lo <= dt <= hi

    def _half_bounds(self, period: float) -> tuple[float, float]:
        """The half-beat window (s after the beat).

        From 0.4 to 0.75 of a beat; from earlier when this table's own
        "kar"s come earlier (see :meth:`_early_pattern`), down to 0.12 of a
        beat before them.
        """
        lo = 0.4
        if self._period is not None and self._kars:
            at = median_high(r for _, r in self._kars)
            if at < 0.4:
                lo = max(0.25, at - 0.12)
        return max(lo * period, min(0.15, 0.4 * period)), 0.75 * period

    def _lock(self, beats: list[Onset], dbl: int, half: Onset, period: float,
              out: list[Event]) -> None:
        self._period = period
        self._periods = (period, period)
        if beats[0].t >= self._pending_from:
            self._apply_song()
        self._lock_state = (len(self.bars), self._bar_count, set(), (self.tums, self.reversed))
        self._told_since_lock = False
        self._lock_tums = self.tums  # the song expected, before anything heard changes it
        self._lock_kar = half.strength if half.kind != FAINT else 0.0
        self._pos = 0 if not self.reversed else self.tums
        seq = list(beats[dbl:])
        if self.reversed:
            # The Tums sung before this "Drak-kar" make the first bar: take
            # them back from the recent onsets when all of them were heard.
            d = beats[dbl]
            pre: list[Onset] = []
            for k in range(1, self.tums + 1):
                want = d.t - k * period
                near = [o for o in self._recent if o.kind != FAINT
                        and abs(o.t - want) <= self._tol(period) and o.t < d.t]
                if not near:
                    break
                pre.append(min(near, key=lambda o: abs(o.t - want)))
            if len(pre) == self.tums:
                seq = pre[::-1] + seq
                self._pos = 0
        for prev, bo in zip([None] + seq, seq):
            if prev is not None and bo.t - prev.t > 1.5 * period:
                # "Drak-kar", a beat unheard, two beats: that beat's slot, empty.
                empty = _Slot(b=prev.t + period, period=period, pos=self._pos)
                self._closing.append(empty)
                self._pos_after(empty)
                self._unheard += 1
                self._lock_unheard = True
            slot = _Slot(b=bo.t, period=period, onset=bo, pos=self._pos)
            if bo is not beats[-1]:
                self._note_click(slot)  # the last is noted when its window closes
            self._grid_add(bo.t)
            if bo is beats[dbl]:
                slot.half = half
                if half.kind != FAINT:
                    self._grid_add(half.t)
            self._last_heard = bo.t
            if bo is not beats[-1]:
                self._closing.append(slot)
                self._pos_after(slot)
            else:
                self._slot = slot
        first = min(o.t for o in seq)
        self._beat_times = [o.t for o in seq[:-1]]  # the last closes with its window
        self._since_lock = [o for o in self._recent if o.t >= first]
        self._recent = []

    # -- time --------------------------------------------------------------------
    def _next_deadline(self) -> float | None:
        """The earliest moment a window closes: a half beat's, or the current beat's."""
        if self._period is None:
            return None
        times = [s.heard + 0.75 * s.period for s in self._closing]
        if self._slot is not None:
            times.append(self._slot.b + self._tol(self._period))
        return min(times) if times else None

    def _deadline(self, at: float, out: list[Event]) -> None:
        """Close the window whose deadline is ``at``, as of that moment (not of the call).

        Half-beat windows first on a tie (they belong to earlier beats).
        """
        for s in self._closing:
            if s.heard + 0.75 * s.period <= at:
                self._closing.remove(s)
                self._settle(s, out)
                return
        slot = self._slot
        assert slot is not None and self._period is not None
        if self._probe is not None and not self._deafened(slot) and not self._heard_again(slot):
            self._lost_under_the_voice(slot, out)
            return
        # The beat's window is over: correct phase and period, open the next.
        if slot.onset is not None:
            if self._is_last_pos(slot.pos):
                self._emit_last_tum(slot, out)
            self._strengths.append(slot.onset.strength)
            self._note_click(slot)
            if not self._confirmed:
                self._beat_times.append(slot.onset.t)
            else:
                self._tempo_beats.append(slot.onset.t)
            e = slot.onset.t - slot.b
            if abs(e) <= 0.12 * _tol_beat(self._period):
                self._tight += 1
            b = slot.b + self.phase_gain * e
            self._period = _clamp_period(self._period + self.period_gain * e)
            if not self._confirmed:
                lo, hi = self._periods
                self._periods = (min(lo, self._period), max(hi, self._period))
        elif self._deafened(slot):
            if slot.b - self._last_deaf > 1.5 * self._period:
                self._coast_from_the_beats(slot)
            b = slot.b
            slot.deaf = True
            self._last_deaf = b
            self._coasted = True
            self._probe = _Probe(self._offgrid, self.tums + 2)
            self._since_deaf = []
            self._beats_heard.clear()  # nothing known of the rests (see _rest_heard_as_a_beat)
            if self._is_last_pos(slot.pos):
                self._emit_last_tum(slot, out)  # where the beat falls: a play may be judged on it
        else:
            b = slot.b
            if not self._confirmed:
                self._unheard += 1
            listened = max(self._last_heard, self._last_deaf)
            if self._first_missed is None or self._first_missed < listened:
                self._first_missed = slot.b
            # Silence is measured up to the deadline, never to the call's time.
            if at - listened > self.stop_beats * self._period:
                self._stop(slot, out)
                return
        self._check_tempo(slot.heard, out)
        self._closing.append(slot)
        self._pos_after(slot)
        self._slot = _Slot(b=b + self._period, period=self._period, pos=self._pos)
        rest = None if slot.deaf else self._rest_heard_as_a_beat(slot)
        if rest is not None:
            self._halve_tempo(rest, b)

    def _deafened(self, slot: _Slot) -> bool:
        """Whether a beat with nothing heard on it was due while the tracker was deaf.

        The host's voice masks the onsets while it plays (half duplex), and
        the table sings on under it: a song change said mid-song ("Kraken!
        Now Drakkar Tum Tum.") takes two seconds, longer than a bar. Counted
        as silence, those beats stopped the song, and the plays made under
        the voice were judged on no last Tum at all ("no song", or the bar
        before: "late"); the lock was made anew and confirmed bars later. A
        song followed goes on at its tempo under the voice, as a person
        keeps counting while someone talks, and its bars and last Tums fall
        where the beats do. Only a confirmed lock: a provisional one has no
        tempo to go on with.
        """
        if self.deaf is None or not self._confirmed or self._period is None:
            return False
        tol = self._tol(self._period)
        return slot.b - tol < self._stop_from and bool(self.deaf.overlaps(slot.b - tol, slot.b + tol))

    def _heard_again(self, slot: _Slot) -> bool:
        """Whether the song gone on unheard is still the table's, as of this beat after the voice.

        The table may have stopped and begun again under the host's voice, on
        a beat of its own: the bars gone on unheard then fall between the
        table's, and the onsets after the voice stray off them. Two stray
        onsets before two beats in time, or one and no two beats in time
        within a bar, and the song is taken as lost under the voice
        (:meth:`_lost_under_the_voice`). Two beats in time, and it goes on.
        """
        assert self._probe is not None and self._period is not None
        probe = self._probe
        if probe.first_beat is None:
            probe.first_beat = slot.b
        if slot.onset is not None and abs(slot.heard - slot.b) <= 0.12 * _tol_beat(self._period):
            probe.in_time += 1
        probe.beats_left -= 1
        strays = self._offgrid - probe.strays_before
        if probe.in_time >= 2:
            self._probe = None
            return True
        if (strays >= 2 and probe.in_time == 0) or (probe.beats_left <= 0 and strays >= 1):
            return False
        if probe.beats_left <= 0:
            self._probe = None
        return True

    def _lost_under_the_voice(self, slot: _Slot, out: list[Event]) -> None:
        """The song gone on unheard was not the table's: it stopped under the voice.

        Reported stopped at the first beat after the voice, and the onsets
        heard since are handed in again: the song the table began under the
        voice is found from them.
        """
        assert self._probe is not None
        again = self._since_deaf
        self.on_grid -= {o.t for o in again}
        self._first_missed = self._probe.first_beat
        self._stop(slot, out)
        self._pending = sorted(again + self._pending, key=lambda o: (self._usable_at(o), o.t))

    def _coast_from_the_beats(self, slot: _Slot) -> None:
        """Go on under the host's voice from the line through the last beats heard.

        The loop's period and phase follow each beat's error, and carried on
        unheard for two seconds a period 5 ms short put the last Tums 40 ms
        early; the line through the last ``COAST_BEATS`` beats heard is the
        steadier guess. Kept within a beat's window of the loop's.
        """
        t = list(self._tempo_beats)[-COAST_BEATS:]
        fit = self._beat_line(t) if len(t) >= COAST_BEATS // 2 else None
        if fit is None or self._period is None:
            return
        period, _, last = fit
        b = last + period * max(1, round((slot.b - t[-1]) / self._period))
        if abs(period / self._period - 1) < 0.05 and abs(b - slot.b) < self._tol(self._period):
            slot.b, slot.period, self._period = b, period, period

    def _rest_heard_as_a_beat(self, slot: _Slot) -> int | None:
        """Where the table rests among the last beats, if a one-Tum song is followed at twice its tempo.

        Notes first whether ``slot``, the beat just closed, was heard.
        "Drak, kar, Tum" and a rest, on half beats: chatter in the rest can
        make a lock on every half beat, whose "Tums" are the table's "kar"s
        or its rests, and a play on the table's Tum is judged against one
        of them every other bar (5 of 65 one-Tum chants in babble, held-out,
        unseen and real-voice sets: 26 last Tums misplaced). Such a lock,
        once confirmed, hears nothing on one beat in four, the same one two
        cycles running, and something on the other six; nor any "Drak-kar"
        of its own lately (its half beats fall on the table's quarter beats,
        where nothing is sung). A right lock in an echoing room lost the
        same beat twice to the echo as well, but heard its "Drak-kar"s.
        Returns the index of the last rest among the last ``2 * REST_CYCLE``
        beats (the one just closed is the last).
        """
        if not (self._confirmed and self.tums == 1 and not self.reversed):
            return None
        self._beats_heard.append(slot.onset is not None)
        heard = list(self._beats_heard)
        n = 2 * REST_CYCLE
        if (len(heard) < n or sum(heard) != n - 2 or 2 * self._period > 60.0 / MIN_BPM
                or (self._doubles and self._slot_no - self._doubles[-1] < REST_CYCLE)):
            return None
        for rest in range(REST_CYCLE, n):
            if not heard[rest] and not heard[rest - REST_CYCLE]:
                return rest
        return None

    def _halve_tempo(self, rest: int, b: float) -> None:
        """Follow the song at half the tempo, its "Drak" the beat after the table's rest.

        ``b`` is the beat just closed (the last of the ``2 * REST_CYCLE``);
        the next beat is the first of the table's own ("Drak" or Tum) after
        it. No tempo change is reported: the table kept its tempo.
        """
        half = self._period
        last = 2 * REST_CYCLE - 1
        drak = rest + 1  # the table's beats fall on every other half beat from it
        nxt = last + 1 + (last + 1 - drak) % 2
        pos = 0 if (nxt - drak) % REST_CYCLE == 0 else 1
        self._period = 2 * half
        self._tempo_from(self._period)
        self._slot = _Slot(b=b + (nxt - last) * half, period=self._period, pos=pos)
        self._pos = pos
        self._beats_heard.clear()
        self._kars.clear()

    def _pos_after(self, slot: _Slot) -> None:
        self._pos = slot.pos + 1
        if self._pos > self.tums:
            self._pos = 0

    def _is_last_pos(self, pos: int) -> bool:
        return pos == self.tums

    def _set_tempo_reference(self) -> None:
        """The tempo a confirmed lock was sung at: the line through its beats, not the lock's first guess.

        A lock takes its period from two intervals, and one syllable among
        them stamped off (chatter just before it, a "T" buried in hiss) puts
        it several per cent off the table's tempo; the loop then corrects it
        over the next bars, and that correction was told as the table
        drifting ("You are singing slower: 134 then 124", the table steady
        at 124). Over the 647 locks confirmed on the cached chant sets, the
        lock's period was more than 4 % off the true tempo in 90 (more than
        6 % in 43), the line through the beats heard until confirmation in
        15 (13: locks at half or twice the tempo, or chants that drift).
        """
        fit = self._beat_line(self._beat_times)
        self._tempo_from(fit[0] if fit is not None else self._period)

    def _tempo_from(self, period: float) -> None:
        """Measure tempo changes from ``period`` on, with the beats heard from now."""
        self._ref_period = period
        self._tempo_beats.clear()
        self._tempo_off = False

    def _tempo_now(self) -> float:
        """The period the table sings at now.

        The loop's period lags a table that speeds up or slows down (its
        phase takes most of each error): over the last ``TEMPO_BEATS``
        beats heard, once there are ``TEMPO_FIT``, the slope at the newest
        beat of a parabola through them, which follows a steady drift
        without that lag.
        """
        assert self._period is not None
        t = list(self._tempo_beats)
        if len(t) < TEMPO_FIT:
            return self._period
        idx = self._beat_indices(t)
        n = len(t)
        # Least squares of t = a + b i + c i^2, i centred on its mean (plain
        # Python: a dozen points, where numpy's calls cost more than the sums).
        mi = sum(idx) / n
        x = [i - mi for i in idx]
        s2 = sum(v * v for v in x) / n
        q = [v * v - s2 for v in x]  # the square, centred
        mt = sum(t) / n
        y = [v - mt for v in t]
        sxx = sum(v * v for v in x)
        sxq = sum(a * b for a, b in zip(x, q))
        sqq = sum(v * v for v in q)
        sxy = sum(a * b for a, b in zip(x, y))
        sqy = sum(a * b for a, b in zip(q, y))
        det = sxx * sqq - sxq * sxq
        if det <= 0:
            return self._period
        b = (sxy * sqq - sqy * sxq) / det
        c = (sqy * sxx - sxy * sxq) / det
        now = b + 2 * c * x[-1]
        return now if now > 0 else self._period

    def _check_tempo(self, t: float, out: list[Event]) -> None:
        """Tell the table it drifted: its tempo now more than ``tempo_change`` off the reference.

        At two beats in a row, so one syllable stamped late or early (chatter,
        a singer ahead of the rest) moves no tempo. The reference is the
        tempo the lock was confirmed at (:meth:`_set_tempo_reference`), then
        the one last told.

        Measured on the cached chant sets (707 chants that keep one tempo)
        and on held-out seeds 1 and 2 rendered with a drift from the first
        bar to the last (32 chants each), against the loop's period compared
        with the lock's: drift told in 13 -> 13 chants at +15 %, 13 -> 16 at
        -15 %, 4 -> 7 at +10 %, none at 5 % or none, each in its direction;
        told falsely in 6 -> 0 of the 707, and with each beat of the table
        moved at random (a table less steady than espeak-ng's: 10, 20 and 30
        ms standard deviation) in 12 -> 0, 11 -> 0 and 20 -> 7. The
        committed chant that drifts 12 % is told at its last bar, as before.
        """
        if not (self._confirmed and self._ref_period):
            return
        now = self._tempo_now()
        off = abs(now / self._ref_period - 1) > self.tempo_change
        if off and self._tempo_off:
            out.append(TempoChanged(round(t, 4), round(60 / self._ref_period, 1), round(60 / now, 1)))
            self._tempo_from(now)
        else:
            self._tempo_off = off

    def _note_click(self, slot: _Slot) -> None:
        o = slot.onset
        if o is not None and o.kind != SLAP and o.click is not None:
            self._clicks.append((self._is_drak(slot.pos), o.click))

    def _is_drak(self, pos: int) -> bool:
        """Whether the beat at ``pos`` is the "Drak-kar" one (the last, in a reversed song)."""
        return pos == (self.tums if self.reversed else 0)

    def _emit_last_tum(self, slot: _Slot, out: list[Event]) -> None:
        bar = self._bar.index if self._bar else self._bar_count
        out.append(self._last_tum_heard(slot, bar))

    def _last_tum_heard(self, slot: _Slot, bar: int) -> LastTum:
        """The last Tum ``slot`` heard; with a card in it (see :meth:`_struck`), halfway to the beat predicted.

        A card slapped 30 ms before the Tum starts the sound heard, the
        Tum's own onset lost in it: taken as the Tum, it put the last Tum
        31 ms early (median of 49 such last Tums over the cached chant sets,
        47 of them more than 30 ms off; halfway, 9). Only a sound heard
        before the beat predicted, and with no slap heard apart: a card
        slapped after the Tum began leaves the sound the Tum's (18 sharp
        "T"s with no card near moved, 8 of them then more than 30 ms off).
        """
        o = slot.onset
        struck = o is not None and self._struck(slot)
        # The card starts the sound only when slapped before the Tum, so
        # heard before the beat predicted; slapped after, the Tum started it.
        slot.card = struck and not slot.slap_heard and o.t < slot.b
        card_t = round(o.t, 5) if struck else None
        return LastTum(round(slot.t, 5), round(slot.b, 5), bar, struck, card_t)

    def _struck(self, slot: _Slot) -> bool:
        """Whether a card was slapped with this last Tum, heard as one onset with it.

        Measured over held-out seeds 1 to 8, real voices seeds 1 to 4 and the
        committed chants, on the last Tums located on a sung onset: of the 76
        with a card slapped within 30 ms of them (and no slap heard apart),
        the click marks 67, the strength (``STRUCK``, over all the beats':
        "Drak" and "kar" are weaker than a Tum) 42; of the 412 with no card
        within 150 ms, the click marks 10 and the strength 34. The Tums are
        compared with Tums, the "Drak"s with "Drak"s: a "D" or "k" clicks
        less than a "T". A card slapped 30 ms or more into the Tum is mostly
        heard after the detector decided the Tum, so not in its click: it is
        heard as a slap inside the syllable (``Onset.inside``).
        """
        o = slot.onset
        if o is None or o.kind == SLAP:
            return False
        drak = self._is_drak(slot.pos)
        same = [c for d, c in self._clicks if d == drak][-8:]
        if o.click is not None and len(same) >= CLICK_BEATS:
            return o.click - median(same) >= CLICKED_DB
        typical = self._typical()
        return typical > 0 and o.strength >= STRUCK * typical

    def _settle(self, s: _Slot, out: list[Event]) -> None:
        """Classify a closed slot; a beat with no onset waits until the song goes on.

        Without this, the beats after the table stopped would start phantom
        bars before the silence is long enough to call it a stop. A beat due
        while the tracker was deaf is the song going on.
        """
        if s.onset is None and not s.deaf:
            self._deferred.append(s)
            return
        for d in self._deferred:
            self._classify(d, out)
        self._deferred = []
        self._classify(s, out)

    def _stop(self, slot: _Slot, out: list[Event]) -> None:
        for s in self._closing:
            if s.onset is not None:
                self._settle(s, out)
        self._closing = []
        self._deferred = []
        self._close_bar(final=True)
        if not self._confirmed and self._stopped_short():
            self._confirmed = True
            self._set_tempo_reference()
            out[:0] = self._held
            self._held = []
        if not self._confirmed:
            self._reject()  # never a song: no stop to report either
            return
        first = self._first_missed if self._first_missed is not None else slot.b
        out.append(SongStopped(round(first, 4)))
        self._unlock()

    # -- bars --------------------------------------------------------------------
    def _classify(self, s: _Slot, out: list[Event], stopping: bool = False) -> None:
        double = s.onset is not None and s.half is not None
        expected_double = 0 if not self.reversed else self.tums
        if double and s.half.kind == FAINT:
            # A faint rise may confirm where a bar begins, never say the song
            # changed; and only if it stands out of the other half beats of
            # the last bar, where nothing is sung (chatter rises there too).
            if s.pos != expected_double:
                self._off_half.append(s.half.strength)
                double = False
            elif s.half.strength < FAINT_OVER * max(self._off_half, default=0.0):
                double = False
            if not double:
                s.half = None
        elif s.onset is not None and s.pos != expected_double:
            self._off_half.append(0.0)
        self._slot_no += 1
        if double:
            if self._two_in_a_row():
                self._offgrid += 1
            self._doubles.append(self._slot_no)
            self._double_at.append(s.half_at)
            self._kar_sung |= s.half.kind != FAINT
        if double and s.pos == expected_double and s.half.kind != FAINT:
            self._kars.append((s.half.strength, s.half_at))
        if double and s.pos != expected_double and not self._plain_kar(s):
            double = False  # chatter on the half beat: no reason to doubt the song
            s.half = None
        if double and s.pos != expected_double and (self._lock_was_off(s) or self._rival_again(s)):
            self._lock_moved = True
            self._forget_bars_off(s, out)
            self._rephase(s, self.tums, out)
            return
        if double and s.pos != expected_double and self._lock_held(s):
            self._rival = self._slot_no
            double = False  # one against one, and the lock's "kar" was the plainer
            s.half = None
        elif double and s.pos == expected_double and s.half.kind != FAINT:
            self._rival = None
            self._coasted = False
            if s.b > self._stop_from + (self.tums + 1) * s.period:
                # A bar sung whole after the game stopped the song: the table sings on
                # (its warm-up, see expect_stop), and a voice over it may be sung under.
                self._stop_from = math.inf
        if (double and s.pos != expected_double and not self.follow and not self.reversed
                and (self._phase_heard >= 2 or self._coasted)):
            # After bars gone on unheard, where the bars begin is the tracker's
            # guess, and the Tums counted from one say nothing: a table still
            # singing the song before the change told while the host spoke
            # ("Goblin! Now Drakkar Tum Tum.") was told it sang one Tum, not three.
            verdict, gap = self._sung_again(s)
            if verdict == "suspect":
                double = False  # held until the table sings that song again
                s.half = None
            elif verdict == "again":
                self._rephase(s, gap - 1, out)
                return
        elif double and s.pos == expected_double and self._suspect is not None:
            # The song expected goes on: the suspect stands only if this
            # "Drak-kar" also falls where its song has one.
            at, gap = self._suspect
            if (self._slot_no - at) % gap:
                self._suspect = None
        if double:
            self._last_double_no = self._slot_no
            self._phase_heard = self._phase_heard + 1 if s.pos == expected_double else 1
        if double and s.pos != expected_double:
            if self._wrong(s, out):
                if self.follow:
                    self._remember_double(s)
                return
            # Not a song anyone sings (no Tum at all): a stray onset on the half beat.
            double = False
            s.half = None
        if double and self.follow:
            self._follow_sung(s, out)
        if s.pos == 0 and not self.reversed:
            self._uncertain = not double
            self._new_bar(s, out)
        elif self.reversed and s.pos == 0:
            self._uncertain = self._prev_double is None or not (
                self._prev_double.pos == self.tums)
            self._new_bar(s, out)
        self._add_beat(s, out)
        if double:
            self._prev_double = s
        if self.reversed and s.pos == self.tums and self._bar is not None:
            self._bar.last_tum = round(s.t, 5)

    def _two_in_a_row(self) -> bool:
        """Whether this slot's "Drak-kar" comes right after another, before the lock is confirmed.

        Such a "Drak-kar" counts as a stray onset. No song has two in a row,
        and a table's chant makes them only when chatter falls on a half
        beat; people talking do so all the time, a syllable on nearly every
        half beat of the grid they seem to keep. Real spoken digits said one
        after another (twelve sequences of fifty) were confirmed as songs
        nine times, seven of them with such pairs: counted as stray onsets,
        30 false bars of the host's three songs fell to 9 (115 to 84 on 36
        sequences more: ``bench onsets --talk`` seeds 300, 500 and 700). The
        price, on the chants measured (the committed ones, held-out seeds 1
        to 8, two rooms, real voices 1 to 4): in babble loud enough to put
        syllables on the Tums' half beats, two chants lose 3 of 5 last Tums
        each, another gains 2, the committed fixtures 1, and one last Tum is
        misplaced less.
        """
        d = self._doubles
        return not self._confirmed and bool(d) and d[-1] == self._slot_no - 1

    def _lock_was_off(self, s: _Slot) -> bool:
        """Whether this "Drak-kar" where the bars have none says the provisional lock was a beat off.

        A lock rests on one "Drak-kar", and in babble its "kar" may have been
        chatter on a Tum's half beat: the bars then start on that Tum, and
        the table's first "Drak-kar" after the lock came where the bars have
        none. Taken as a wrong song, the host told a table singing the song
        it was asked for that it sang another (held-out seeds 2, 3 and 5,
        babble at 10 and 15 dB, two Tums: "one Tum" announced at the second
        bar). Until a second "Drak-kar" agrees with one of them (and once
        only), they are one against one: the plainer "kar" (sung stronger;
        a faint rise is the weakest) places the bars, and the song stays the
        one expected. A table that really sings another song says so again
        a bar later (:meth:`_wrong` then), unless this is the song the game
        told before its last change: the mistake this game is about,
        believed at once (see :meth:`_sung_again`).
        """
        return self._against_the_lock(s) and s.half.strength > self._lock_kar

    def _against_the_lock(self, s: _Slot) -> bool:
        """Whether this "Drak-kar" where the bars have none is one against the provisional lock's own."""
        if (self._confirmed or self.reversed or self._phase_heard >= 2 or self._lock_moved
                or s.half.kind == FAINT):
            return False
        # Beats from the lock's "Drak-kar": two in a row make no song (chatter,
        # as before); a gap longer than any song's bar is no song either, so
        # it too says the lock was a beat off.
        gap = self._slot_no - (self._last_double_no or 0)
        return 2 <= gap and (gap - 1, self.reversed) != self._told_before

    def _rival_again(self, s: _Slot) -> bool:
        """Whether this "Drak-kar" comes a whole bar after one that lost to the lock's own.

        Two against one: the lock rested on chatter after a Tum and was a
        beat off, and the bars move, the song the same (held-out seed 6,
        chant 2, in babble at 10 dB: that rival was taken for a wrong song
        of one Tum, which moved the bars right but told the table it sang
        the wrong song).
        """
        return (self._rival is not None and not self._confirmed and not self._lock_moved
                and s.half.kind != FAINT and (self._slot_no - self._rival) % (self.tums + 1) == 0)

    def _lock_held(self, s: _Slot) -> bool:
        """Whether this "Drak-kar" where the bars have none lost, one against one, to the lock's own.

        Its "kar" is no plainer than the lock's (see :meth:`_lock_was_off`),
        so the bars stay, and it is chatter on a half beat until a
        "Drak-kar" comes a bar after it (:meth:`_rival_again`). It went on
        to be counted as a wrong song, and the bars moved by it: in babble,
        chatter after a last Tum made the host tell a table singing the song
        asked for that it sang another (held-out seed 6, chant 1, and seed 7,
        chant 0: 4 last Tums misplaced, 3 wrong songs). Measured on my
        caches of every set: wrong songs where none was sung 17 -> 6, last
        Tums 8 more and 11 misplaced fewer, the 13 sets' plays 310 / 292 ->
        311 / 293 of 352; talk unchanged.
        """
        return not self.follow and self._against_the_lock(s) and s.half.strength <= self._lock_kar

    def _forget_bars_off(self, s: _Slot, out: list[Event]) -> None:
        """Drop the bars a provisional lock a beat off finished before ``s`` moved it, and their events (still held).

        Its "Drak-kar" was chatter on a Tum's half beat, so each bar it
        finished began on a Tum and ended a beat or more before the table's:
        its last Tum is on no last Tum. Nor is the one it heard (or predicted)
        at ``s``, the table's "Drak". The bar still open ends on the beat before ``s``,
        the last Tum of the table's bar (:meth:`_rephase`), and stays; bars
        are numbered on from those before the lock.
        """
        n_bars = self._lock_state[0]
        gone = {b.index for b in self.bars[n_bars:]}
        del self.bars[n_bars:]
        shift = len(gone)
        first = min(gone, default=math.inf)
        at = round(s.t, 5)

        def kept(e: Event) -> Event | None:
            if isinstance(e, (LastTum, LastTumPredicted)) and e.t >= at:
                return None  # at the table's "Drak", or past it
            if isinstance(e, BarStart):
                return None if e.index in gone else replace(e, index=e.index - shift) if e.index > first else e
            if isinstance(e, (Beat, LastTumPredicted, LastTum)):
                return None if e.bar in gone else replace(e, bar=e.bar - shift) if e.bar > first else e
            return e

        for events in (self._held, out):
            events[:] = [x for x in map(kept, events) if x is not None]
        if self._bar is not None:
            self._bar.index -= shift
        self._bar_count -= shift
        # The open bar's last beat is the table's last Tum: heard as such.
        last = self._last_beat
        if self._bar is None or last is None or last.onset is None:
            return
        beat_t = round(last.t, 5)  # before a card in it moves it (see _last_tum_heard)
        if beat_t >= at:
            return
        heard = self._last_tum_heard(last, self._bar.index)
        if any(isinstance(e, LastTum) and e.t == heard.t for e in self._held + out):
            return
        for events in (self._held, out):
            k = next((k for k, e in enumerate(events) if isinstance(e, Beat) and e.t == beat_t), None)
            if k is not None:
                events.insert(k + 1, heard)
                return
        out.append(heard)

    def _sung_again(self, s: _Slot) -> tuple[str, int]:
        """Whether this "Drak-kar" where the bars have none repeats one before it, and its gap.

        Once two "Drak-kar"s in a row fell where the bars put them, one
        elsewhere is a ``"suspect"``, not yet a wrong song: in a noisy,
        echoing room a syllable of chatter on a half beat passes for a
        "kar", and taken at once for a new song it moved every bar after it
        (the table's own "kar"s, lost under the echo, never moved them back),
        so the host announced a wrong song nobody sang and judged plays
        against the wrong beat. A table that really sings another song sings
        it again: the next "Drak-kar" falls as far after the suspect as the
        suspect after the one before it (``"again"``), one bar later. Two
        are believed at once (``"new"``): the song the game told before the
        last change (a table that forgot a danger or a defence: the mistake
        this game is about, and the host should say so in that bar), and a
        bar and then a reversed one (Whirlpool Island sung before the game
        said so: a "Drak-kar" a bar and the reversed Tums after the last).
        """
        no = self._slot_no
        if self._suspect is not None:
            at, gap = self._suspect
            if (no - at) % gap == 0 and no - at <= 2 * gap:
                self._suspect = None
                return "again", gap
        gap = no - self._last_double_no if self._last_double_no is not None else 0
        if gap == 2 * self.tums + 1 or (gap - 1, self.reversed) == self._told_before:
            self._suspect = None
            return "new", gap
        # A gap no song has (the table's "kar"s lost in between) leaves only
        # this "Drak-kar" to measure the next one from.
        self._suspect = (no, gap) if 2 <= gap <= MAX_TUMS + 1 else None
        self._last_double_no = no
        return "suspect", gap

    def _rephase(self, s: _Slot, heard: int, out: list[Event]) -> None:
        """The table sings ``heard`` Tums (confirmed by :meth:`_sung_again`): a bar begins at ``s``."""
        bar = self._bar
        if bar is not None and bar.beats:
            bar.tums = len(bar.beats) - 1
            bar.last_tum = bar.beats[-1]
        if heard != self.tums:  # else the same song, a beat off: the bars move silently
            out.append(WrongSong(round(s.t, 4), self.tums, heard))
        self._phase_heard = 1
        self._coasted = False
        self._last_double_no = self._slot_no
        self._bar_at(s, out)

    def _bar_at(self, s: _Slot, out: list[Event]) -> None:
        """A bar begins at the "Drak-kar" ``s`` (normal song): the slots after it are renumbered."""
        s.pos = 0
        self._uncertain = False
        self._new_bar(s, out)
        self._add_beat(s, out)
        self._prev_double = s
        self._pos_after_fix(s)

    def _follow_sung(self, s: _Slot, out: list[Event]) -> None:
        """Follow the song the "Drak-kar"s keep time for, when it is not the one followed.

        A song followed on a false clue (chatter on a half beat taken for a
        "kar", a lock on the wrong beat of the bar) is undone by the next
        "Drak-kar" where that song has none, except when the table's bar is a
        whole number of the followed song's bars: every true "Drak-kar" then
        falls where the followed song has one, and every bar is split. Two
        equal gaps between the "Drak-kar"s, other than the followed bar, say
        what is sung: that song is followed (its direction is the one the
        game told), and bars split in two are joined again.
        """
        sung = self._remember_double(s)
        if len(sung) < 3:
            return
        gap = sung[2][0] - sung[1][0]
        if gap != sung[1][0] - sung[0][0] or gap == self.tums + 1 or not 2 <= gap <= MAX_TUMS + 1:
            return
        tums, reversed = gap - 1, self._told[1]
        if not self.reversed and not reversed:
            self._close_bar()
            self._join_bars(sung[0][1], sung[1][1], tums)
            self._join_bars(sung[1][1], s.t, tums)
        elif self.reversed and not reversed:
            self._bar = None  # the Tums before this "Drak-kar", taken for a bar: none was sung
        out.append(WrongSong(round(s.t, 4), self.tums, tums))
        self.tums, self.reversed = tums, reversed
        s.pos = tums if reversed else 0
        sung.clear()
        self._pos_after_fix(s)

    def _remember_double(self, s: _Slot) -> list[tuple[int, float]]:
        """Keep ``s`` among the last three "Drak-kar"s the song was taken from."""
        self._sung_doubles.append((self._slot_no, s.t))
        del self._sung_doubles[:-3]
        return self._sung_doubles

    def _join_bars(self, start: float, end: float, tums: int) -> None:
        """Join the bars that began from ``start`` to before ``end`` into one of ``tums`` Tums."""
        lo, hi = round(start, 5) - 1e-6, round(end, 5) - 1e-6
        split = [k for k, b in enumerate(self.bars) if lo <= b.start < hi]
        if len(split) < 2 or split != list(range(split[0], split[-1] + 1)):
            return
        parts = [self.bars[k] for k in split]
        beats = [t for b in parts for t in b.beats]
        self.bars[split[0]:split[-1] + 1] = [Bar(parts[0].index, parts[0].start, tums, False,
                                                 beats, beats[-1], parts[0].expected_tums)]
        for k, b in enumerate(self.bars):
            b.index = k
        self._bar_count = len(self.bars)

    def _plain_kar(self, s: _Slot) -> bool:
        """Whether the half-beat onset of ``s`` is plainly a sung "kar", not chatter.

        A "Drak-kar" where the song has none says the table sings another
        song, and the bars are counted anew. In a noisy room a syllable of
        chatter falls on some half beat every few bars; taken for a "kar",
        it made the host announce a wrong song nobody sang and look for the
        last Tum in the wrong place. Measured on the fixtures, a sung "kar"
        comes 0.43 to 0.59 of a beat after its "Drak" (5th to 95th
        percentile) at 0.54 times the recent "kar"s' median strength or more
        (2nd percentile); chatter anywhere in the half-beat window, and
        often fainter (a third of the "kar"s found as wrong songs in noisy
        chants). So a double where none is expected must be near where this
        table sings its "kar"s (a table that swings them late is followed)
        and not faint.

        One "kar" heard is no swing: it is the lock's own, and in chatter it
        may be a syllable on a Tum's half beat, 0.6 of a beat after it. The
        table's first "Drak-kar" after such a lock, its "kar" on the half
        beat, was then taken for chatter and the bars stayed a beat off
        (held-out seed 4, chant 0: every last Tum a beat early). Until a
        second "kar" is heard, one near the half beat is plain too (if not
        faint). Measured over the committed chants, held-out seeds 1 to 8
        and real voices 1 to 4: last Tums 755 -> 758 of 875; with Tums in
        chatter stamped where they are sung (the onset detector's
        ``back_share``) 758 -> 770, and plays judged right 300 -> 306 of 352;
        people talking (``bench onsets --talk``) make no bar more.
        """
        ratio = s.half_at
        near_half = abs(ratio - 0.51) <= KAR_AT
        if not self._kars:
            return near_half
        swing = abs(ratio - median_high(r for _, r in self._kars)) <= KAR_AT
        if not swing and not (near_half and len(self._kars) < 2):
            return False
        return s.half.strength >= KAR_STRENGTH * median_high(st for st, _ in self._kars)

    def _new_bar(self, s: _Slot, out: list[Event]) -> None:
        self._close_bar()
        self._apply_song_at_bar(s)
        self._bar_count += 1
        self._bar = Bar(index=self._bar_count - 1, start=round(s.t, 5), tums=self.tums,
                        reversed=self.reversed, expected_tums=self.tums)
        out.append(BarStart(round(s.t, 5), self._bar.index, self.tums, self.reversed))
        out.append(LastTumPredicted(round(s.b + self.tums * s.period, 5), self._bar.index))

    def _apply_song_at_bar(self, s: _Slot) -> None:
        if self._pending_song is not None and s.heard >= self._pending_from:
            self._apply_song()

    def _add_beat(self, s: _Slot, out: list[Event]) -> None:
        if self._bar is None:
            return
        self._last_beat = s
        self._bar.beats.append(round(s.t, 5))
        out.append(Beat(round(s.t, 5), self._bar.index, len(self._bar.beats) - 1,
                        s.onset is not None))
        if not self.reversed and len(self._bar.beats) - 1 == self.tums:
            self._bar.last_tum = round(s.t, 5)

    def _close_bar(self, final: bool = False) -> None:
        bar = self._bar
        if bar is None:
            return
        self._bar = None
        n = len(bar.beats)
        if n < bar.tums + 1:
            if not final:
                bar.tums = max(0, n - 1)
            else:
                return  # interrupted before its last Tum: not a bar the table finished
        if bar.last_tum is None and bar.beats:
            bar.last_tum = bar.beats[-1]
        self.bars.append(bar)

    def _wrong(self, s: _Slot, out: list[Event]) -> bool:
        """A double where the expected song has none: count the Tums really sung.

        Returns False (and changes nothing) when the count makes no song.
        """
        bar = self._bar
        n_tums = self.tums
        if bar is None:
            return False
        prev_beats = len(self.bars[-1].beats) if (self._uncertain and self.bars) else 0
        if not self.reversed:
            preview = (prev_beats - 1 + len(bar.beats)) if prev_beats else len(bar.beats) - 1
        else:
            preview = (prev_beats - 1 + len(bar.beats)) if prev_beats else len(bar.beats)
        if preview < 1:
            return False
        if not self.reversed:
            # Beats since the bar began (the bar holds the slots before this one).
            sung = len(bar.beats) - 1 if bar is not None else s.pos - 1
            if self._uncertain and self.bars:
                # This "bar" began on a Tum (no "kar"): the previous bar went on.
                prev = self.bars.pop()
                heard = len(prev.beats) - 1 + (len(bar.beats) if bar else 0)
                beats = prev.beats + (bar.beats if bar else [])
                self._bar = bar = Bar(prev.index, prev.start, 0, False, beats,
                                      None, prev.expected_tums)
                self._bar_count = prev.index + 1
                if heard > MAX_TUMS and self.follow and heard - prev.tums <= MAX_TUMS:
                    # Normal bar, then a reversed one: Whirlpool Island came into play.
                    k = prev.tums
                    self.bars.append(Bar(prev.index, prev.start, k, False,
                                         beats[: k + 1], beats[k], prev.expected_tums))
                    rb = beats[k + 1 :] + [round(s.t, 5)]
                    self._bar_count = prev.index + 2
                    self.bars.append(Bar(prev.index + 1, rb[0], len(rb) - 1, True, rb,
                                         rb[-1], n_tums))
                    self._bar = None
                    out.append(WrongSong(round(s.t, 4), n_tums, heard))
                    self.tums, self.reversed = len(rb) - 1, True
                    self._pos = self.tums
                    self._prev_double = s
                    s.pos = self.tums
                    self._pos_after_fix(s)
                    return True
            else:
                heard = sung
            bar.tums = heard
            bar.last_tum = bar.beats[-1] if bar and bar.beats else None
            out.append(WrongSong(round(s.t, 4), n_tums, heard))
            if self.follow and 1 <= heard <= MAX_TUMS:
                self.tums = heard
            self._bar_at(s, out)
        else:
            # Reversed: the double ends the bar; Tums are the beats before it.
            sung = (len(bar.beats) if bar is not None else s.pos)
            if self._uncertain and self.bars and bar is not None and bar.beats:
                prev = self.bars.pop()
                sung = len(prev.beats) - 1 + len(bar.beats) if prev else sung
                bar = Bar(prev.index, prev.start, 0, True, prev.beats[:-0 or None] + bar.beats,
                          None, prev.expected_tums)
                self._bar_count = prev.index + 1
            if bar is None:
                self._bar_count += 1
                bar = Bar(self._bar_count - 1, round(s.t, 5), 0, True, [], None, n_tums)
            heard = sung
            bar.beats.append(round(s.t, 5))
            bar.tums = heard
            bar.last_tum = round(s.t, 5)
            self.bars.append(bar)
            self._bar = None
            out.append(WrongSong(round(s.t, 4), n_tums, heard))
            if self.follow and 1 <= heard <= MAX_TUMS:
                self.tums = heard
            s.pos = self.tums
            self._prev_double = s
            self._pos_after_fix(s)
        return True

    def _pos_after_fix(self, s: _Slot) -> None:
        """Re-number the slots after ``s`` now that ``s`` has a new position."""
        pos = s.pos
        for other in sorted(self._closing + ([self._slot] if self._slot else []),
                            key=lambda x: x.b):
            if other.b <= s.b:
                continue
            pos = pos + 1 if pos + 1 <= self.tums else 0
            other.pos = pos
        self._pos = self._slot.pos if self._slot else pos


def _clamp_period(p: float) -> float:
    return min(max(p, 60.0 / MAX_BPM), 60.0 / MIN_BPM)


def _tol_beat(period: float) -> float:
    """The beat a provisional lock's tolerances are shares of: ``period``, at least ``TOL_BEAT``.

    Those tolerances (a beat in time, a steady tempo, a tempo that did not
    wander) were measured on chants at 70 to 150 BPM, but a stamp's error is
    in milliseconds: a "T" stamped 40 to 45 ms late under white noise is a
    tenth of a beat at 150 BPM and 15 % at 200, and at 200 BPM a chant whose
    onsets all matched was never followed. Held at 150 BPM's, over held-out
    1 to 4 each sung at one tempo (``bench onsets --held-out 1-4 --bpm``),
    last Tums located of 320: 138 -> 153 at 200 BPM, 183 -> 210 at 190, 238
    -> 237 at 180, 225 -> 231 at 170, 246 -> 249 at 160, the same at 150;
    real voices 1 to 3 at 200 BPM, 49 -> 56 of 120. On every cached set at their
    own tempos no last Tum moved, nor any false bar on talk (eight seeds);
    two fewer misplaced. The same floor on a pattern's beats when a lock is
    sought found 6 to 16 more at 180 to 200 BPM, but slower chants have
    patterns at a shorter period too: the unseen sets moved both ways, and
    with the floor on the tempo's wander an echoing room lost a bar and
    misplaced 5.
    """
    return max(period, TOL_BEAT)


def _check_tums(tums: int) -> None:
    if not 1 <= int(tums) <= MAX_TUMS:
        raise ValueError(f"a bar has 1 to {MAX_TUMS} Tums, not {tums}")


#: A song the game told from a moment on: ``(t, tums, reversed)``, ``t`` in seconds.
SongChange = tuple[float, int, bool]


def feed(tr: ChantTracker, onsets: Sequence[Onset], now_t: float,
         changes: list[SongChange]) -> list[Event]:
    """Hand ``tr`` the onsets decided by ``now_t``, and each song change due by then at its moment.

    ``changes`` (in time order) are the game's song changes: each is told to
    the tracker (:meth:`ChantTracker.set_song`) when the clock reaches its
    ``t``, as a host tells it after a play, and taken off the list. Onsets
    decided by that moment go in first, as they would have live.
    """
    out: list[Event] = []
    new = list(onsets)
    while changes and changes[0][0] <= now_t:
        t, tums, reversed = changes.pop(0)
        out += tr.process([o for o in new if (o.detected_t or o.t) <= t], t)
        new = [o for o in new if (o.detected_t or o.t) > t]
        tr.set_song(tums, reversed)
    return out + tr.process(new, now_t)


def track(onsets: Iterable[Onset], tums: int = 3, reversed: bool = False,
          follow: bool = True, end_t: float | None = None,
          songs: Sequence[SongChange] = (), deaf: Deafness | None = None) -> ChantTracker:
    """Run the tracker over a finished list of onsets, fed in time order as live.

    ``songs`` are the game's song changes, in time order (:func:`feed`);
    ``deaf``, when the onsets were masked (:class:`ChantTracker`).
    """
    tr = ChantTracker(tums, reversed, follow=follow, deaf=deaf)
    changes = list(songs)
    last = 0.0
    for o in sorted(onsets, key=lambda o: o.detected_t or o.t):
        last = max(o.detected_t or o.t, last)
        feed(tr, [o], last, changes)
    tr.finish(end_t if end_t is not None else last)
    return tr
