"""One or more tests per rule of design.md section 2 (Sunken Sailor), named after the rule."""

from __future__ import annotations

import random

import pytest

from voicehost.errors import VoicehostError
from voicehost.games.sailor import (
    AccusationsStarted,
    Envelope,
    GuessMade,
    IllegalAction,
    MatchWon,
    NotUnmasked,
    Phase,
    Player,
    Points,
    RoleDealt,
    SetupError,
    TurnCalled,
    Unmasked,
    UnknownPlayer,
    VoteCast,
    count_votes,
    majority_needed,
    new_match,
    normalise_word,
    round_points,
    same_word,
    start_round,
    turn_order,
)

TABLE = [("ann", "red"), ("bo", "blue"), ("cy", "green"), ("di", "yellow"), ("ed", "black")]
DECK = tuple(
    Envelope(word, tuple(f"Line {i} about the {word} on the ship." for i in range(7)))
    for word in ("anchor", "parrot", "compass", "barrel", "lantern")
)


def make_match(n: int = 5, target: int = 4, deck=DECK):
    return new_match(TABLE[:n] if n <= 5 else [(f"p{i}", c) for i, c in enumerate(
        ["red", "blue", "green", "yellow", "black", "white", "orange", "purple"][:n])],
        deck, target)


def to_vote(match, sailor="bo", starter="ann", seed=0):
    rnd = start_round(match, random.Random(seed), starter, sailor=sailor)
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    rnd.start_vote()
    return rnd


def play(match, sailor, votes, guess=None, seed=0):
    rnd = to_vote(match, sailor, seed=seed)
    for voter, suspect in votes.items():
        rnd.cast_vote(voter, suspect)
    rnd.tally()
    if rnd.phase is Phase.GUESS:
        rnd.guess(guess)
    rnd.score()
    return rnd


# -- players ----------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 8])
def test_rule_3_to_8_players_accepted(n):
    assert len(make_match(n).players) == n


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_rule_3_to_8_players_refused_outside(n):
    colours = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "red"]
    with pytest.raises(SetupError, match="3 to 8 players"):
        new_match([(f"p{i}", colours[i]) for i in range(n)], DECK)


def test_rule_pencil_colours_from_the_box_only():
    with pytest.raises(SetupError, match="pink"):
        Player("ann", "pink")
    assert Player("ann", " RED ").colour == "red"


def test_rule_pencil_colour_used_at_most_once():
    with pytest.raises(SetupError, match="both have the pencil colour red"):
        new_match([("ann", "red"), ("bo", "Red"), ("cy", "green")], DECK)


def test_rule_names_unique_ignoring_case():
    with pytest.raises(SetupError, match="Two players are called"):
        new_match([("ann", "red"), ("ANN", "blue"), ("cy", "green")], DECK)


def test_rule_names_cannot_be_colours_or_numbers_so_votes_are_unambiguous():
    with pytest.raises(SetupError, match="is a pencil colour"):
        new_match([("Blue", "red"), ("bo", "blue"), ("cy", "green")], DECK)
    for name in ("2", "Three"):
        with pytest.raises(SetupError, match="is a number"):
            new_match([(name, "red"), ("bo", "blue"), ("cy", "green")], DECK)


def test_rule_votes_name_a_colour_a_name_or_a_seat_number():
    match = make_match()
    bo = match.players[1]
    for ref in ("bo", "BO", " Bo ", "blue", "Blue", 2, "2", "two", "Seat 2", "player two"):
        assert match.player(ref) == bo
    for ref in ("zed", "pink", 0, 6, "9", "nine", "seat", True, None, 2.0):
        with pytest.raises(UnknownPlayer):
            match.player(ref)


# -- envelopes and dealing ------------------------------------------------------

def test_rule_round_picks_an_unused_envelope():
    match = make_match(target=100)
    seen = []
    for seed in range(len(DECK)):
        rnd = play(match, "bo", {}, seed=seed)
        seen.append(rnd.word)
    assert sorted(seen) == sorted(e.word for e in DECK)


