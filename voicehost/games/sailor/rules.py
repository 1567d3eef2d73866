"""The match and its rounds: dealing, the drawing turns, the vote, the guess, the score.

The state is plain dataclasses the host steps through; each step checks that
it is legal now, changes the state, and returns the events it caused (also
kept in ``Round.events``). Nothing here does I/O, reads a clock or makes its
own randomness: :func:`start_round` takes a ``random.Random``.

A round moves through :class:`Phase`: drawing (turn k of 2n) -> accusations ->
voting -> guess (only if the Drunken Sailor is unmasked) -> scoring -> scored.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .envelopes import Envelope, load_envelopes, same_word
from .errors import IllegalAction, SetupError
from .events import (
    AccusationsStarted,
    DeckReshuffled,
    Event,
    GuessMade,
    MatchWon,
    NotUnmasked,
    Points,
    RoleDealt,
    RoundStarted,
    Standings,
    TurnCalled,
    Unmasked,
    VoteCast,
    VotesCounted,
    VotingStarted,
    WordRevealed,
)
from .players import Player, resolve_player, validate_players
from .scoring import TARGET, Tally, count_votes, round_points, winners


class Phase(enum.Enum):
    DRAWING = "drawing"
    ACCUSATIONS = "accusations"
    VOTING = "voting"
    GUESS = "guess"
    SCORING = "scoring"
    SCORED = "scored"


PlayerRef = Player | str | int


@dataclass
class Match:
    """A match: the table, the deck, the scores and every round so far.

    ``used`` holds the words dealt in the current pass through the deck; when
    every envelope has been used, the next round starts a new pass
    (``passes`` counts them). ``winners`` is empty until someone reaches
    ``target`` points; then the match is over.
    """

    players: tuple[Player, ...]
    envelopes: tuple[Envelope, ...] | None = None
    target: int = TARGET
    scores: dict[Player, int] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)
    passes: int = 1
    rounds: list[Round] = field(default_factory=list)
    winners: tuple[Player, ...] = ()

    def __post_init__(self) -> None:
        self.players = validate_players(self.players)
        if self.envelopes is None:
            self.envelopes = load_envelopes()
        self.envelopes = tuple(self.envelopes)
        if not self.envelopes:
            raise SetupError("A match needs at least one envelope.")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise SetupError(f"The points to win must be a whole number of at least 1, not {self.target!r}.")
        for player in self.players:
            self.scores.setdefault(player, 0)

    @property
    def over(self) -> bool:
        return bool(self.winners)

    @property
    def current(self) -> Round | None:
        """The round in progress (not yet scored), if any."""
        if self.rounds and self.rounds[-1].phase is not Phase.SCORED:
            return self.rounds[-1]
        return None

    @property
    def rounds_played(self) -> int:
        return sum(1 for played in self.rounds if played.phase is Phase.SCORED)

    def player(self, ref: PlayerRef) -> Player:
        """The player a name, colour or seat number means (see :func:`resolve_player`)."""
        return resolve_player(self.players, ref)

    def standings(self) -> tuple[tuple[Player, int], ...]:
        seat = {player: i for i, player in enumerate(self.players)}
        return tuple(sorted(self.scores.items(), key=lambda item: (-item[1], seat[item[0]])))


@dataclass(eq=False)
class Round:
    """One round. Its secrets are ``sailor``, ``envelope`` and ``lines``: never say them to the table."""

    match: Match = field(repr=False)
    number: int
    envelope: Envelope
    sailor: Player
    starter: Player
    lines: dict[Player, str]
    order: tuple[Player, ...]
    phase: Phase = Phase.DRAWING
    turn: int = 0
    votes: dict[Player, Player] = field(default_factory=dict)
    counted: Tally | None = None
    guessed: str | None = None
    guess_right: bool | None = None
    points: dict[Player, int] | None = None
    events: list[Event] = field(default_factory=list, repr=False)

    @property
    def players(self) -> tuple[Player, ...]:
        return self.match.players

    @property
    def word(self) -> str:
        return self.envelope.word

    @property
    def unmasked(self) -> bool | None:
        return None if self.counted is None else self.counted.unmasked

    @property
    def current_player(self) -> Player | None:
        """Whose turn it is to draw, or None once the drawing is over."""
        return self.order[self.turn] if self.phase is Phase.DRAWING else None

    def role(self, player: PlayerRef) -> RoleDealt:
        """A player's secret again (e.g. they asked to hear it once more). Private."""
        who = self.match.player(player)
        return RoleDealt(who, who == self.sailor, self.lines.get(who))

    def voters_waiting(self) -> list[Player]:
        """Players who have not voted yet, in seat order (the order votes are collected in)."""
        return [player for player in self.players if player not in self.votes]

    def _emit(self, *events: Event) -> list[Event]:
        self.events.extend(events)
        return list(events)

    def _refuse(self, wanted: Phase, action: str) -> None:
        if self.phase is wanted:
            return
        if self.phase is Phase.DRAWING:
            who = self.order[self.turn]
            raise IllegalAction(
                f"The drawing is not finished: it is {who.label}'s turn "
                f"({self.turn + 1} of {len(self.order)})."
            )
        if self.phase is Phase.SCORED:
            raise IllegalAction(f"Round {self.number} is already scored; start a new round.")
        reasons = {
            Phase.ACCUSATIONS: "the vote has not started yet",
            Phase.VOTING: "the vote is still open, so count it first",
            Phase.GUESS: "the unmasked Drunken Sailor has not guessed yet",
            Phase.SCORING: "the round is waiting to be scored",
        }
        raise IllegalAction(f"{action}: {reasons[self.phase]}.")

    # -- drawing ---------------------------------------------------------

    def done_drawing(self) -> list[Event]:
        """The current player said "done" (or their time ran out): call the next turn."""
        if self.phase is not Phase.DRAWING:
            raise IllegalAction("The drawing is already finished.")
        self.turn += 1
        if self.turn < len(self.order):
            return self._emit(TurnCalled(self.order[self.turn], self.turn + 1, len(self.order)))
        self.phase = Phase.ACCUSATIONS
        return self._emit(AccusationsStarted())

    # -- voting ------------------------------------------------------------

    def start_vote(self) -> list[Event]:
        """The accusation time is over: "one, two, three", collect the votes."""
        if self.phase is Phase.VOTING:
            raise IllegalAction("The vote has already started.")
        self._refuse(Phase.ACCUSATIONS, "The vote cannot start now")
        self.phase = Phase.VOTING
        return self._emit(VotingStarted())

    def cast_vote(self, voter: PlayerRef, suspect: PlayerRef | None) -> list[Event]:
        """Record ``voter``'s accusation; a later vote by the same voter replaces it.

        ``suspect`` None withdraws the vote (the player then counts as not
        voting). Voting for oneself is allowed; it only helps the Drunken Sailor.
        """
        if self.phase in (Phase.DRAWING, Phase.ACCUSATIONS):
            raise IllegalAction("The vote has not started yet.")
        if self.phase is not Phase.VOTING:
            raise IllegalAction("The votes have already been counted.")
        who = self.match.player(voter)
        if suspect is None:
            self.votes.pop(who, None)
            return []
        target = self.match.player(suspect)
        earlier = self.votes.pop(who, None)
        self.votes[who] = target
        return self._emit(VoteCast(who, target, earlier))

    def tally(self) -> list[Event]:
        """Close the vote and count it; the result is kept in ``counted``."""
        if self.phase in (Phase.DRAWING, Phase.ACCUSATIONS):
            raise IllegalAction("The vote has not started yet.")
        if self.phase is not Phase.VOTING:
            raise IllegalAction("The votes have already been counted.")
        self.counted = count_votes(self.players, self.sailor, self.votes)
        seat = {player: i for i, player in enumerate(self.players)}
        per_suspect: dict[Player, int] = {}
        for suspect in self.votes.values():
            per_suspect[suspect] = per_suspect.get(suspect, 0) + 1
        counts = VotesCounted(tuple(sorted(per_suspect.items(), key=lambda i: (-i[1], seat[i[0]]))))
        if self.counted.unmasked:
            self.phase = Phase.GUESS
            return self._emit(counts, Unmasked(self.sailor, self.counted))
        self.phase = Phase.SCORING
        return self._emit(counts, NotUnmasked(self.sailor, self.counted))

    # -- the guess and the score ---------------------------------------------

    def guess(self, word: str | None) -> list[Event]:
        """The unmasked Drunken Sailor's one guess (None: they made none, which is wrong)."""
        if self.phase is Phase.GUESS:
            self.guessed = word
            self.guess_right = word is not None and same_word(word, self.word)
            self.phase = Phase.SCORING
            return self._emit(GuessMade(self.sailor, word, self.word, self.guess_right))
        if self.counted is None:
            raise IllegalAction("The Drunken Sailor only guesses after the votes are counted.")
        if not self.counted.unmasked:
            raise IllegalAction("Nobody guesses this round: the Drunken Sailor was not unmasked.")
        raise IllegalAction("The Drunken Sailor has already guessed; only one guess is allowed.")

    def score(self) -> list[Event]:
        """Give this round's points to the match, and end the match if someone reached the target."""
        self._refuse(Phase.SCORING, "The round cannot be scored yet")
        assert self.counted is not None
        self.points = round_points(self.players, self.counted, self.guess_right)
        match = self.match
        for player, gained in self.points.items():
            match.scores[player] += gained
        self.phase = Phase.SCORED
        out: list[Event] = []
        if not self.counted.unmasked:
            out.append(WordRevealed(self.word))
        out.append(Points(dict(self.points)))
        out.append(Standings(match.standings()))
        match.winners = winners(match.players, match.scores, match.target)
        if match.winners:
            out.append(MatchWon(match.winners))
        return self._emit(*out)


