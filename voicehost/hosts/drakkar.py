"""The Drakkar Tum Tum host: the table's chant, its declarations, the rules and the voice.

The host is online (madmom style: all state in the object). It is fed blocks
of audio one at a time (:meth:`DrakkarHost.feed`) from a file or from the
microphone, and declarations (:meth:`DrakkarHost.declare`) stamped on the
same sample clock, so a recording and a live table run the very same code.
Time is always the sample clock, never the wall clock.

Per block: the onset detector, then the chant tracker (told the song the
game expects), then every declaration whose audio is complete (up to
``t + SLAP_SEARCH`` plus the detector's look-ahead) is judged, journalled
and applied through the rules, in time order with the tracker's events.

Decisions where the issue and design leave room (documented in the README):

* **Warm-up.** After the song (re)starts, two bars are warm-up and the game
  starts on the third: a play declared before the third bar has started is
  refused with a spoken hint ("Not yet ... the game starts on the third
  song"), the card stays in the hand and nothing is journalled; before any
  bar was heard, the hint says the host has not heard the song and asks for
  it louder than the room (chatter can drown it). Between a
  stopping event (mistake, lookout) and the moment the tracker hears the
  song stop, plays are refused the same way.
* **Timing.** The judge's ``early``, ``late`` and ``no_song`` are the rules'
  ``off_beat`` (a mistake for the active player); out of turn is the rules'
  business whatever the timing.
* **The song.** After every play the tracker is told the new song; it is
  told already when a play is declared (the card and section fix the song,
  the timing does not), so a slow key press never makes the next bar look
  like the wrong song.
* **Stuck player.** When the active player holds no card that fits (only
  lookouts on a mixed ship), the rules have no pass: the host says so, and
  the game goes on when another player plays out of turn (a mistake: their
  card stays and changes the ship, they draw nothing). A lookout declared
  anyway is refused aloud, like any illegal play.
* **Discards owed** (Inhospitable Island): a declared discard is applied;
  if the next play comes first, the rules' default discards are applied and
  journalled, and the host says who dropped a card.
* **Key presses** are stamped with the microphone's sample clock the moment
  the keyboard is read (:class:`~voicehost.hosts.drakkar_run.Keyboard`), as
  a phone's tap is. The round trip ``voicehost calibrate`` measures is not
  added: it holds the speaker's delay too, a quarter of a second for a
  Bluetooth speaker, and a key stamped that late lost its card's slap (the
  judge looks for it within 250 ms).
* **Voice declarations** ("kraken two" right after the slap, with
  ``--declare voice``; :mod:`voicehost.hosts.drakkar_voice`): the table
  stops singing at every play and the host checks the card with its player
  in the quiet ("Ann: red rower on one?"), then the table warms up again.
  Over the singing the recogniser misheard a third of the declarations, with
  the confidence of the right ones (measured), and a misheard card would
  change the ship. The slap still times the play. A slap counts as a play
  when it is in the game and within three quarters of a beat of a last Tum
  (a card slapped with the Tum, heard as one sound with it, counts as a slap
  there: ``LastTum.struck``); the tracker's short "bar" on it and the stop
  after it are not announced.
* **Half duplex, live.** While the host speaks, the onset detector is deaf;
  the tracker goes on at the song's tempo through the beats it cannot hear
  (its last Tums fall where the beats do, and the bars count as sung), and
  routine lines ("Ann: red rower on 1.") are shown, not spoken, while the
  song runs.
* **Resume.** Only rules events are journalled (``play``/``discard``, with
  the verdict and the sample clock as extra fields, which record replay
  accepts). Resuming a recording feeds its audio again from the start
  without speaking and takes every play the journal already holds from the
  journal (not judged again), so the tracker is in the same phase as before
  the crash; live, the rules state is rebuilt and the table warms up again.
"""

from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from voicehost.audio.judge import SLAP_SEARCH, Heard, Judge, Verdict
from voicehost.errors import print_notes
from voicehost.games import drakkar
from voicehost.games.drakkar import Card, DrakkarState
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar_declarations import (
    DISCARD,
    Declaration,
    DeclarationError,
    load_sidecar,
    resolve_card,
)
from voicehost.hosts.drakkar_song import (  # noqa: F401  (re-exported)
    GAME,
    STOPPED,
    WARMUP,
    WARMUP_BARS,
    WORDS,
    _cap,
    danger_names,
    phase_at,
    song_words,
    wrong_song_line,
)
from voicehost.hosts.drakkar_timing import JudgedPlay, PlayerTiming, timing_summary  # noqa: F401

