"""Counting the vote and scoring a round (design.md section 2), as pure functions.

Kept apart from the round's state machine so each rule can be tested on its
own with plain values: who voted for whom, who the Drunken Sailor was, and
whether the guess was right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .players import Player

#: Points that win the match.
TARGET = 4
#: The Drunken Sailor not unmasked.
ESCAPE_POINTS = 2
#: The unmasked Drunken Sailor guesses the word.
GUESS_POINTS = 1
#: A sailor who voted for the Drunken Sailor (unless the sailor guessed the word).
ACCUSER_POINTS = 1


@dataclass(frozen=True)
class Tally:
    """The counted vote.

    ``counts`` holds the votes of the other players only: the Drunken Sailor's
    own vote (kept in ``sailor_vote``) never counts towards the majority.
    ``needed`` is a strict majority of all the other players, whether or not
    they voted, so a missing vote works like a vote for nobody and a tie never
    unmasks.
    """

    sailor: Player
    counts: Mapping[Player, int]
    sailor_vote: Player | None
    accusers: tuple[Player, ...]
    others: int
    needed: int
    unmasked: bool

    @property
    def votes_for_sailor(self) -> int:
        return len(self.accusers)


def majority_needed(players: int) -> int:
    """Votes the Drunken Sailor must get to be unmasked at a table of ``players``."""
    return (players - 1) // 2 + 1


def count_votes(
    players: Sequence[Player], sailor: Player, votes: Mapping[Player, Player]
) -> Tally:
    """Count ``votes`` (voter -> suspect) for a round whose Drunken Sailor is ``sailor``.

    A player absent from ``votes`` did not vote. A vote for oneself is allowed
    and counts for that player like any other vote, which only ever helps the
    Drunken Sailor.
    """
    counts: dict[Player, int] = {}
    accusers: list[Player] = []
    for voter in players:
        suspect = votes.get(voter)
        if suspect is None or voter == sailor:
            continue
        counts[suspect] = counts.get(suspect, 0) + 1
        if suspect == sailor:
            accusers.append(voter)
    needed = majority_needed(len(players))
    return Tally(
        sailor=sailor,
        counts=counts,
        sailor_vote=votes.get(sailor),
        accusers=tuple(accusers),
        others=len(players) - 1,
        needed=needed,
        unmasked=len(accusers) >= needed,
    )


def round_points(
    players: Sequence[Player], tally: Tally, guess_right: bool | None
) -> dict[Player, int]:
    """Points each player gains this round, every player listed (0 included).

    Not unmasked: the Drunken Sailor +2, and each sailor who voted for the
    Drunken Sailor +1 (a right vote scores even when the majority failed).
    Unmasked and the guess right: the Drunken Sailor +1, nobody else.
    Unmasked and the guess wrong (or no guess): each accuser +1.
    """
    points = {player: 0 for player in players}
    if tally.unmasked and guess_right:
        points[tally.sailor] += GUESS_POINTS
        return points
    if not tally.unmasked:
        points[tally.sailor] += ESCAPE_POINTS
    for accuser in tally.accusers:
        points[accuser] += ACCUSER_POINTS
    return points


def winners(
    players: Sequence[Player], scores: Mapping[Player, int], target: int = TARGET
) -> tuple[Player, ...]:
    """Everyone at ``target`` points or more, in seat order; they share the win."""
    return tuple(player for player in players if scores.get(player, 0) >= target)