def turn_order(round_: Round) -> list[Player]:
    """Everyone's drawing turns: twice around the table in seat order, from the starter."""
    return list(round_.order)


def _drawing_order(players: Sequence[Player], starter: Player) -> tuple[Player, ...]:
    first = players.index(starter)
    once = tuple(players[first:]) + tuple(players[:first])
    return once + once


def start_round(
    match: Match,
    rng: random.Random,
    starter: PlayerRef | None = None,
    *,
    envelope: Envelope | None = None,
    sailor: PlayerRef | None = None,
) -> Round:
    """Deal a new round: an unused envelope, one Drunken Sailor, a story line for everyone else.

    ``starter`` is the player "most recently at sea" as the table said; None
    lets ``rng`` pick. ``envelope`` and ``sailor`` are for replaying a record
    or a test; normally ``rng`` picks both. The round's opening events (the
    deal, private roles, the first turn) are in ``Round.events``.
    """
    if match.over:
        raise IllegalAction(
            f"The match is over: {', '.join(p.label for p in match.winners)} won. "
            "Start a new match to play again."
        )
    if match.current is not None:
        raise IllegalAction(
            f"Round {match.current.number} is not finished; score it before starting another."
        )
    opening: list[Event] = []
    deck = match.envelopes
    assert deck is not None
    unused = [item for item in deck if item.word not in match.used]
    if not unused:
        last = match.rounds[-1].word if match.rounds else None
        match.used.clear()
        match.passes += 1
        opening.append(DeckReshuffled(match.passes))
        unused = [item for item in deck if item.word != last] or list(deck)
    if envelope is None:
        envelope = rng.choice(unused)
    if envelope.word not in match.used and any(item.word == envelope.word for item in deck):
        match.used.append(envelope.word)
    chosen = rng.choice(match.players) if sailor is None else match.player(sailor)
    sailors = [player for player in match.players if player != chosen]
    if len(envelope.lines) >= len(sailors):
        lines = dict(zip(sailors, rng.sample(envelope.lines, len(sailors))))
    else:
        lines = {}
    first = rng.choice(match.players) if starter is None else match.player(starter)
    order = _drawing_order(match.players, first)
    new = Round(
        match=match,
        number=len(match.rounds) + 1,
        envelope=envelope,
        sailor=chosen,
        starter=first,
        lines=lines,
        order=order,
    )
    match.rounds.append(new)
    opening.append(RoundStarted(new.number, first))
    opening.extend(new.role(player) for player in match.players)
    opening.append(TurnCalled(order[0], 1, len(order)))
    new._emit(*opening)
    return new


def new_match(
    players: Iterable[Player | tuple[str, str]],
    envelopes: Iterable[Envelope] | None = None,
    target: int = TARGET,
) -> Match:
    """A match for ``players`` (Player objects or (name, colour) pairs) in seat order."""
    table = [p if isinstance(p, Player) else Player(*p) for p in players]
    return Match(tuple(table), None if envelopes is None else tuple(envelopes), target)