#: Seconds of audio after a declaration before it is judged: the slap
#: search window plus the onset detector's look-ahead and back-tracking.
JUDGE_DELAY = SLAP_SEARCH + 0.1
#: A bar the tracker starts this close after a play's slap is no bar (voice declarations).
STOP_GRACE = 0.1
#: Voice declarations: a slap is a play when it falls within this many beats of
#: the bar's last Tum (a late play is still a play; a click mid-bar is not) ...
NEAR_TUM_BEATS = 0.75
#: ... and in the game; it waits up to this many seconds for the bars to be confirmed.
SETTLE = 3.0
#: Voice declarations: a last Tum heard with a card in it (``LastTum.struck``) is
#: that card's slap unless a slap was heard this close (s) to it; and two slaps
#: this close are one card.
CARD_IN_TUM = 0.1
#: How often (s of sample clock) the chant tracker is told the time.
TICK = 0.1
@dataclass
class DrakkarResult:
    """How a hosted game went: final state, plays, timing and what was said."""

    state: DrakkarState
    plays: list[JudgedPlay]
    timing: list[PlayerTiming]
    lines: list[str]
    refused: list[dict[str, Any]] = field(default_factory=list)
    heard: dict[str, int] = field(default_factory=dict)

    @property
    def result(self) -> str:
        return self.state.result

    @property
    def reason(self) -> str | None:
        return self.state.reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": self.state.result,
            "reason": self.state.reason,
            "islands_found": len(self.state.islands_found),
            "plays": [{"t": round(p.t, 4), "player": p.player, "card": p.card, "slot": p.slot,
                       "timing": p.timing, "mistake": p.mistake,
                       "verdict": None if p.verdict is None else p.verdict.as_dict()}
                      for p in self.plays],
            "timing": [t.to_dict() for t in self.timing],
            "refused": self.refused,
            "heard": self.heard,
            "final": drakkar.replay_output(drakkar.Replay(self.state)),
        }