def test_rule_envelopes_reshuffle_when_all_used_with_an_event():
    match = make_match(target=100)
    for seed in range(len(DECK)):
        play(match, "bo", {}, seed=seed)
    last = match.rounds[-1].word
    rnd = start_round(match, random.Random(99), "ann")
    assert rnd.events[0].type == "deck_reshuffled"
    assert "shuffled" in rnd.events[0].say()
    assert match.passes == 2
    assert rnd.word != last  # not the very envelope just played
    assert match.used == [rnd.word]


@pytest.mark.parametrize("n", range(3, 9))
def test_rule_exactly_one_drunken_sailor(n):
    for seed in range(20):
        match = make_match(n)
        rnd = start_round(match, random.Random(seed))
        roles = [e for e in rnd.events if isinstance(e, RoleDealt)]
        assert [e.player for e in roles] == list(match.players)
        assert sum(e.drunken_sailor for e in roles) == 1
        assert [e.player for e in roles if e.drunken_sailor] == [rnd.sailor]


def test_rule_drunken_sailor_is_chosen_by_the_rng():
    sailors = {start_round(make_match(), random.Random(seed)).sailor.name for seed in range(40)}
    assert sailors == {name for name, _ in TABLE}


@pytest.mark.parametrize("n", range(3, 9))
def test_rule_every_other_player_gets_a_distinct_story_line_with_the_word(n):
    match = make_match(n)
    rnd = start_round(match, random.Random(n))
    roles = [e for e in rnd.events if isinstance(e, RoleDealt)]
    lines = [e.line for e in roles if not e.drunken_sailor]
    assert len(lines) == n - 1 and len(set(lines)) == n - 1
    assert all(line in rnd.envelope.lines and rnd.word in line for line in lines)
    sailor_role = next(e for e in roles if e.drunken_sailor)
    assert sailor_role.line is None and rnd.word not in sailor_role.say()
    assert all(not e.public for e in roles)


def test_rule_most_recently_at_sea_starts_given_by_the_host():
    rnd = start_round(make_match(), random.Random(0), starter="yellow")
    assert rnd.starter.name == "di"
    assert rnd.current_player.name == "di"


def test_rule_most_recently_at_sea_picked_by_rng_when_not_given():
    starters = {start_round(make_match(), random.Random(s)).starter.name for s in range(40)}
    assert starters == {name for name, _ in TABLE}


# -- drawing -----------------------------------------------------------------------

def test_rule_drawing_twice_around_from_the_starter():
    rnd = start_round(make_match(), random.Random(0), starter="cy")
    names = [p.name for p in turn_order(rnd)]
    assert names == ["cy", "di", "ed", "ann", "bo"] * 2


def test_rule_host_calls_each_turn_and_moves_on_when_done():
    rnd = start_round(make_match(3), random.Random(0), starter="bo")
    called = [e for e in rnd.events if isinstance(e, TurnCalled)]
    for _ in range(6):
        called += [e for e in rnd.done_drawing() if isinstance(e, TurnCalled)]
    assert [(e.player.name, e.turn) for e in called] == [
        ("bo", 1), ("cy", 2), ("ann", 3), ("bo", 4), ("cy", 5), ("ann", 6)]
    assert called[0].say() == "Blue, your turn to draw."
    assert called[3].say().startswith("Second time around.")
    assert rnd.phase is Phase.ACCUSATIONS
    assert isinstance(rnd.events[-1], AccusationsStarted)
    with pytest.raises(IllegalAction, match="already finished"):
        rnd.done_drawing()


def test_rule_accusations_before_the_vote():
    rnd = start_round(make_match(), random.Random(0), "ann")
    with pytest.raises(IllegalAction, match="drawing is not finished: it is Red's turn"):
        rnd.start_vote()
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    with pytest.raises(IllegalAction, match="^The vote has not started yet.$"):
        rnd.cast_vote("ann", "bo")
    with pytest.raises(IllegalAction, match="The vote has not started yet."):
        rnd.tally()
    rnd.start_vote()
    with pytest.raises(IllegalAction, match="already started"):
        rnd.start_vote()


