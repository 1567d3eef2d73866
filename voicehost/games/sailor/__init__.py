"""Sunken Sailor, the rules as the host applies them (design.md section 2).

Pure: no I/O apart from :func:`load_envelopes` reading the bundled deck, no
clock, and randomness only from the ``random.Random`` given to
:func:`start_round`. A host drives a round like this::

    match = Match(players)                       # or new_match([("ann", "red"), ...])
    rnd = start_round(match, rng, starter="red")
    rnd.events                                   # opening events; RoleDealt ones are private
    rnd.done_drawing()                           # once per turn, 2 x players turns
    rnd.start_vote()
    rnd.cast_vote("red", "blue")                 # by name, colour or seat; later votes replace
    rnd.tally()                                  # Unmasked or NotUnmasked, result in rnd.counted
    rnd.guess("anchor")                          # only after Unmasked
    rnd.score()                                  # Points, Standings, maybe MatchWon

Each step returns the events it caused; an illegal step raises
:class:`IllegalAction` with a sentence a person understands.
"""

from .envelopes import (
    LINES_PER_ENVELOPE,
    Envelope,
    load_envelopes,
    normalise_word,
    parse_envelopes,
    same_word,
    words,
)
from .errors import IllegalAction, SetupError, UnknownPlayer
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
from .players import (
    COLOURS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUMBER_WORDS,
    Player,
    resolve_player,
    validate_players,
)
from .record import match_result, match_to_dict, replay_match, replay_record, round_to_dict
from .rules import Match, Phase, Round, new_match, start_round, turn_order
from .scoring import TARGET, Tally, count_votes, majority_needed, round_points, winners

__all__ = [
    "COLOURS", "LINES_PER_ENVELOPE", "MAX_PLAYERS", "MIN_PLAYERS", "NUMBER_WORDS", "TARGET",
    "Player", "validate_players", "resolve_player",
    "Envelope", "load_envelopes", "parse_envelopes", "normalise_word", "same_word", "words",
    "Match", "Round", "Phase", "new_match", "start_round", "turn_order",
    "Tally", "count_votes", "majority_needed", "round_points", "winners",
    "IllegalAction", "SetupError", "UnknownPlayer",
    "Event", "DeckReshuffled", "RoundStarted", "RoleDealt", "TurnCalled", "AccusationsStarted",
    "VotingStarted", "VoteCast", "VotesCounted", "Unmasked", "NotUnmasked", "GuessMade", "WordRevealed",
    "Points", "Standings", "MatchWon",
    "replay_record", "replay_match", "match_result", "match_to_dict", "round_to_dict",
]