class DrakkarHost:
    """Hosts one Drakkar game from blocks of audio and declarations.

    Parameters
    ----------
    state
        The rules state to start from (a new game, or one rebuilt by resume).
    announcer
        Says (or prints) every line.
    journal
        Optional open :class:`~voicehost.journal.Journal`: every rules event
        is appended (fsync'd) before the host acts on it.
    windows
        Judge windows: "normal", "easy", "hard" or a half-width in ms.
    resume_events
        Journal events already decided (resuming a recording): the plays are
        taken from here, silently, until they are used up.
    mute
        Optional mute windows for the onset detector (live, half duplex).
    """

    def __init__(self, state: DrakkarState, announcer: Announcer, journal=None,
                 windows: str | float = "normal",
                 rate: int = 16000, resume_events: Sequence[dict] | None = None,
                 mute=None, intro: bool = True, resume_state: DrakkarState | None = None):
        from voicehost.audio.chant import ChantTracker
        from voicehost.audio.onsets import OnsetDetector

        self.state = state
        self.announcer = announcer
        self.journal = journal
        self.rate = rate
        self.mute = mute
        self.detector = OnsetDetector(rate=rate, mute=mute, faint=True)
        song = state.song
        self.tracker = ChantTracker(song.tums, song.reversed, deaf=mute)
        self.judge = Judge(windows)
        self.clock = 0.0
        self.last_tums: list[float] = []
        self.struck_tums: list[float] = []  # cards heard as one sound with a last Tum (LastTum.card_t)
        self.slaps: list[float] = []
        self.stops: list[float] = []
        self.bar_starts: list[float] = []
        self.onset_times: list[float] = []
        self._voice_onsets: list[float] = []
        self._onset_queue: list[Any] = []
        self._next_tick = TICK
        self._last_wrong: tuple | None = None
        #: Position of the latest beat in its bar (0 = "Drakkar"), for the view.
        self.beat_index: int | None = None
        self._period: float | None = None
        self._bar_pending: Any = None
        self.stop_requests: list[float] = []
        self.plays: list[JudgedPlay] = []
        self.refused: list[dict[str, Any]] = []
        self.heard = {"onsets": 0, "bars": 0, "stopped": 0, "wrong_song": 0, "tempo": 0}
        self._pending: list[Declaration] = []
        self._arrived_upto = -math.inf
        self._tracker_events: list[Any] = []
        self._resume = list(resume_events or [])
        self._fast_forward = bool(self._resume)
        self._resume_state = resume_state
        if self._fast_forward:
            announcer.silent = True
        self._players_by_seat = list(state.players)
        #: Voice declarations (:mod:`.drakkar_voice`): the table stops singing
        #: at every play, and the slaps taken as plays are listed here.
        self.stops_at_plays = False
        self.play_slaps: list[float] = []
        self._slaps_looked = 0
        if intro and not self._fast_forward:
            self._intro()

    # -- public API ------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.state.is_over

    @property
    def fast_forwarding(self) -> bool:
        return self._fast_forward

    def phase(self, t: float | None = None) -> tuple[str, int]:
        t = self.clock if t is None else t
        song = self.state.song
        bar_len = self._period * (song.tums + 1) if self._period else None
        return phase_at(t, self.bar_starts, self.stops, self.stop_requests, self.onset_times,
                        bar_len)

    def declare(self, decl: Declaration) -> None:
        """Queue a declaration (sidecar, keyboard); it is judged when its audio is in."""
        if decl.player and decl.player.startswith("#seat"):
            seat = int(decl.player[5:])
            if seat >= len(self.state.players):
                self.say(f"There is no seat {seat + 1}.", decl.t, "refusal")
                return
            decl = replace(decl, player=self.state.players[seat])
        self._pending.append(decl)
        self._pending.sort(key=lambda d: d.t)

    def settle(self) -> None:
        """Judge and apply every declaration whose audio is in (after a late :meth:`declare`)."""
        self._step()

    def feed(self, block) -> None:
        """Process the next block of audio (a :class:`~voicehost.audio.blocks.Block`)."""
        if self.done:
            return
        onsets = self.detector.process(block)
        self.clock = block.end / block.rate
        self._take(onsets, self.clock)
        self._step()

    def finish(self) -> DrakkarResult:
        """The audio ended (or the table quit): flush, then report the result."""
        if not self.done:
            onsets = self.detector.flush()
            self._take(onsets, self.clock)
            self._take([], self.clock + 2.0, finish=True)
            self.clock += 2.0
            self._step(final=True)
        if self._fast_forward:
            self._end_fast_forward()
        if not self.done:
            self.say("The recording ended before the voyage did.", self.clock, "end")
        return self.result()

    def result(self) -> DrakkarResult:
        return DrakkarResult(self.state, list(self.plays),
                             timing_summary(self.state.players, self.plays),
                             self.announcer.texts, list(self.refused), dict(self.heard))

    def say(self, text: str, t: float | None = None, kind: str = "info") -> None:
        self.announcer.say(text, self.clock if t is None else t, kind)

    # -- audio -----------------------------------------------------------------
    def _take(self, onsets, now: float, finish: bool = False) -> None:
        from voicehost.audio.onsets import FAINT, SLAP

        heard = [o for o in onsets if o.kind != FAINT]  # faint rises: the tracker's only
        self.heard["onsets"] += len(heard)
        self.onset_times.extend(o.t for o in heard)
        self.slaps.extend(o.t for o in heard if o.kind == SLAP)
        self._voice_onsets.extend(o.t for o in heard if o.kind != SLAP)
        self._onset_queue.extend(onsets)
        if finish:
            events = self.tracker.process(self._onset_queue, now - 2.0)
            events += self.tracker.finish(now - 2.0)
            self._onset_queue = []
            self._handle(events)
            return
        # The tracker is told the time on a fixed grid of the sample clock, with
        # the onsets decided by then, so its answers do not depend on the
        # block size of the source (a file, a sound card).
        while self._next_tick <= now + 1e-9:
            tick = self._next_tick
            batch = [o for o in self._onset_queue if (o.detected_t or o.t) <= tick + 1e-9]
            if batch:
                self._onset_queue = [o for o in self._onset_queue
                                     if (o.detected_t or o.t) > tick + 1e-9]
            self._handle(self.tracker.process(batch, tick))
            self._next_tick = round(tick + TICK, 6)

    def _handle(self, events) -> None:
        if self.tracker.bpm:
            self._period = 60.0 / self.tracker.bpm
        for e in events:
            name = type(e).__name__
            if name == "Beat":
                self.beat_index = e.index
            if name == "LastTum":
                self.last_tums.append(e.t)
                if e.card_t is not None:
                    self.struck_tums.append(e.card_t)
                    if self.stops_at_plays:
                        self._card_in_tum(e.card_t)
            elif name == "SongStopped":
                # Never the host's own doing: the tracker goes on through the
                # beats it could not hear while the host spoke (its ``deaf``).
                self.stops.append(e.t)
                self._tracker_events.append(e)
            elif name == "BarStart":
                self._bar_pending = e
            elif name == "Beat" and e.index == 0 and self._bar_pending is not None:
                # A bar counts once its first beat was heard (the tracker also
                # closes the bar it expected when the table stopped), or was
                # due while the host spoke over the song: the table sang it.
                if (e.heard or self._deaf_at(e.t)) and self._bar_pending.index == e.bar:
                    self.bar_starts.append(self._bar_pending.t)
                    self._tracker_events.append(self._bar_pending)
                self._bar_pending = None
            elif name in ("TempoChanged", "WrongSong"):
                self._tracker_events.append(e)
        self._tracker_events.sort(key=lambda e: e.t)
        if self.stops_at_plays:
            self._look_at_slaps()

    # -- voice declarations ------------------------------------------------------------
    def _near_last_tum(self, t: float) -> bool:
        beat = self._period or 0.5
        return any(abs(t - lt) <= NEAR_TUM_BEATS * beat for lt in self.last_tums)

    def _after_voice_play(self, t: float, beats: float) -> bool:
        """Whether a play's slap (on a last Tum) came up to ``beats`` before ``t``.

        Declaring by voice, the table stops at every play and the player speaks:
        the tracker may take that for a short bar or a stop, which is neither.
        """
        if not self.stops_at_plays:
            return False
        span = beats * (self._period or 0.5)
        return any(t - span <= s <= t + STOP_GRACE and self._near_last_tum(s)
                   for s in self.slaps)

    def _card_in_tum(self, t: float) -> None:
        """A card slapped with the last Tum at ``t``, heard as one onset with it: its slap.

        Players slap on the Tum, and a card slapped with it is often no slap
        of its own to the detector (47 of the 160 cards slapped 0 to 20 ms
        from the Tum in the committed chants, held-out seeds 1 to 8 and real
        voices seeds 1 to 4). Declaring by voice, such a play was never
        taken: the table stopped for it, and the host said the song had
        stopped. The slaps not yet looked at all come after ``t`` (a slap is
        looked at near a last Tum, or ``SETTLE`` seconds on), so it goes in
        among them.
        """
        if any(abs(s - t) <= CARD_IN_TUM for s in self.slaps):
            return
        at = bisect.bisect_right(self.slaps, t)  # the detector hands slaps out in time order
        if at >= self._slaps_looked:
            self.slaps.insert(at, t)

    def _look_at_slaps(self) -> None:
        """Take the slaps on a last Tum in the game as plays: the table stops there.

        The bars after a restart may be confirmed a few seconds late, so a
        slap waits up to ``SETTLE`` seconds for its phase to be known. Two
        slaps ``CARD_IN_TUM`` apart are one card.
        """
        while self._slaps_looked < len(self.slaps):
            s = self.slaps[self._slaps_looked]
            taken = any(abs(s - p) <= CARD_IN_TUM for p in self.play_slaps)
            if not taken and self.phase(s)[0] == GAME and self._near_last_tum(s):
                self.play_slaps.append(s)
                self._request_stop(s + 0.02)
            elif not taken and self.clock < s + SETTLE:
                return
            self._slaps_looked += 1

    @property
    def slaps_settled(self) -> int:
        """How many of :attr:`slaps` have been looked at (:attr:`play_slaps` is final up to there)."""
        return self._slaps_looked

    def _deaf_at(self, t: float) -> bool:
        """Whether the host was speaking (its onsets masked) at ``t``."""
        return self.mute is not None and self.mute.covers(t)

    def _step(self, final: bool = False) -> None:
        """Handle tracker events and ready declarations in time order."""
        # Declarations that have arrived: tell the tracker the song they make.
        if self._pending and self._arrived_upto < self._pending[0].t <= self.clock:
            self._arrived_upto = self._pending[0].t
            self._announce_song_early(self._pending[0])
        while not self.done:
            decl = self._pending[0] if self._pending else None
            event = self._tracker_events[0] if self._tracker_events else None
            if event is not None and (decl is None or event.t < decl.t):
                self._tracker_events.pop(0)
                self._on_tracker(event)
                continue
            if decl is not None and (final or self.clock >= decl.t + JUDGE_DELAY):
                self._pending.pop(0)
                self._on_declaration(decl)
                continue
            break

    def _announce_song_early(self, decl: Declaration) -> None:
        if decl.type == DISCARD or self.phase(decl.t)[0] != GAME:
            return
        if decl.player is None:  # a key press: the active player's
            decl = replace(decl, player=self.state.turn)
        card = self._card(decl, quiet=True)
        if card is None or drakkar.check_play(self.state, decl.player, card, decl.slot):
            return
        try:
            after, events = drakkar.play(self.state, decl.player, card, decl.slot, "on_beat")
        except drakkar.IllegalPlay:
            return
        if not drakkar.singing_stops(events):
            self._tell_song(after)

    def _tell_song(self, state: drakkar.DrakkarState) -> None:
        """Tell the tracker the song ``state`` leads to, so it expects that bar next."""
        song = drakkar.next_song(state)
        if song is not None:
            self.tracker.set_song(song.tums, song.reversed)

    # -- tracker events ----------------------------------------------------------
    def _on_tracker(self, e) -> None:
        name = type(e).__name__
        if name == "BarStart":
            self.heard["bars"] += 1
        elif name == "SongStopped":
            self.heard["stopped"] += 1
            previous = max((x for x in self.stops if x < e.t), default=-math.inf)
            requested = any(previous < r < e.t for r in self.stop_requests)
            song = self.state.song
            if requested or self._after_voice_play(e.t, 5.0):
                return
            if self._sung_since_restart(e.t):
                self.say(f"The song stopped: sing again, {song_words(song.tums, song.reversed)}.",
                         e.t, "song")
        elif name == "WrongSong":
            self.heard["wrong_song"] += 1
            if self._after_voice_play(e.t, 2.5):
                # The bar "began" on the slap of a play, or on its spoken
                # declaration: the table stopped, it sang no wrong song.
                return
            # Said once per mistake: again only if the table sings yet another
            # song, or after a play or a stop.
            key = (e.heard_tums, self.state.song.tums, len(self.plays), len(self.stops))
            if self.phase(e.t)[0] != STOPPED and key != self._last_wrong:
                self._last_wrong = key
                self.say(wrong_song_line(self.state, e.heard_tums), e.t, "song")
        elif name == "TempoChanged":
            self.heard["tempo"] += 1
            faster = "faster" if e.new_bpm > e.old_bpm else "slower"
            self.say(f"You are singing {faster}: {e.old_bpm:.0f} then {e.new_bpm:.0f} beats "
                     "a minute. Keep one tempo.", e.t, "song")

    def _sung_since_restart(self, t: float) -> bool:
        previous = max((s for s in self.stops if s < t), default=-math.inf)
        return any(previous < b <= t for b in self.bar_starts)

    # -- declarations --------------------------------------------------------------
    def _card(self, decl: Declaration, quiet: bool = False) -> Card | None:
        if decl.player not in self.state.hands:
            if not quiet:
                self._refuse(decl, f"{decl.player!r} is not playing.")
            return None
        card = resolve_card(self.state.hands[decl.player], decl.card)
        if card is None and not quiet:
            spoken = decl.card.replace(":", " ")
            self._refuse(decl, f"{_cap(decl.player)} has no {spoken}.")
        return card

    def _refuse(self, decl: Declaration, why: str) -> None:
        self.refused.append({**decl.to_dict(), "why": why})
        self.say(why, decl.t, "refusal")

    def _on_declaration(self, decl: Declaration) -> None:
        if decl.player is None:
            decl = replace(decl, player=self.state.turn)
        if decl.type == DISCARD:
            self._on_discard(decl)
            return
        phase, bars = self.phase(decl.t)
        if phase == STOPPED:
            self._refuse(decl, f"Not now, {_cap(decl.player)}: the song stopped; "
                               "warm up twice first.")
            return
        if phase == WARMUP and bars == 0:
            # Nothing heard since the (re)start may be a table the host cannot
            # hear over the room (chatter as loud as the singing): "warm-up
            # song one" would tell it to go on as it is.
            song = self.state.song
            self._refuse(decl, f"Not yet, {_cap(decl.player)}: I have not heard the song "
                               f"yet. Sing {song_words(song.tums, song.reversed)}, louder "
                               "than the room, and play on the third.")
            return
        if phase == WARMUP:
            self._refuse(decl, f"Not yet, {_cap(decl.player)}: warm-up song "
                               f"{WORDS[bars]}; play on the third.")
            return
        card = self._card(decl)
        if card is None:
            return
        if self.state.pending_discards:
            self._default_discards(decl.t)
        reason = drakkar.check_play(self.state, decl.player, card, decl.slot)
        if reason:
            self._refuse(decl, reason)
            return
        verdict = None
        journalled = self._next_resumed("play")
        if journalled is not None:
            timing = journalled["timing"]
            verdict = _verdict_from(journalled)
        else:
            verdict = self._judge(decl.t, card_before=decl.source != "phone")
            if decl.began is not None and verdict.timed_by == "declaration":
                # Its card may be nearer the key that began it (see Declaration).
                first = self._judge(decl.began)
                if first.timed_by == "slap":
                    verdict = first
            if (verdict.verdict in ("early", "late") and verdict.timed_by != "deaf"
                    and self.tracker.unsure and not self._deaf_at(verdict.t)):
                # A card heard after the host's voice, judged on bars gone on under
                # it and not yet heard in time again: the table may have begun
                # again on a beat of its own. (A card under the voice has had the
                # benefit of the doubt already, see Judge.judge, and a phone's tap
                # there is judged on the bars gone on, the best the host has.)
                self._refuse(decl, f"Not now, {_cap(decl.player)}: I could not hear the song "
                                   "while I spoke. Play again on a last Tum.")
                return
            timing = drakkar.ON_BEAT if verdict.verdict == "on_beat" else drakkar.OFF_BEAT
            event = drakkar.play_event(decl.player, card, decl.slot, timing)
            # declared_t: the time judged from (a key-typed play's card key, when
            # its card was heard near that), so `voicehost judge` gives the same.
            event.update({"t": round(verdict.t, 4), "declared_t": round(verdict.declared_t, 4),
                          "verdict": verdict.verdict,
                          "offset_ms": None if verdict.offset_ms is None
                          else round(verdict.offset_ms, 1),
                          "last_tum": verdict.last_tum, "timed_by": verdict.timed_by,
                          "clock": round(self.clock, 4), "source": decl.source})
            self._journal(event)
        before = self.state
        try:
            self.state, events = drakkar.play(self.state, decl.player, card, decl.slot, timing)
        except drakkar.IllegalPlay as refusal:  # checked above; kept for safety
            self._refuse(decl, refusal.reason)
            return
        mistake = next((e.kind for e in events if isinstance(e, drakkar.Mistake)), None)
        stops = drakkar.singing_stops(events)
        self.plays.append(JudgedPlay(verdict.t if verdict else decl.t, decl.player, str(card),
                                     decl.slot, timing, verdict, mistake, stops))
        self._announce_play(before, decl, card, verdict, events)
        if stops and not self.state.is_over:
            self._request_stop(decl.t)
        self._tell_song(self.state)
        self._check_resume_done()

    def _judge(self, t: float, card_before: bool = True) -> Verdict:
        """The judge's verdict, with the onsets off the chant's grid and the struck last Tums.

        ``card_before``: the declaration comes after the card (a key press, a
        word): a card the host's voice masked may lie before it. A phone's tap
        is the play itself, and times it wherever the host could not hear.
        """
        grid = self.tracker.on_grid
        off_grid = [o for o in self._voice_onsets
                    if abs(o - t) <= 2 * SLAP_SEARCH and o not in grid]
        deaf = self.mute.spans() if self.mute is not None and card_before else ()
        return self.judge.judge(t, Heard(self.last_tums, self.slaps, self.stops, off_grid,
                                         self.struck_tums, deaf))

    def _on_discard(self, decl: Declaration) -> None:
        card = self._card(decl)
        if card is None:
            return
        try:
            drakkar.discard(self.state, decl.player, card)
        except drakkar.IllegalPlay as refusal:
            self._refuse(decl, refusal.reason)
            return
        if self._next_resumed("discard") is None:
            event = drakkar.discard_event(decl.player, card)
            event.update({"t": round(decl.t, 4), "clock": round(self.clock, 4)})
            self._journal(event)
        self.state, events = drakkar.discard(self.state, decl.player, card)
        for e in events:
            self.say(e.say(), decl.t, "rules")
        self._check_resume_done()

    def _default_discards(self, t: float) -> None:
        after, events = drakkar.default_discards(self.state)
        for e in events:
            if self._next_resumed("discard") is None:
                ev = drakkar.discard_event(e.player, e.card)
                ev.update({"t": round(t, 4), "clock": round(self.clock, 4), "default": True})
                self._journal(ev)
        self.state = after
        for e in events:
            self.say(f"{_cap(e.player)} drops the card received last.", t, "rules")

    def _request_stop(self, t: float) -> None:
        self.tracker.expect_stop(t)  # the song does not go on under the host's "Stop!"
        # Already silent (the stop came before the play, and no bar since): nothing to wait for.
        last_stop = max(self.stops, default=-math.inf)
        if last_stop < t and not any(b > last_stop for b in self.bar_starts):
            return
        self.stop_requests.append(t)

    # -- speaking ----------------------------------------------------------------
    def introduce(self) -> None:
        """Say who plays, who starts and the song (when ``intro=False`` was given)."""
        self._intro()

    def _intro(self) -> None:
        s = self.state
        names = ", ".join(_cap(p) for p in s.players[:-1]) + f" and {_cap(s.players[-1])}"
        song = s.song
        self.say(f"Drakkar Tum Tum: {names}. {_cap(s.turn)} starts. Warm up twice, play on the "
                 f"third song: {song_words(song.tums, song.reversed)}.",
                 0.0, "intro")

    def _announce_play(self, before: DrakkarState, decl: Declaration, card: Card,
                       verdict: Verdict | None, events: list) -> None:
        t = decl.t
        name = _cap(decl.player)
        mistake = next((e for e in events if isinstance(e, drakkar.Mistake)), None)
        lines: list[str] = []
        if mistake is not None:
            if mistake.kind == drakkar.OUT_OF_TURN:
                lines.append(f"Stop! Not {name}'s turn: the card stays, but {name} draws none.")
            elif verdict is not None and verdict.verdict == "late":
                lines.append(f"Too late, {name} keeps the card but draws none.")
            elif verdict is not None and verdict.verdict == "early":
                lines.append(f"Too early, {name} keeps the card but draws none.")
            else:
                lines.append(f"Stop! No song was going: the card stays, but {name} draws none.")
        changed = next((e for e in events if isinstance(e, drakkar.SongChanged)), None)
        island = [e for e in events if isinstance(e, drakkar.IslandRevealed)]
        for e in events:
            if isinstance(e, (drakkar.CardDrawn, drakkar.NoDraw, drakkar.Mistake,
                              drakkar.SongChanged, drakkar.NextPlayer, drakkar.CardPlayed,
                              drakkar.GameWon, drakkar.GameLost)):
                continue
            if isinstance(e, drakkar.IslandRevealed):
                lines.append(f"Lookout! {e.say()}")
                continue
            if isinstance(e, drakkar.ShipCleared):
                continue  # said with the restart below
            lines.append(e.say())
        if changed is not None and not island:
            kind = card.kind.value
            what = card.spoken[:1].upper() + card.spoken[1:]
            if kind in ("goblin", "kraken", "dragon"):
                lines.append(f"{_cap(card.spoken)}! Now {song_words(changed.tums, changed.reversed)}.")
            else:
                lines.append(f"{what} covers the danger! Now "
                             f"{song_words(changed.tums, changed.reversed)}.")
        elif mistake is None and not island:
            lines.insert(0, f"{name}: {card.spoken} on {decl.slot}.")
        over = self.state.is_over
        if not over and (mistake is not None or island):
            song = self.state.song
            cleared = "Ship cleared. " if island else ""
            lines.append(f"{cleared}Warm up twice: {song_words(song.tums, song.reversed)}. "
                         f"{_cap(self.state.turn)} first.")
        elif not over and any(isinstance(e, drakkar.TurnReversed) for e in events) and not any(
                isinstance(e, drakkar.ExtraTurn) for e in events):
            lines.append(f"{_cap(self.state.turn)}, your turn.")
        stopping = mistake is not None or bool(island)
        for line in lines:
            kind = "stop" if stopping else "play"
            if line.startswith(("Kraken!", "Goblin!", "Dragon!")) or "covers the danger" in line:
                kind = "stop" if stopping else "song_change"
            self.say(line, t, kind)
        if over:
            self._announce_end(t)
        elif not drakkar.legal_plays(self.state, self.state.turn) and not self.state.pending_discards:
            self.say(f"{_cap(self.state.turn)}, none of your cards can go on the ship: another "
                     "player may play out of turn to change it (no draw for them).", t, "hint")

    def _announce_end(self, t: float) -> None:
        s = self.state
        if s.result == drakkar.WON:
            self.say("The crew has won the voyage!", t, "end")
        else:
            self.say(f"The voyage is lost. {s.reason or ''}".strip(), t, "end")
        for timing in timing_summary(s.players, self.plays):
            self.say(timing.say(), t, "timing")

    # -- journal and resume --------------------------------------------------------
    def _journal(self, event: dict[str, Any]) -> None:
        if self.journal is not None:
            self.journal.append(event)

    def _next_resumed(self, kind: str) -> dict | None:
        if not self._resume:
            return None
        event = self._resume[0]
        if event.get("type") != kind:
            return None
        return self._resume.pop(0)

    def _check_resume_done(self) -> None:
        if self._fast_forward and not self._resume:
            self._end_fast_forward()

    def _end_fast_forward(self) -> None:
        self._fast_forward = False
        self.announcer.silent = False
        if self._resume_state is not None and (
                self._resume or drakkar.state_to_dict(self._resume_state)
                != drakkar.state_to_dict(self.state)):
            # The journal is the truth: the recording (or this version of the
            # pipeline) did not lead to the same plays.
            self.state = self._resume_state
            self._resume = []
            self.say("The recording and the journal disagree; continuing from the journal.",
                     self.clock, "resume")
            self._tell_song(self.state)
        s = self.state
        plays = len(self.plays)
        hands = ", ".join(f"{_cap(p)} {len(s.hands[p])}" for p in s.players)
        song = s.song
        self.say(f"Resuming the voyage after {plays} plays: {len(s.islands_found)} of 3 "
                 f"islands found, cards in hand: {hands}. The song is "
                 f"{song_words(song.tums, song.reversed)}. {_cap(s.turn)} plays next.",
                 self.clock, "resume")