# -- voting --------------------------------------------------------------------------

def test_rule_vote_collected_in_seat_order_and_confirmed_aloud():
    rnd = to_vote(make_match(3))
    assert [p.name for p in rnd.voters_waiting()] == ["ann", "bo", "cy"]
    (event,) = rnd.cast_vote("red", "blue")
    assert isinstance(event, VoteCast) and event.say() == "Red accuses Blue."
    assert [p.name for p in rnd.voters_waiting()] == ["bo", "cy"]


def test_rule_votes_are_correctable_later_vote_replaces():
    rnd = to_vote(make_match(3), sailor="bo")
    rnd.cast_vote("ann", "cy")
    (event,) = rnd.cast_vote("red", 2)
    assert event.replaced.name == "cy"
    assert event.say() == "Corrected: Red accuses Blue."
    assert {v.name: s.name for v, s in rnd.votes.items()} == {"ann": "bo"}


def test_rule_vote_for_unknown_player_refused():
    rnd = to_vote(make_match(3))
    with pytest.raises(UnknownPlayer, match="zed"):
        rnd.cast_vote("ann", "zed")
    with pytest.raises(UnknownPlayer, match="seat 7"):
        rnd.cast_vote(7, "ann")
    assert rnd.votes == {}


def test_rule_drunken_sailors_own_vote_does_not_count_towards_the_majority():
    players = make_match(5).players
    ann, bo, cy, di, ed = players
    # bo is the sailor and votes for ann; ann has 2 from others (cy, di) only.
    tally = count_votes(players, bo, {bo: ann, cy: ann, di: ann, ann: bo, ed: bo})
    assert tally.sailor_vote == ann
    assert tally.counts[ann] == 2 and tally.counts[bo] == 2
    assert tally.others == 4 and tally.needed == 3 and not tally.unmasked


def test_rule_drunken_sailors_self_vote_cannot_help_unmask_them():
    players = make_match(3).players
    ann, bo, cy = players
    tally = count_votes(players, bo, {bo: bo, ann: bo})
    assert tally.votes_for_sailor == 1 and tally.needed == 2 and not tally.unmasked


@pytest.mark.parametrize("n,needed", [(3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4)])
def test_rule_strict_majority_of_the_other_players_unmasks(n, needed):
    assert majority_needed(n) == needed
    players = make_match(n).players
    sailor, others = players[0], players[1:]
    just = count_votes(players, sailor, {p: sailor for p in others[:needed]})
    short = count_votes(players, sailor, {p: sailor for p in others[:needed - 1]})
    assert just.unmasked and not short.unmasked
    assert 2 * needed > n - 1 >= 2 * (needed - 1)


@pytest.mark.parametrize("n", [3, 5, 7])
def test_rule_a_tie_does_not_unmask(n):
    players = make_match(n).players
    sailor, others = players[0], players[1:]
    half = (n - 1) // 2
    votes = {p: sailor for p in others[:half]} | {p: others[0] for p in others[half:]}
    tally = count_votes(players, sailor, votes)
    assert tally.votes_for_sailor == n - 1 - tally.votes_for_sailor
    assert not tally.unmasked


def test_rule_missing_vote_counts_as_no_vote_for_anyone():
    players = make_match(4).players
    ann, bo, cy, di = players
    # 3 others, 2 needed: a missing vote cannot help either way
    assert not count_votes(players, ann, {bo: ann}).unmasked
    assert count_votes(players, ann, {bo: ann, cy: ann}).unmasked
    rnd = to_vote(make_match(4), sailor="ann")
    rnd.cast_vote("bo", "ann")
    rnd.cast_vote("cy", "ann")
    rnd.cast_vote("di", "ann")
    rnd.cast_vote("di", None)  # withdrawn: di counts as not voting
    rnd.tally()
    assert rnd.counted.accusers == (bo, cy)


