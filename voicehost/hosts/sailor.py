"""The Sunken Sailor host: the table's answers, the rules and the voice.

The host is a sequence of questions on the sample clock. Each question
consumes the audio of one source (a recording or the microphone) through
:class:`~voicehost.hosts.sailor_listen.Ears` until it has an answer or its
time runs out, so the same code hosts a recorded match and a live table,
and every time limit (a drawing turn, the accusation minute and its
warnings, the wait for a vote) is a length of audio, never wall time.

Decisions where the issue and design leave room (documented in the README):

* **Printed cards** (``--cards printed``, the default for recordings): the
  table deals its own envelope, so the host knows neither the word nor the
  Drunken Sailor. After the vote it asks the Drunken Sailor to reveal their
  colour (confirmed with yes or no), and after an unmasked sailor's guess it
  asks the sailors whether the guess was right. The journal and the record
  then hold :data:`PRINTED_WORD` as the word.
* **Private cards** (``--cards private``): the host deals from its own deck
  with a generator seeded by ``--seed`` and the round number, shows each card
  by pass-and-peek in the terminal, and judges the guess itself (recognised
  with the deck's word bank, confirmed by the guesser).
* **Phones** (``--cards phones``): dealt like private cards, and each role
  goes to its player's phone through the ``deliver`` hook (the companion).
* **The starter** ("most recently at sea") is picked by the same seeded
  generator; the host says who it is.
* **Votes** are taken in seat order: "Red, who do you accuse?", then "Red
  accuses Blue. Right?"; "no" asks again (a corrected vote). Silence or
  speech the question does not accept is asked again up to ``tries`` times;
  then the vote counts as no vote, and the host says so.
* **Journal.** Every decision (deal, each drawing turn, the end of the
  accusation time, each confirmed vote, the reveal, the guess, the scored
  round) is appended, with the sample clock ``t`` at which it was decided,
  before the host acts on it. Unconfirmed answers are not decisions: after
  a crash they are asked again. Resuming a recording replays the journal
  silently and goes on from the audio after the last journalled ``t``;
  resuming live asks the pending question again.

Journal events (after the header: players, target, and ``host``: cards,
seed, time limits, backend, mode, input, start_t), each with ``t``::

    {"type": "deal", "round": n, "starter": name}            (+ "word", "sailor" when private)
    {"type": "turn", "round": n, "turn": k, "player": name, "how": "done" | "timeout"}
    {"type": "vote_called", "round": n}                      (the accusation time is over)
    {"type": "vote", "round": n, "voter": name, "suspect": name | null, "corrected": bool}
    {"type": "reveal", "round": n, "sailor": name}           (printed cards only)
    {"type": "guess", "round": n, "guess": word | null}      (+ "right" with printed cards)
    {"type": "round", "round": round_to_dict(...)}           (what journal_to_record collects)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from voicehost.errors import VoicehostError, print_notes
from voicehost.games import sailor
from voicehost.games.sailor import Player
from voicehost.hosts.announce import Announcer
from voicehost.hosts.microphone import MICROPHONE_LOST

#: The word the journal and record hold for a round played with printed cards.
PRINTED_WORD = "printed card"
CARDS = ("printed", "private", "phones")
NUMBERS = {0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six",
           7: "seven", 8: "eight"}


class UsageError(VoicehostError):
    """Options that do not make a game."""


class AudioEnded(Exception):
    """The recording ran out before the match was over."""


@dataclass
class SailorSettings:
    """How a match is hosted (the command line's options)."""

    players: list[Player] | None = None
    target: int = sailor.TARGET
    cards: str = "printed"
    seed: int = 0
    turn_seconds: float = 30.0
    accuse_seconds: float = 60.0
    listen_seconds: float = 10.0
    tries: int = 3
    backend: str = "auto"

    def __post_init__(self) -> None:
        if self.cards not in CARDS:
            raise UsageError(f"--cards must be printed, private or phones, not {self.cards!r}.")
        for name in ("turn_seconds", "accuse_seconds", "listen_seconds"):
            if getattr(self, name) <= 0:
                raise UsageError(f"--{name.replace('_', '-')} must be more than 0 seconds.")
        if self.tries < 1:
            raise UsageError("the number of tries must be at least 1.")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise UsageError(f"--target must be a whole number of points of at least 1, "
                             f"not {self.target!r}.")

    def to_dict(self) -> dict[str, Any]:
        return {"cards": self.cards, "seed": self.seed, "turn_seconds": self.turn_seconds,
                "accuse_seconds": self.accuse_seconds, "listen_seconds": self.listen_seconds,
                "tries": self.tries, "backend": self.backend}

    @classmethod
    def from_header(cls, header: dict[str, Any]) -> "SailorSettings":
        host = header.get("host") or {}
        players = [Player(p["name"], p["colour"]) for p in header.get("players") or []]
        return cls(players=players or None, target=int(header.get("target", sailor.TARGET)),
                   cards=host.get("cards", "printed"), seed=int(host.get("seed", 0)),
                   turn_seconds=float(host.get("turn_seconds", 30.0)),
                   accuse_seconds=float(host.get("accuse_seconds", 60.0)),
                   listen_seconds=float(host.get("listen_seconds", 10.0)),
                   tries=int(host.get("tries", 3)), backend=host.get("backend", "auto"))


def parse_players(text: str) -> list[Player]:
    """``ann:red,bo:blue,cy:green`` (name:colour, seat order) -> players.

    A bare colour (``red,blue,green``) names the player "Player N" after the
    seat, since a name may not be a colour.
    """
    items = [p.strip() for p in (text or "").split(",") if p.strip()]
    if not items:
        raise UsageError("give the players as name:colour in seat order, "
                         "e.g. --players ann:red,bo:blue,cy:green.")
    players = []
    for seat, item in enumerate(items, start=1):
        if item.count(":") > 1:
            raise UsageError(f"'{item}' is not name:colour; give e.g. --players ann:red,bo:blue,cy:green.")
        name, _, colour = item.rpartition(":")
        if not name and colour.strip().casefold() not in sailor.COLOURS:
            raise UsageError(f"'{item}' is neither name:colour nor a pencil colour; give e.g. "
                             f"--players ann:red,bo:blue,cy:green (colours: "
                             f"{', '.join(sailor.COLOURS)}).")
        name = name.strip() or f"Player {seat}"
        players.append(Player(name, colour.strip()))
    return list(sailor.validate_players(players))


def _seconds(s: float) -> str:
    s = int(round(s))
    if s == 60:
        return "one minute"
    if s % 60 == 0:
        return f"{s // 60} minutes"
    return f"{s} seconds"


def _names(players: Sequence[Player]) -> str:
    labels = [f"{p.label} ({p.name})" for p in players]
    return ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else labels[0]


def round_rng(seed: int, number: int) -> random.Random:
    """The generator for round ``number``: the same deal whether or not the game was resumed."""
    return random.Random(f"sailor:{seed}:{number}")


def suspect_question(players: Sequence[Player], exclude: Player | None = None) -> Any:
    """Who is accused (or revealed): a colour, a name or a seat number."""
    from voicehost.speech.grammar import Question

    choices, aliases = [], {}
    for seat, p in enumerate(players, start=1):
        if p == exclude:
            continue
        choices.append(p.colour)
        names = [NUMBERS[seat]]
        if not p.name.lower().startswith("player "):
            names.append(p.name)
        aliases[p.colour] = names
    return Question.build(choices, aliases=aliases, name="suspect")


@dataclass
class RoundState:
    """The host's side of the round in progress (the rules' round may not exist yet)."""

    number: int
    starter: Player
    order: tuple[Player, ...]
    turn: int = 0
    votes: dict[Player, Player | None] = field(default_factory=dict)
    sailor: Player | None = None
    rules: sailor.Round | None = None
    accusation_start: float | None = None
    phase: str = "drawing"


@dataclass
class SailorResult:
    """How a hosted match went: the match, what was said, what was heard."""

    match: sailor.Match
    lines: list[str]
    heard: list[dict[str, Any]]
    completed: bool

    @property
    def scores(self) -> dict[str, int]:
        return {p.name: self.match.scores[p] for p in self.match.players}

    @property
    def winners(self) -> list[str]:
        return [p.name for p in self.match.winners]

    def to_dict(self) -> dict[str, Any]:
        return {"over": self.match.over, "completed": self.completed,
                "scores": self.scores, "winners": self.winners,
                "record": sailor.match_to_dict(self.match), "heard": self.heard}


class SailorHost:
    """Hosts one match: asks, listens, applies the rules, journals, speaks.

    Parameters
    ----------
    settings
        Players, target, cards and time limits.
    announcer
        Says (or prints) every line.
    ears
        :class:`~voicehost.hosts.sailor_listen.Ears` on the source.
    journal
        Optional open :class:`~voicehost.journal.Journal`.
    resume_events
        Journal events already decided: taken from here, silently, in order.
    skip_audio
        When resuming a recording: after the replay, move the audio to the
        last journalled time (live, the new session's clock starts afresh).
    keys, screen
        Where pass-and-peek reads Enter and shows the cards (private cards).
    deliver
        Another private channel for the roles, ``deliver(roles, word)`` (the
        companion phones); default: pass-and-peek on ``keys``/``screen``.
    start_t
        Where the match starts on the sample clock (after registration by
        voice); a resumed recording with no decision yet skips to it.
    now
        Live: the sample clock of the microphone right now. The host has
        consumed audio only up to the end of the last answer, so lines are
        stamped (and the voice's mute window placed) at the later of the two.
    """

    def __init__(self, settings: SailorSettings, announcer: Announcer, ears: Any,
                 journal: Any = None, resume_events: Sequence[dict] | None = None,
                 skip_audio: bool = True, keys: TextIO | None = None,
                 screen: TextIO | None = None,
                 on_status: Callable[["SailorHost"], None] | None = None,
                 deliver: Callable[[list[sailor.RoleDealt], str], None] | None = None,
                 start_t: float = 0.0, now: Callable[[], float] | None = None):
        if not settings.players:
            raise UsageError("no players: give --players name:colour,... or register by voice.")
        self.settings = settings
        self.match = sailor.Match(tuple(settings.players), target=settings.target)
        self.announcer = announcer
        self.ears = ears
        self.journal = journal
        self.keys = keys
        self.screen = screen
        self.on_status = on_status
        self.round: RoundState | None = None
        self._resume = list(resume_events or [])
        self._skip_audio = skip_audio
        self._start_t = float(start_t)
        self._last_t = float(start_t)
        self.deliver = deliver
        #: The round in progress at a resume, to deliver when the replay ends.
        self._owed_roles: tuple[list[sailor.RoleDealt], str] | None = None
        self._now = now
        #: What the table is being asked, said again when the microphone is back.
        self._asking: str | None = None
        self.resumed = bool(self._resume)
        if self._resume:
            announcer.silent = True

    # -- small helpers ---------------------------------------------------------------
    @property
    def clock(self) -> float:
        return self.ears.clock if not self._resume else self._last_t

    @property
    def replaying(self) -> bool:
        return bool(self._resume)

    @property
    def live(self) -> bool:
        """Listening to a microphone now (not a recording, not replaying a journal)."""
        return self._now is not None and not self._resume

    def say(self, text: str, kind: str = "info") -> None:
        if self.live:
            say_live(self.announcer, self.ears, self._now, text, kind)
        else:
            self.announcer.say(text, self.clock, kind)
        self._status()

    def _status(self) -> None:
        if self.on_status is not None:
            self.on_status(self)

    def _decide(self, kind: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The next decision of ``kind``: from the journal when resuming, else made now.

        A new decision is journalled (fsync'd) before it is returned, so the
        host acts only on what is on disk.
        """
        if self._resume:
            event = self._resume[0]
            if event.get("type") != kind:
                raise VoicehostError(
                    f"the journal does not match this game: expected a {kind!r} event, "
                    f"found {event.get('type')!r}; it cannot be resumed.")
            self._resume.pop(0)
            self._last_t = float(event.get("t", self._last_t))
            if not self._resume:
                self._end_replay()
            return event
        event = {"type": kind, **make()}
        event.setdefault("t", self.ears.clock)  # exact: a resumed recording goes on from this sample
        if self.journal is not None:
            self.journal.append(event)
        return event

    def _end_replay(self) -> None:
        self.announcer.silent = False
        if self._skip_audio:
            self.ears.wait_until(self._last_t)
        scores = ", ".join(f"{p.label} {n}" for p, n in self.match.standings())
        where = f"round {self.round.number}" if self.round else "the match"
        self.say(f"Resuming {where}. Scores: {scores}.", "resume")
        if self._owed_roles is not None and self.deliver is not None:
            roles, word = self._owed_roles
            self._owed_roles = None
            self.deliver(roles, word)

    def _check_audio(self) -> None:
        if self.ears.ended:
            raise AudioEnded()

    # -- asking ----------------------------------------------------------------------
    def device_outage(self, gone: bool) -> None:
        """The ears' ``on_outage``: the microphone went away, or is back and the question stands."""
        if gone:
            self.say(MICROPHONE_LOST, "device")
        else:
            self.say(" ".join(["I hear you again.", *([self._asking] if self._asking else [])]),
                     "device")

    def ask(self, prompt: str, question: Any, label: str) -> Any | None:
        """Ask until an accepted answer, at most ``tries`` times; None if none came."""
        for attempt in range(self.settings.tries):
            self.say(prompt if attempt == 0 else f"Sorry, I did not catch that. {prompt}",
                     "question")
            self._asking = prompt
            answer = self.ears.hear(question, self.ears.clock + self.settings.listen_seconds,
                                    label)
            if answer is None:
                self._check_audio()
                continue
            if answer.choice is not None:
                return answer
            self._check_audio()
        return None

    def yes_no(self, prompt: str, label: str) -> bool | None:
        from voicehost.speech.grammar import Question

        answer = self.ask(prompt, Question.yes_no(), label)
        return None if answer is None else answer.choice == "yes"

    # -- the match ---------------------------------------------------------------------
    def run(self) -> SailorResult:
        completed = True
        if not self._resume and self._skip_audio and self.ears.clock < self._start_t:
            self.ears.wait_until(self._start_t)
        try:
            self.say(f"Sunken Sailor with {_names(self.match.players)}. First to "
                     f"{self.match.target} point{'s' if self.match.target != 1 else ''} wins.",
                     "intro")
            while not self.match.over:
                self.play_round()
        except AudioEnded:
            completed = False
            if self.replaying:
                self.announcer.silent = False
            self.say("The recording ended before the match did.", "end")
        return self.result(completed)

    def result(self, completed: bool = True) -> SailorResult:
        return SailorResult(self.match, self.announcer.texts, list(self.ears.heard), completed)

    def play_round(self) -> None:
        number = len(self.match.rounds) + 1
        self._deal(number)
        while self.round.turn < len(self.round.order):
            self._drawing_turn()
        self._accusations()
        for voter in self.match.players:
            self._vote(voter)
        self._unmask()
        rnd = self.round.rules
        assert rnd is not None
        if rnd.phase is sailor.Phase.GUESS:
            self._guess()
        self._score()

    # -- deal ----------------------------------------------------------------------------
    def _deal(self, number: int) -> None:
        rng = round_rng(self.settings.seed, number)
        players = self.match.players
        starter = rng.choice(players)
        private = self.settings.cards != "printed"  # the host deals (screen or phones)
        rules = None
        if private:
            probe = sailor.Match(players, self.match.envelopes, self.match.target,
                                 used=list(self.match.used), passes=self.match.passes)
            rules_probe = sailor.start_round(probe, rng, starter)

        def make() -> dict[str, Any]:
            event: dict[str, Any] = {"round": number, "starter": starter.name}
            if private:
                event.update(word=rules_probe.word, sailor=rules_probe.sailor.name)
            return event

        event = self._decide("deal", make)
        starter = self.match.player(event["starter"])
        if private:
            envelope = next((e for e in self.match.envelopes or ()
                             if e.word == event["word"]), sailor.Envelope(event["word"]))
            rules = sailor.start_round(self.match, round_rng(self.settings.seed, number),
                                       starter, envelope=envelope, sailor=event["sailor"])
        order = tuple(players[players.index(starter):]) + tuple(players[:players.index(starter)])
        self.round = RoundState(number, starter, order + order, rules=rules,
                                sailor=rules.sailor if rules else None)
        if private:
            opening = [e for e in rules.events if e.public and not isinstance(e, sailor.TurnCalled)]
            for e in opening:
                if isinstance(e, sailor.RoundStarted):
                    self.say(e.say(), "round")
            roles = [e for e in rules.events if isinstance(e, sailor.RoleDealt)]
            if not self.replaying:
                if self.deliver is not None:
                    self.deliver(roles, rules.word)
                else:
                    self._peek(roles)
            elif self.deliver is not None:
                # Resumed in the middle of this round: the phones that join the
                # new companion have no role yet; send it once the replay is over.
                self._owed_roles = (roles, rules.word)
        else:
            self.say(f"Round {number}. Deal a new envelope, one secret card each. "
                     f"{starter.label} was last at sea and draws first.", "round")
        if self.live:
            # What the table said while the cards went round (at the screen, or
            # while the phones were waited for) answers nothing: listen from now.
            self.ears.catch_up(self._now())

    def _peek(self, roles: list[sailor.RoleDealt]) -> None:
        from voicehost.hosts.sailor_deal import pass_and_peek

        pause = getattr(self.on_status, "pause", None)  # the large view steps aside
        if pause is not None:
            pause()
        try:
            pass_and_peek(roles, lambda text: self.say(text, "deal"), self.keys, self.screen)
        finally:
            if pause is not None:
                self.on_status.resume()

    # -- drawing ---------------------------------------------------------------------------
    def _drawing_turn(self) -> None:
        from voicehost.speech.grammar import Question

        r = self.round
        player = r.order[r.turn]
        self.say(sailor.TurnCalled(player, r.turn + 1, len(r.order)).say(), "turn")
        self._asking = f"{player.label}, say done when you have drawn."

        def make() -> dict[str, Any]:
            deadline = self.ears.clock + self.settings.turn_seconds
            paused = self.ears.paused
            how = "timeout"
            while True:
                # A microphone outage does not eat into the turn.
                answer = self.ears.hear(Question.done(), deadline + self.ears.paused - paused,
                                        f"done:{player.colour}")
                if answer is None:
                    self._check_audio()
                    break
                if answer.choice == "done":
                    how = "done"
                    break
                self._check_audio()
            return {"round": r.number, "turn": r.turn + 1, "player": player.name, "how": how}

        event = self._decide("turn", make)
        if event["how"] == "timeout":
            self.say(f"Time is up, {player.label}.", "turn")
        r.turn += 1
        if r.rules is not None:
            r.rules.done_drawing()
        self._status()

    # -- accusations and the vote ---------------------------------------------------------
    def _accusations(self) -> None:
        r = self.round
        r.phase = "accusations"
        self._asking = None  # nobody is asked anything while the table argues
        length = self.settings.accuse_seconds
        r.accusation_start = self.clock
        self.say(f"{sailor.AccusationsStarted().say()} You have {_seconds(length)}.", "timer")

        def make() -> dict[str, Any]:
            start = self.ears.clock
            r.accusation_start = start
            for left in (30, 10):
                if length > left + 1:
                    self.ears.wait_until(start + length - left)
                    self._check_audio()
                    self.say(f"{_seconds(left).capitalize()} left.", "timer")
            self.ears.wait_until(start + length)
            self._check_audio()
            return {"round": r.number}

        self._decide("vote_called", make)
        r.phase = "voting"
        if r.rules is not None:
            r.rules.start_vote()
        self.say("Time is up. " + sailor.VotingStarted().say(), "vote")

    def _vote(self, voter: Player) -> None:
        r = self.round

        def make() -> dict[str, Any]:
            question = suspect_question(self.match.players)
            prompt = f"{voter.label}, who do you accuse?"
            corrected = False
            for _ in range(self.settings.tries):
                answer = self.ask(prompt, question, f"vote:{voter.colour}")
                if answer is None:
                    break
                suspect = self.match.player(answer.choice)
                ok = self.yes_no(f"{voter.label} accuses {suspect.label}. Right?",
                                 f"confirm:{voter.colour}")
                if ok:
                    return {"round": r.number, "voter": voter.name, "suspect": suspect.name,
                            "corrected": corrected}
                corrected = True
                prompt = f"Then, {voter.label}, who do you accuse?"
            return {"round": r.number, "voter": voter.name, "suspect": None,
                    "corrected": corrected}

        event = self._decide("vote", make)
        suspect = None if event["suspect"] is None else self.match.player(event["suspect"])
        r.votes[voter] = suspect
        if suspect is None:
            self.say(f"No vote from {voter.label}: it counts as a vote for nobody.", "vote")
        elif r.rules is not None:
            r.rules.cast_vote(voter, suspect)
        if suspect is not None and event.get("corrected"):
            self.say(f"Corrected: {voter.label} accuses {suspect.label}.", "vote")
        self._status()

    # -- unmasking, guess, score ----------------------------------------------------------
    def _unmask(self) -> None:
        r = self.round
        r.phase = "counting"
        if r.rules is None:
            event = self._decide("reveal", self._ask_reveal)
            r.sailor = self.match.player(event["sailor"])
            rules = sailor.start_round(self.match, round_rng(self.settings.seed, r.number),
                                       r.starter, envelope=sailor.Envelope(PRINTED_WORD),
                                       sailor=r.sailor)
            while rules.phase is sailor.Phase.DRAWING:
                rules.done_drawing()
            rules.start_vote()
            for voter, suspect in r.votes.items():
                if suspect is not None:
                    rules.cast_vote(voter, suspect)
            r.rules = rules
        for e in r.rules.tally():
            self.say(e.say(), "tally")

    def _ask_reveal(self) -> dict[str, Any]:
        question = suspect_question(self.match.players)
        prompt = "Drunken Sailor, show your card and say your colour."
        while True:
            answer = self.ask(prompt, question, "reveal")
            if answer is None:
                self._check_audio()
                prompt = "Drunken Sailor, I need your colour to count the votes: say it now."
                continue
            who = self.match.player(answer.choice)
            if self.yes_no(f"{who.label} was the Drunken Sailor. Right?", "confirm:reveal"):
                return {"round": self.round.number, "sailor": who.name}
            self._check_audio()
            prompt = "Then, Drunken Sailor, say your colour."

    def _guess(self) -> None:
        r = self.round
        rules = r.rules
        drunk = rules.sailor
        r.phase = "guess"
        from voicehost.speech.grammar import Question

        bank = sailor.words(self.match.envelopes or ())
        question = Question.word_guess(bank)

        if self.settings.cards == "printed":
            def make() -> dict[str, Any]:
                answer = self.ask(f"{drunk.label}, say your guess out loud.", question,
                                  f"guess:{drunk.colour}")
                heard = None if answer is None else answer.choice
                right = self.yes_no("Sailors, was that the secret word? Yes or no.",
                                    "confirm:guess")
                return {"round": r.number, "guess": heard, "right": bool(right)}

            event = self._decide("guess", make)
            right = bool(event["right"])
            word = PRINTED_WORD if right else (event["guess"] or "wrong guess")
            if not right and sailor.same_word(word, PRINTED_WORD):
                word = "wrong guess"
            rules.guess(word)
            self.say(f"Right! {drunk.label} guessed the secret word." if right
                     else f"Wrong! {drunk.label} did not guess the secret word.", "guess")
            return

        def make_private() -> dict[str, Any]:
            for _ in range(self.settings.tries):
                answer = self.ask(f"{drunk.label}, what is your guess?", question,
                                  f"guess:{drunk.colour}")
                if answer is None:
                    break
                if self.yes_no(f"{drunk.label}, you guess {answer.choice}. Right?",
                               "confirm:guess"):
                    return {"round": r.number, "guess": answer.choice}
            return {"round": r.number, "guess": None}

        event = self._decide("guess", make_private)
        for e in rules.guess(event["guess"]):
            self.say(e.say(), "guess")

    def _score(self) -> None:
        self._owed_roles = None  # the round ends here: its roles are no longer needed
        r = self.round
        rules = r.rules
        events = rules.score()
        self._decide("round", lambda: {"round": sailor.round_to_dict(rules)})
        r.phase = "scored"
        for e in events:
            if isinstance(e, sailor.WordRevealed) and self.settings.cards == "printed":
                self.say("Turn over your cards: the secret word was on them.", "score")
                continue
            self.say(e.say(), "score")

    # -- status for the large view ---------------------------------------------------------
    def status_rows(self) -> list[tuple[str, str]]:
        r = self.round
        scores = ", ".join(f"{p.label} {n}" for p, n in self.match.standings())
        rows = [("round", str(r.number) if r else "-")]
        if r is None:
            rows.append(("phase", "starting"))
        elif r.phase == "drawing" and r.turn < len(r.order):
            p = r.order[r.turn]
            rows += [("phase", "drawing"), ("turn", f"{p.label} ({p.name}), {r.turn + 1} of "
                                                    f"{len(r.order)}")]
        elif r.phase == "accusations" and r.accusation_start is not None:
            left = max(0.0, r.accusation_start + self.settings.accuse_seconds - self.clock)
            rows += [("phase", "accusations"), ("timer", f"{math.ceil(left - 1e-6)} s left")]
        elif r.phase == "voting":
            waiting = [p for p in self.match.players if p not in r.votes]
            rows += [("phase", "voting"),
                     ("turn", f"{waiting[0].label} votes" if waiting else "counting")]
        else:
            rows.append(("phase", r.phase))
        rows.append(("scores", scores))
        rows.append(("target", f"first to {self.match.target}"))
        return rows


# -- running -----------------------------------------------------------------------------------
def host_header(settings: SailorSettings, run: dict[str, Any]) -> dict[str, Any]:
    """The journal header: the setup as a record (players, target) and how the host ran."""
    return {"players": [{"name": p.name, "colour": p.colour} for p in settings.players or []],
            "target": settings.target, "host": {**settings.to_dict(), **run}}


def say_live(announcer: Announcer, ears: Any, now: Callable[[], float], text: str,
             kind: str) -> None:
    """Say ``text`` to a live table, whose microphone's clock is ``now()``.

    The microphone records before the host says anything: an answer given as
    soon as a question ends must not fall into the time the sound card takes
    to open (seconds on a busy machine). The line is stamped (and its voice
    muted) at the microphone's clock, not at the end of the last answer heard,
    which is earlier by the time the host took to decide: stamped there, the
    end of each question went unmuted and the host heard itself. After a
    spoken line the ears skip what the microphone heard meanwhile (only the
    host, all muted), so its queue never fills during a long announcement.
    """
    ears.prime()
    announcer.say(text, max(ears.clock, now()), kind)
    if announcer.voice is not None and not announcer.quiet:
        ears.catch_up(now())


def open_ears(source: Any, backend: str, mute: Any = None, on_block=None) -> Any:
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.recognizer import open_recognizer

    recognizer = open_recognizer(backend)
    return Ears(Tape.of(source.blocks(), source.rate, on_block=on_block), recognizer, mute)


def run_recording(wav: str | Path, settings: SailorSettings, announcer: Announcer, *,
                  journal: Any = None, journal_path: str | Path | None = None,
                  resume_events: Sequence[dict] | None = None, pace: float | None = None,
                  keys: TextIO | None = None, screen: TextIO | None = None,
                  on_status: Callable[[SailorHost], None] | None = None,
                  deliver: Callable[[list[sailor.RoleDealt], str], None] | None = None
                  ) -> SailorResult:
    """Host a whole match from a recording of the table's answers.

    The recording goes through the same pipeline as live play (file source,
    endpointing, the real recogniser). ``journal_path`` creates a journal
    whose header lets ``voicehost resume`` continue; ``journal`` with
    ``resume_events`` continues one. ``pace`` plays the recording at that
    many times real time (presentation only; decisions use the sample clock).
    Private cards are shown by pass-and-peek on ``keys``/``screen`` (default
    the terminal), or handed to ``deliver(roles, word)``. Registers the
    players by voice first when ``settings.players`` is empty.
    """
    import time

    from voicehost.audio.sources import FileSource

    source = FileSource(wav)
    print_notes(source.notes)
    wall0 = time.monotonic()
    host_box: list[SailorHost] = []

    def on_block(t: float) -> None:
        if pace and host_box and not host_box[0].replaying:
            ahead = t / pace - (time.monotonic() - wall0)
            if ahead > 0:
                time.sleep(ahead)
        if on_status is not None and host_box:
            on_status(host_box[0])

    ears = open_ears(source, settings.backend, on_block=on_block)
    start_t = float((journal.header.get("host") or {}).get("start_t", 0.0)) if journal else 0.0
    if not settings.players:
        from voicehost.hosts.sailor_register import register_by_voice

        settings.players = register_by_voice(
            ears, lambda text: announcer.say(text, ears.clock, "register"), settings.tries,
            settings.listen_seconds)
        start_t = round(ears.clock, 3)
    created = False
    if journal is None and journal_path is not None:
        from voicehost.journal import Journal

        run = {"mode": "recording", "input": str(Path(wav).resolve()), "pace": pace,
               "start_t": start_t}
        journal = Journal.create(journal_path, "sailor", host_header(settings, run))
        created = True
    host = SailorHost(settings, announcer, ears, journal, resume_events, skip_audio=True,
                      keys=keys, screen=screen, on_status=on_status, start_t=start_t,
                      deliver=deliver)
    host_box.append(host)
    if resume_events:
        wall0 = time.monotonic() - float(resume_events[-1].get("t", 0.0)) / pace if pace else wall0
    try:
        return host.run()
    finally:
        if created:
            journal.close()


def recorded_match(truth_path: str | Path) -> tuple[Path, SailorSettings, dict[str, Any]]:
    """A bundled match recording: its WAV, the settings it was recorded for, and its truth.

    ``audio_fixtures/games/sailor_match.truth.json`` names the players, the
    target, the time limits and the backend the answers were checked with;
    the WAV sits beside it. The demo and the tests host it with these.
    """
    import json

    truth_path = Path(truth_path)
    try:
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{truth_path}: no such recording truth; run from a voicehost "
                         "checkout (audio_fixtures/games).") from None
    wav = truth_path.with_name(truth_path.name.replace(".truth.json", ".wav"))
    settings = SailorSettings(players=parse_players(truth["players"]), target=truth["target"],
                              cards=truth.get("cards", "printed"), seed=truth.get("seed", 0),
                              turn_seconds=truth["turn_seconds"],
                              accuse_seconds=truth["accuse_seconds"],
                              listen_seconds=truth.get("listen_seconds", 10.0),
                              backend=truth.get("backend", "pocketsphinx"))
    return wav, settings, truth