def _verdict_from(event: dict) -> Verdict | None:
    if "verdict" not in event:
        return None
    return Verdict(float(event.get("t", 0.0)), event.get("last_tum"), event.get("offset_ms"),
                   event["verdict"], float(event.get("declared_t", event.get("t", 0.0))),
                   event.get("timed_by", "declaration"))


# -- running a recording -----------------------------------------------------------
def state_for(setup: dict[str, Any] | None, players: Sequence[str] | None, seed: int,
              variant: str | None = None) -> DrakkarState:
    """The starting state: the sidecar's printed deck, or a digital deal from ``seed``."""
    if setup is not None:
        try:
            return drakkar.from_setup(setup["players"], setup["deck"], setup["islands"],
                                      setup.get("variant"))
        except (KeyError, ValueError) as exc:
            raise DeclarationError(f"the declarations' setup cannot be played: {exc}") from None
    if not players:
        raise DeclarationError("name the players (--players ann,bo) or give a setup.")
    try:
        return drakkar.new_game(list(players), random.Random(seed), variant)
    except ValueError as exc:
        raise DeclarationError(str(exc)) from None


def host_header(state: DrakkarState, run: dict[str, Any]) -> dict[str, Any]:
    """The journal header: the setup (as a record) plus how the host was run."""
    record = drakkar.setup_record(state)
    record.pop("events", None)
    record.pop("game", None)
    record["host"] = run
    return record