def test_rule_vote_for_oneself_allowed_but_pointless():
    match = make_match(3)
    rnd = play(match, "bo", {"ann": "ann", "cy": "cy", "bo": "bo"})
    assert not rnd.counted.unmasked
    assert {p.name: n for p, n in rnd.points.items()} == {"ann": 0, "bo": 2, "cy": 0}


# -- scoring -------------------------------------------------------------------------

def test_rule_not_unmasked_drunken_sailor_scores_2():
    match = make_match(5)
    rnd = play(match, "bo", {"ann": "cy", "cy": "ann", "di": "ann", "ed": "ann"})
    assert [type(e) for e in rnd.events if isinstance(e, (NotUnmasked, Unmasked))] == [NotUnmasked]
    assert rnd.points[match.player("bo")] == 2
    assert sum(rnd.points.values()) == 2


def test_rule_not_unmasked_includes_a_tie():
    match = make_match(5)
    rnd = play(match, "bo", {"ann": "bo", "cy": "bo", "di": "ann", "ed": "ann"})
    assert not rnd.counted.unmasked
    assert rnd.points[match.player("bo")] == 2


def test_rule_right_vote_scores_1_also_when_the_majority_failed():
    match = make_match(5)
    rnd = play(match, "bo", {"ann": "bo", "cy": "bo", "di": "ann", "ed": "ann"})
    assert {p.name: n for p, n in rnd.points.items()} == {"ann": 1, "bo": 2, "cy": 1, "di": 0, "ed": 0}


def test_rule_unmasked_drunken_sailor_says_one_guess():
    rnd = to_vote(make_match(3), sailor="bo")
    rnd.cast_vote("ann", "bo")
    rnd.cast_vote("cy", "bo")
    with pytest.raises(IllegalAction, match="only guesses after the votes are counted"):
        rnd.guess("anchor")
    counted, event = rnd.tally()
    assert counted.say() == "The votes: Blue 2."
    assert isinstance(event, Unmasked)
    assert rnd.word not in event.say()  # the word is still secret: the sailor must guess it
    rnd.guess("rope")
    with pytest.raises(IllegalAction, match="only one guess"):
        rnd.guess(rnd.word)


def test_rule_no_guess_when_not_unmasked():
    rnd = to_vote(make_match(3), sailor="bo")
    rnd.tally()
    with pytest.raises(IllegalAction, match="not unmasked"):
        rnd.guess(rnd.word)


def test_rule_unmasked_right_guess_sailor_1_and_nobody_else_scores():
    match = make_match(5)
    rnd = to_vote(match, sailor="bo")
    for voter in ("ann", "cy", "di", "ed"):
        rnd.cast_vote(voter, "bo")
    rnd.tally()
    (event,) = rnd.guess("The " + rnd.word.upper() + "s")
    assert isinstance(event, GuessMade) and event.right and "Right" in event.say()
    rnd.score()
    assert {p.name: n for p, n in rnd.points.items()} == {"ann": 0, "bo": 1, "cy": 0, "di": 0, "ed": 0}


def test_rule_unmasked_wrong_guess_every_sailor_who_voted_for_the_drunken_sailor_1():
    match = make_match(5)
    rnd = play(match, "bo", {"ann": "bo", "cy": "bo", "di": "bo", "ed": "ann", "bo": "ann"}, guess="kettle")
    assert rnd.counted.unmasked and rnd.guess_right is False
    assert {p.name: n for p, n in rnd.points.items()} == {"ann": 1, "bo": 0, "cy": 1, "di": 1, "ed": 0}


def test_rule_unmasked_and_no_guess_counts_as_wrong():
    match = make_match(3)
    rnd = play(match, "bo", {"ann": "bo", "cy": "bo"}, guess=None)
    assert rnd.guess_right is False
    assert {p.name: n for p, n in rnd.points.items()} == {"ann": 1, "bo": 0, "cy": 1}


