"""Replaying Sunken Sailor records, and the bad records that raise RecordError."""

from __future__ import annotations

import copy
import json

import pytest

from voicehost.errors import RecordError
from voicehost.games.sailor import match_to_dict, replay_match, replay_record

PLAYERS = [{"name": "ann", "colour": "red"}, {"name": "bo", "colour": "blue"}, {"name": "cy", "colour": "green"}]


def record(*rounds, players=PLAYERS):
    return {"game": "sailor", "players": copy.deepcopy(players), "rounds": list(rounds)}


def rnd(sailor="bo", votes=None, guess=None, word="anchor"):
    return {"word": word, "sailor": sailor, "votes": {} if votes is None else votes, "guess": guess}


def test_issue_example_unmasked_and_right_guess():
    out = replay_record(record(rnd("bo", {"ann": "bo", "bo": "ann", "cy": "bo"}, "anchor")))
    assert out["scores"] == {"ann": 0, "bo": 1, "cy": 0}
    assert out["winners"] == []
    assert out["rounds"] == [{
        "unmasked": True, "guess_right": True, "points": {"ann": 0, "bo": 1, "cy": 0},
        "word": "anchor", "sailor": "bo", "votes_for_sailor": 2, "needed": 2,
    }]


def test_wrong_guess_and_not_unmasked_rounds():
    out = replay_record(record(
        rnd("bo", {"ann": "bo", "cy": "blue"}, "the rope"),
        rnd("ann", {"bo": "red", "cy": "bo", "ann": "cy"}, None, word="parrot"),
    ))
    assert [r["unmasked"] for r in out["rounds"]] == [True, False]
    assert [r["guess_right"] for r in out["rounds"]] == [False, None]
    assert out["rounds"][0]["points"] == {"ann": 1, "bo": 0, "cy": 1}
    assert out["rounds"][1]["points"] == {"ann": 2, "bo": 1, "cy": 0}
    assert out["scores"] == {"ann": 3, "bo": 1, "cy": 1}


def test_votes_may_name_players_by_name_colour_or_seat_any_case():
    by_name = replay_record(record(rnd("bo", {"ann": "bo", "cy": "bo"}, "Anchors")))
    by_colour = replay_record(record(rnd("Blue", {"RED": "blue", "green": "Bo"}, "anchors")))
    by_seat = replay_record(record(rnd(2, {"1": 2, "3": "2"}, "an anchor")))
    assert by_name == by_colour == by_seat
    assert by_name["rounds"][0]["guess_right"] is True


def test_missing_and_null_votes_count_as_no_vote():
    out = replay_record(record(rnd("bo", {"ann": "bo", "cy": None}, "anchor")))
    assert out["rounds"][0]["unmasked"] is False
    assert out["rounds"][0]["points"] == {"ann": 1, "bo": 2, "cy": 0}


def test_guess_is_ignored_when_not_unmasked():
    out = replay_record(record(rnd("bo", {}, "anchor")))
    assert out["rounds"][0]["guess_right"] is None and out["scores"]["bo"] == 2


def test_match_ends_at_4_and_shared_winners_are_listed_in_seat_order():
    out = replay_record(record(
        rnd("ann", {"bo": "ann"}), rnd("bo", {"ann": "bo"}), rnd("ann", {"bo": "ann"}),
    ))
    assert out["scores"] == {"ann": 5, "bo": 4, "cy": 0}
    assert out["winners"] == ["ann", "bo"] and out["over"] is True


def test_final_match_is_available_and_round_trips_through_match_to_dict():
    rec = record(rnd("bo", {"ann": "bo", "cy": "bo"}, "rope"), rnd("cy", {"ann": "bo"}, None, "parrot"))
    match = replay_match(rec)
    assert match.rounds_played == 2 and match.used == ["anchor", "parrot"]
    data = match_to_dict(match)
    json.dumps(data)  # plain data
    assert replay_record(data) == replay_record(rec)
    assert match_to_dict(replay_match(data)) == data


def test_target_may_be_given():
    rec = record(rnd("bo", {}))
    rec["target"] = 2
    assert replay_record(rec)["winners"] == ["bo"]


def test_words_outside_the_bundled_deck_and_repeats_are_accepted():
    out = replay_record(record(rnd(word="kettle"), rnd(word="kettle")))
    assert [r["word"] for r in out["rounds"]] == ["kettle", "kettle"]


# -- bad records: each raises RecordError with one clear sentence --------------------------------

def without(data, *path):
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return data


