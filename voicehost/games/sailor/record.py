"""Game records: replay one through the rules, and write a match back as one.

A record is what happened at a table, written down::

    {"game": "sailor",
     "players": [{"name": "ann", "colour": "red"}, ...],
     "rounds": [{"word": "anchor", "sailor": "bo",
                 "votes": {"ann": "bo", "bo": "ann", "cy": "bo"},
                 "guess": "anchor"}]}

Players in ``sailor`` and in ``votes`` (voters and suspects) may be given by
name, colour or seat number. A player missing from ``votes`` (or voting
``null``) did not vote, which counts as a vote for nobody. ``guess`` is the
unmasked Drunken Sailor's guess; ``null`` there means no guess (a wrong one),
and a guess is ignored when the Drunken Sailor was not unmasked. The words need
not be in the bundled deck and may repeat, since a table may use its own
cards. Optional fields: ``target`` (points to win, default 4) and, per round,
``starter``. Every other field is ignored, so a record written by
:func:`match_to_dict` (which adds scores and results) replays too.

Any record the rules cannot play raises :class:`~voicehost.errors.RecordError`
with one sentence saying where and what is wrong.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from voicehost.errors import RecordError, VoicehostError

from .envelopes import Envelope, normalise_word
from .players import COLOURS, MAX_PLAYERS, MIN_PLAYERS, Player, resolve_player
from .rules import Match, Phase, Round, start_round
from .scoring import TARGET

GAME = "sailor"


def _need(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise RecordError(f'{where} has no "{key}" field; add it (the README shows the record format).')
    return obj[key]


def _players(record: Mapping[str, Any]) -> tuple[Player, ...]:
    items = _need(record, "players", "The record")
    if not isinstance(items, list):
        raise RecordError('The record\'s "players" must be a list of {"name": ..., "colour": ...}.')
    if not MIN_PLAYERS <= len(items) <= MAX_PLAYERS:
        raise RecordError(
            f"Sunken Sailor needs {MIN_PLAYERS} to {MAX_PLAYERS} players; "
            f"the record has {len(items)}."
        )
    players = []
    for seat, item in enumerate(items, start=1):
        where = f"Player {seat} of the record"
        if not isinstance(item, Mapping):
            raise RecordError(f'{where} must be an object like {{"name": "ann", "colour": "red"}}.')
        name, colour = _need(item, "name", where), _need(item, "colour", where)
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"{where} needs a name that is a non-empty text.")
        if not isinstance(colour, str) or colour.strip().casefold() not in COLOURS:
            raise RecordError(
                f"Player {name} has the pencil colour {colour!r}, which is not one of "
                f"{', '.join(COLOURS)}."
            )
        players.append(Player(name, colour))
    return tuple(players)


def _who(match: Match, ref: Any, where: str, role: str) -> Player:
    try:
        if ref is None:
            raise VoicehostError("no player given")
        return resolve_player(match.players, ref)
    except VoicehostError:
        table = ", ".join(f"{p.name} ({p.colour})" for p in match.players)
        raise RecordError(
            f"{where}: {role} {ref!r} is not in this match; name a player, a pencil colour or a "
            f"seat number 1 to {len(match.players)} (the players are {table})."
        ) from None


def _play_round(match: Match, number: int, item: Any, deck: dict[str, Envelope]) -> Round:
    where = f"Round {number} of the record"
    if not isinstance(item, Mapping):
        raise RecordError(f'{where} must be an object with "word", "sailor", "votes" and "guess".')
    if match.over:
        raise RecordError(
            f"{where} comes after the match was won by "
            f"{' and '.join(p.name for p in match.winners)}; a match ends when someone "
            f"reaches {match.target} points, so start a new record for a new match."
        )
    word = _need(item, "word", where)
    sailor_ref = _need(item, "sailor", where)
    votes = _need(item, "votes", where)
    guess = _need(item, "guess", where)
    if not isinstance(word, str) or not word.strip():
        raise RecordError(f'{where}: "word" must be the secret word as text.')
    if not isinstance(votes, Mapping):
        raise RecordError(f'{where}: "votes" must map each voter to the player they accused.')
    if guess is not None and not isinstance(guess, str):
        raise RecordError(f'{where}: "guess" must be the guessed word as text, or null.')
    sailor = _who(match, sailor_ref, where, "the Drunken Sailor")
    starter_ref = item.get("starter")
    starter = match.players[0] if starter_ref is None else _who(match, starter_ref, where, "the starter")
    ballots: dict[Player, Player] = {}
    seen: set[Player] = set()
    for voter_ref, suspect_ref in votes.items():
        voter = _who(match, voter_ref, where, "the voter")
        if voter in seen:
            raise RecordError(
                f"{where}: {voter.name} votes twice (by name, colour or seat); "
                "keep one vote per player."
            )
        seen.add(voter)
        if suspect_ref is None:
            continue
        ballots[voter] = _who(match, suspect_ref, where, f"{voter.name}'s suspect")
    envelope = deck.get(normalise_word(word), Envelope(word.strip()))
    played = start_round(match, random.Random(number), starter, envelope=envelope, sailor=sailor)
    while played.phase is Phase.DRAWING:
        played.done_drawing()
    played.start_vote()
    for voter, suspect in ballots.items():
        played.cast_vote(voter, suspect)
    played.tally()
    if played.phase is Phase.GUESS:
        played.guess(guess)
    played.score()
    return played


def replay_match(record: Any, envelopes: Iterable[Envelope] | None = None) -> Match:
    """Play a record through the rules and return the final :class:`Match`.

    ``envelopes`` is the deck the match goes on with (default: the bundled
    one); record words found in it count as used.
    """
    if not isinstance(record, Mapping):
        raise RecordError('A Sunken Sailor record must be a JSON object with "game", "players" and "rounds".')
    game = _need(record, "game", "The record")
    if game != GAME:
        raise RecordError(
            f'This record is for the game {game!r}, not "sailor"; '
            'a Sunken Sailor record needs "game": "sailor".'
        )
    players = _players(record)
    rounds = _need(record, "rounds", "The record")
    if not isinstance(rounds, list):
        raise RecordError('The record\'s "rounds" must be a list of rounds.')
    target = record.get("target", TARGET)
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise RecordError(f'The record\'s "target" must be a whole number of points of at least 1, not {target!r}.')
    try:
        match = Match(players, None if envelopes is None else tuple(envelopes), target)
    except VoicehostError as exc:
        raise RecordError(str(exc)) from None
    deck = {normalise_word(envelope.word): envelope for envelope in match.envelopes or ()}
    for number, item in enumerate(rounds, start=1):
        try:
            _play_round(match, number, item, deck)
        except RecordError:
            raise
        except VoicehostError as exc:  # pragma: no cover - the checks above should catch it first
            raise RecordError(f"Round {number} of the record cannot be played: {exc}") from None
    return match


def round_result(played: Round) -> dict[str, Any]:
    """One round of the replay output."""
    tally = played.counted
    assert tally is not None and played.points is not None
    return {
        "unmasked": tally.unmasked,
        "guess_right": played.guess_right if tally.unmasked else None,
        "points": {player.name: n for player, n in played.points.items()},
        "word": played.word,
        "sailor": played.sailor.name,
        "votes_for_sailor": tally.votes_for_sailor,
        "needed": tally.needed,
    }


def match_result(match: Match) -> dict[str, Any]:
    """The replay output for a match: scores, winners, and each scored round."""
    return {
        "game": GAME,
        "scores": {player.name: match.scores[player] for player in match.players},
        "winners": [player.name for player in match.winners],
        "over": match.over,
        "rounds": [round_result(r) for r in match.rounds if r.phase is Phase.SCORED],
    }


def replay_record(record: Any, envelopes: Iterable[Envelope] | None = None) -> dict[str, Any]:
    """Replay a record and return ``{"scores", "winners", "rounds", ...}`` (see :func:`match_result`)."""
    return match_result(replay_match(record, envelopes))


def round_to_dict(played: Round) -> dict[str, Any]:
    """A scored round as a record round (plus its results): what a journal appends."""
    if played.phase is not Phase.SCORED:
        raise RecordError(f"Round {played.number} is not scored yet, so it cannot be written as a record.")
    return {
        "word": played.word,
        "sailor": played.sailor.name,
        "starter": played.starter.name,
        "votes": {voter.name: suspect.name for voter, suspect in played.votes.items()},
        "guess": played.guessed,
        **{k: v for k, v in round_result(played).items() if k not in ("word", "sailor")},
    }


def match_to_dict(match: Match) -> dict[str, Any]:
    """A match as a record (scored rounds only) plus its results; :func:`replay_match` reads it back."""
    result = match_result(match)
    return {
        "game": GAME,
        "players": [{"name": p.name, "colour": p.colour} for p in match.players],
        "target": match.target,
        "rounds": [round_to_dict(r) for r in match.rounds if r.phase is Phase.SCORED],
        "scores": result["scores"],
        "winners": result["winners"],
        "over": result["over"],
        "used": list(match.used),
        "passes": match.passes,
    }