def test_rule_round_points_table():
    players = make_match(3).players
    ann, bo, cy = players
    escaped = count_votes(players, bo, {ann: bo, cy: ann})
    caught = count_votes(players, bo, {ann: bo, cy: bo})
    assert round_points(players, escaped, None) == {ann: 1, bo: 2, cy: 0}
    assert round_points(players, caught, True) == {ann: 0, bo: 1, cy: 0}
    assert round_points(players, caught, False) == {ann: 1, bo: 0, cy: 1}


def test_rule_guess_ignores_case_a_leading_article_and_a_plural():
    for said in ("anchor", "Anchor", "the anchor", "an Anchors", "  A anchor.", "ANCHORS"):
        assert same_word(said, "anchor"), said
    assert same_word("glasses", "glass") and same_word("sandwiches", "sandwich")
    assert same_word("seahorses", "seahorse") and same_word("compasses", "compass")
    assert not same_word("parrot", "anchor") and not same_word("", "anchor")
    assert normalise_word("The Lanterns!") == "lantern"


def test_rule_scores_are_kept_across_rounds():
    match = make_match(3, target=100)
    play(match, "bo", {})
    play(match, "bo", {"ann": "bo"})
    assert {p.name: n for p, n in match.scores.items()} == {"ann": 1, "bo": 4, "cy": 0}
    assert match.rounds_played == 2 and not match.over


# -- winning --------------------------------------------------------------------------

def test_rule_first_to_4_points_wins():
    match = make_match(3)
    play(match, "bo", {})  # bo 2
    assert not match.over
    rnd = play(match, "bo", {}, seed=1)  # bo 4
    assert match.over and [p.name for p in match.winners] == ["bo"]
    assert isinstance(rnd.events[-1], MatchWon) and rnd.events[-1].say() == "Blue wins the match!"


def test_rule_several_at_once_share_the_win():
    match = make_match(3)
    play(match, "ann", {"bo": "ann"})  # ann 2, bo 1
    play(match, "ann", {"bo": "ann"}, seed=1)  # ann 4, bo 2
    assert [p.name for p in match.winners] == ["ann"]
    match = make_match(3)
    play(match, "ann", {"bo": "ann"})  # ann 2 bo 1
    play(match, "bo", {"ann": "bo"}, seed=1)  # ann 3 bo 3
    rnd = play(match, "ann", {"bo": "ann"}, seed=2)  # ann 5 bo 4
    assert [p.name for p in match.winners] == ["ann", "bo"]
    assert rnd.events[-1].say() == "Red and Blue share the win!"


def test_rule_no_round_after_the_match_is_won():
    match = make_match(3, target=2)
    play(match, "bo", {})
    with pytest.raises(IllegalAction, match="The match is over: Blue won"):
        start_round(match, random.Random(0))


# -- the state machine refuses steps out of order -----------------------------------------------

def test_illegal_steps_raise_voicehost_errors_with_a_sentence():
    match = make_match(3)
    rnd = start_round(match, random.Random(0), "ann", sailor="bo")
    with pytest.raises(IllegalAction, match="not finished; score it") as info:
        start_round(match, random.Random(1))
    assert isinstance(info.value, VoicehostError) and info.value.reason.endswith(".")
    with pytest.raises(IllegalAction, match="drawing is not finished"):
        rnd.score()
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    rnd.start_vote()
    with pytest.raises(IllegalAction, match="The round cannot be scored yet: the vote is still open, so count it first."):
        rnd.score()
    rnd.tally()
    with pytest.raises(IllegalAction, match="already been counted"):
        rnd.cast_vote("ann", "bo")
    with pytest.raises(IllegalAction, match="already been counted"):
        rnd.tally()
    (points,) = [e for e in rnd.score() if isinstance(e, Points)]
    assert points.say() == "Blue scores 2."
    with pytest.raises(IllegalAction, match="Round 1 is already scored; start a new round."):
        rnd.score()