GOOD = record(rnd("bo", {"ann": "bo", "cy": "bo"}, "anchor"))
BAD = {
    "not an object": (["sailor"], "must be a JSON object"),
    "missing game": (without(GOOD, "game"), 'no "game" field'),
    "wrong game": ({**GOOD, "game": "drakkar"}, "for the game 'drakkar', not \"sailor\""),
    "missing players": (without(GOOD, "players"), 'no "players" field'),
    "players not a list": ({**GOOD, "players": "ann"}, '"players" must be a list'),
    "missing rounds": (without(GOOD, "rounds"), 'no "rounds" field'),
    "rounds not a list": ({**GOOD, "rounds": {}}, '"rounds" must be a list'),
    "missing name": (without(GOOD, "players", 1, "name"), 'Player 2 of the record has no "name"'),
    "missing colour": (without(GOOD, "players", 0, "colour"), 'Player 1 of the record has no "colour"'),
    "missing word": (without(GOOD, "rounds", 0, "word"), 'Round 1 of the record has no "word"'),
    "missing sailor": (without(GOOD, "rounds", 0, "sailor"), 'has no "sailor"'),
    "missing votes": (without(GOOD, "rounds", 0, "votes"), 'has no "votes"'),
    "missing guess": (without(GOOD, "rounds", 0, "guess"), 'has no "guess"'),
    "too few players": (record(players=PLAYERS[:2]), "3 to 8 players; the record has 2"),
    "too many players": (
        record(players=[{"name": f"p{i}", "colour": c} for i, c in enumerate(
            ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "red"])]),
        "3 to 8 players; the record has 9",
    ),
    "unknown colour": (
        record(players=PLAYERS[:2] + [{"name": "cy", "colour": "pink"}]),
        "Player cy has the pencil colour 'pink', which is not one of red, blue",
    ),
    "duplicate colour": (
        record(players=PLAYERS[:2] + [{"name": "cy", "colour": "Blue"}]),
        "Players bo and cy both have the pencil colour blue",
    ),
    "duplicate name": (
        record(players=PLAYERS[:2] + [{"name": "ANN", "colour": "green"}]),
        "Two players are called 'ANN'",
    ),
    "unknown voter": (record(rnd("bo", {"dan": "bo"})), "Round 1 of the record: the voter 'dan' is not in this match"),
    "unknown suspect": (record(rnd("bo", {"ann": "dan"})), "Round 1 of the record: ann's suspect 'dan' is not in this match"),
    "unknown sailor": (record(rnd("pink")), "the Drunken Sailor 'pink' is not in this match; name a player, a pencil colour or a seat number 1 to 3 (the players are ann (red), bo (blue), cy (green))"),
    "seat out of range": (record(rnd("bo", {"ann": 4})), "ann's suspect 4 is not in this match; name a player, a pencil colour or a seat number 1 to 3"),
    "voting twice": (record(rnd("bo", {"ann": "bo", "red": "cy"})), "ann votes twice"),
    "guess not text": (record(rnd("bo", {}, 3)), '"guess" must be the guessed word'),
    "round after the win": (
        record(rnd("bo"), rnd("bo"), rnd("bo")),
        "Round 3 of the record comes after the match was won by bo",
    ),
    "bad target": ({**GOOD, "target": 0}, '"target" must be a whole number'),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_record_raises_record_error_with_one_clear_sentence(case):
    data, message = BAD[case]
    with pytest.raises(RecordError) as info:
        replay_record(data)
    text = str(info.value)
    assert message in text
    assert "\n" not in text and text.endswith(".")


def test_journal_rounds_written_one_by_one_replay_to_the_same_match():
    import random

    from voicehost.games.sailor import Phase, new_match, round_to_dict, start_round

    match = new_match([("ann", "red"), ("bo", "blue"), ("cy", "green")])
    rng = random.Random(7)
    journal = []
    for votes in ({"ann": "bo"}, {"ann": "cy", "cy": "ann"}):
        rnd = start_round(match, rng)
        with pytest.raises(RecordError, match="not scored yet"):
            round_to_dict(rnd)
        while rnd.phase is Phase.DRAWING:
            rnd.done_drawing()
        rnd.start_vote()
        for voter, suspect in votes.items():
            rnd.cast_vote(voter, suspect)
        rnd.tally()
        if rnd.phase is Phase.GUESS:
            rnd.guess("kettle")
        rnd.score()
        journal.append(json.loads(json.dumps(round_to_dict(rnd))))
    resumed = replay_match({"game": "sailor", "players": PLAYERS, "rounds": journal})
    assert resumed.scores == match.scores and resumed.used == match.used
    assert [r.starter for r in resumed.rounds] == [r.starter for r in match.rounds]


def test_record_words_are_matched_to_the_deck_ignoring_case_and_plural():
    match = replay_match(record(rnd(word="Anchors")))
    assert match.rounds[0].envelope.lines and match.used == ["anchor"]