def run_recording(wav: str | Path, sidecar: str | Path | None, announcer: Announcer,
                  journal=None, seed: int = 0, players: Sequence[str] | None = None,
                  windows: str | float = "normal", resume_events: Sequence[dict] | None = None,
                  journal_path: str | Path | None = None, on_block=None,
                  pace: float | None = None, voice: bool = False,
                  setup: dict[str, Any] | None = None, recognizer=None) -> DrakkarResult:
    """Host a whole game from a recording and its declarations sidecar.

    The recording goes through the same pipeline as live play (file source,
    onset detector, chant tracker, judge). ``journal`` is an open journal to
    append to; alternatively ``journal_path`` creates one (its header records
    the WAV, the sidecar and the seed so ``voicehost resume`` can continue).
    ``pace`` plays the recording at that many times real time (presentation
    only: every decision uses the sample clock); ``None`` goes as fast as it can.
    ``voice`` takes the declarations spoken in the recording instead of a
    sidecar (:mod:`voicehost.hosts.drakkar_voice`), with ``recognizer`` (default:
    the best installed); ``setup`` is the printed deck (a game record) when
    there is no sidecar.
    """
    from voicehost.audio.sources import FileSource

    source = FileSource(wav)
    print_notes(source.notes)
    side = load_sidecar(sidecar) if sidecar is not None else None
    resume_state = None
    if resume_events is not None and journal is not None:
        state = drakkar.from_setup(journal.header["players"], journal.header["deck"],
                                   journal.header["islands"], journal.header.get("variant"))
        resume_state = drakkar.replay(journal.to_record()).state
    else:
        state = state_for(side.setup if side else setup, players, seed)
    if journal is None and journal_path is not None:
        from voicehost.journal import Journal

        run = {"mode": "recording", "input": str(Path(wav).resolve()),
               "declarations": None if sidecar is None else str(Path(sidecar).resolve()),
               "seed": seed, "windows": windows, "pace": pace,
               "declare": "voice" if voice else "sidecar"}
        journal = Journal.create(journal_path, "drakkar", host_header(state, run))
    host = DrakkarHost(state, announcer, journal, windows=windows, rate=source.rate,
                       resume_events=resume_events, resume_state=resume_state)
    for decl in (side.declarations if side else []):
        if decl.player is not None and decl.player not in state.players:
            raise DeclarationError(f"a declaration names player {decl.player!r}, who is not "
                                   f"among the players ({', '.join(state.players)}).")
        host.declare(decl)
    created = journal_path is not None and resume_events is None
    blocks = _paced(source.blocks(), pace, host)
    try:
        if voice:
            from voicehost.hosts.drakkar_voice import VoiceDeclarations
            from voicehost.speech.recognizer import open_recognizer

            ears = VoiceDeclarations(host, recognizer or open_recognizer("auto"),
                                     on_block=on_block)
            return ears.run(blocks)
        for block in blocks:
            host.feed(block)
            if on_block is not None:
                on_block(host)
            if host.done:
                break
        return host.finish()
    finally:
        if created and journal is not None:
            journal.close()


def _paced(blocks, pace: float | None, host):
    """The blocks, at ``pace`` times real time when given (presentation only).

    While the host fast-forwards (resume) they come at once, and the pace
    starts again from where it ends.
    """
    import time

    wall0 = time.monotonic()
    for block in blocks:
        if pace and not host.fast_forwarding:
            ahead = block.t / pace - (time.monotonic() - wall0)
            if ahead > 0:
                time.sleep(ahead)
        elif host.fast_forwarding and pace:
            wall0 = time.monotonic() - block.t / pace
        yield block
