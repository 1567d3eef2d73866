"""Drakkar records: replay output, refused plays, discards, and bad records."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from voicehost.errors import RecordError
from voicehost.games.drakkar import Card, from_setup, play, replay, replay_record

RECORD = {
    "game": "drakkar",
    "players": ["ann", "bo", "cy"],
    "variant": None,
    # dealt round-robin: ann gets rower:red, rower:red, warrior:red;
    # bo rower:yellow, rower:yellow, crossbow:yellow; cy goblin, kraken, lookout
    "deck": ["rower:red", "rower:yellow", "goblin",
             "rower:red", "rower:yellow", "kraken",
             "warrior:red", "crossbow:yellow", "lookout",
             "rower:red", "dragon", "rower:yellow", "whirlpool", "rower:red", "rower:red"],
    "islands": ["winter", "calm", "whirlpool"],
    "events": [
        {"type": "play", "player": "ann", "card": "goblin", "slot": 2, "timing": "on_beat"},
        {"type": "play", "player": "ann", "card": "rower:red", "slot": 1, "timing": "on_beat"},
        {"type": "play", "player": "bo", "card": "rower:yellow", "slot": 1, "timing": "on_beat"},
        {"type": "play", "player": "cy", "card": "kraken", "slot": 2, "timing": "on_beat"},
        {"type": "play", "player": "ann", "card": "rower:red", "slot": 2, "timing": "on_beat"},
        {"type": "play", "player": "ann", "card": "warrior:red", "slot": 2, "timing": "on_beat"},
        {"type": "play", "player": "cy", "card": "goblin", "slot": 3, "timing": "on_beat"},
    ],
}


def test_replay_output_follows_the_record_contract():
    out = replay_record(copy.deepcopy(RECORD))
    assert {k: out[k] for k in ("result", "reason", "islands_found", "song", "tums", "ship",
                                "hands", "deck_left", "next_player", "rejected")} == {
        "result": "playing",
        "reason": None,
        "islands_found": 0,
        "song": "Drakkar Tum Tum",
        "tums": 2,
        "ship": ["rower:yellow", "warrior:red", "goblin"],
        "hands": {"ann": ["rower:red", "rower:red", "whirlpool"],
                  "bo": ["rower:yellow", "crossbow:yellow", "dragon"],
                  "cy": ["lookout", "rower:yellow"]},
        "deck_left": 2,
        "next_player": "ann",  # cy played out of turn: play goes on after cy
        "rejected": [{"index": 0, "why": "Ann does not hold a goblin."},
                     {"index": 4, "why": "A rower cannot cover the Kraken."}],
    }
    json.dumps(out)  # plain JSON data


def test_an_uncovered_section_is_grey_in_the_output():
    record = dict(RECORD, events=RECORD["events"][:2])
    assert replay_record(record)["ship"] == ["rower:red", "grey", "grey"]


def test_a_refused_play_changes_nothing_and_the_same_player_may_play_again():
    with_refusal = replay(dict(RECORD, events=RECORD["events"][:2]))
    without = replay(dict(RECORD, events=RECORD["events"][1:2]))
    assert with_refusal.state == without.state
    assert with_refusal.rejected == [{"index": 0, "why": "Ann does not hold a goblin."}]


def test_replay_gives_the_engine_state():
    result = replay(RECORD)
    state = from_setup(RECORD["players"], RECORD["deck"], RECORD["islands"])
    for i, e in enumerate(RECORD["events"]):
        if i in (0, 4):
            continue
        state, _ = play(state, e["player"], Card.parse(e["card"]), e["slot"], e["timing"])
    assert result.state == state


DISCARDS = {
    "game": "drakkar", "players": ["ann", "bo"], "variant": None,
    # ann: 4 red rowers; bo: rower:red, lookout, rower:yellow, rower:yellow
    "deck": ["rower:red", "rower:red", "rower:red", "lookout", "rower:red", "rower:yellow",
             "rower:red", "rower:yellow", "goblin", "kraken", "dragon", "whirlpool",
             "rower:red", "rower:red"],
    "islands": ["inhospitable", "calm", "calm"],
    "events": [
        {"type": "play", "player": "ann", "card": "rower:red", "slot": 1, "timing": "on_beat"},
        {"type": "play", "player": "bo", "card": "rower:red", "slot": 2, "timing": "on_beat"},
        {"type": "play", "player": "ann", "card": "rower:red", "slot": 3, "timing": "on_beat"},
        {"type": "play", "player": "bo", "card": "lookout", "slot": 1, "timing": "on_beat"},
        {"type": "discard", "player": "ann", "card": "goblin"},
        {"type": "play", "player": "ann", "card": "rower:red", "slot": 1, "timing": "on_beat"},
        {"type": "discard", "player": "bo", "card": "rower:yellow"},
    ],
}


def test_discards_from_the_record_and_documented_defaults():
    out = replay_record(DISCARDS)
    assert out["islands_found"] == 1 and out["islands"] == ["inhospitable"]
    assert out["hand_limit"] == 2
    # ann chose the goblin; then, before play 5, ann's second and bo's discard defaulted
    # to the cards each received most recently
    assert out["defaulted_discards"] == [{"before": 5, "player": "ann", "card": "dragon"},
                                         {"before": 5, "player": "bo", "card": "kraken"}]
    assert out["hands"] == {"ann": ["rower:red", "whirlpool"],
                            "bo": ["rower:yellow", "rower:yellow"]}
    assert out["rejected"] == [{"index": 6, "why": "Bo has nothing to discard."}]
    assert out["deck_left"] == 2 and out["next_player"] == "bo"


def test_a_finished_game_refuses_further_plays_in_a_record():
    record = copy.deepcopy(RECORD)
    record["deck"][9:] = ["rower:red"]  # one card left to draw: the first draw empties it
    record["events"] = RECORD["events"][1:3]
    out = replay_record(record)
    assert out["result"] == "lost" and out["deck_left"] == 0
    assert out["reason"].startswith("The voyage deck is empty")
    assert out["next_player"] is None
    assert out["rejected"] == [{"index": 1, "why": "The game is over. " + out["reason"]}]


def test_a_percussionist_record():
    record = dict(RECORD, variant="percussionist:yellow")
    assert replay_record(record)["percussionist"] == "yellow"


def _broken(**changes):
    record = copy.deepcopy(RECORD)
    for key, value in changes.items():
        if value is KeyError:
            del record[key]
        else:
            record[key] = value
    return record


def _event(i, **changes):
    record = copy.deepcopy(RECORD)
    for key, value in changes.items():
        if value is KeyError:
            del record["events"][i][key]
        else:
            record["events"][i][key] = value
    return record


BAD = {
    "not_an_object": (["drakkar"], "must be a JSON object"),
    "missing_players": (_broken(players=KeyError), "no 'players' field"),
    "missing_deck": (_broken(deck=KeyError), "no 'deck' field"),
    "missing_islands": (_broken(islands=KeyError), "no 'islands' field"),
    "missing_variant": (_broken(variant=KeyError), "no 'variant' field"),
    "missing_events": (_broken(events=KeyError), "no 'events' field"),
    "wrong_game": (_broken(game="sailor"), "not a Drakkar one"),
    "players_not_a_list": (_broken(players="ann,bo"), "'players' must be a list"),
    "too_many_players": (_broken(players=["a", "b", "c", "d", "e"]), "2 to 4 players"),
    "same_name_twice": (_broken(players=["ann", "ann", "cy"]), "same name"),
    "unknown_card_in_deck": (_broken(deck=RECORD["deck"][:3] + ["rower:blue"]), "Deck card 4"),
    "deck_too_short": (_broken(deck=RECORD["deck"][:5]), "too few to deal"),
    "unknown_island": (_broken(islands=["winter", "atlantis", "calm"]), "Unknown island 'atlantis'"),
    "two_islands": (_broken(islands=["winter", "calm"]), "3 islands"),
    "bad_variant": (_broken(variant="percussionist:blue"), "Unknown variant"),
    "event_not_object": (_broken(events=["ann plays"]), "events[0] must be an object"),
    "unknown_event_type": (_event(1, type="sing"), "events[1] has type 'sing'"),
    "event_missing_slot": (_event(2, slot=KeyError), "events[2] has no 'slot' field"),
    "event_missing_timing": (_event(2, timing=KeyError), "no 'timing' field"),
    "event_missing_card": (_event(2, card=KeyError), "no 'card' field"),
    "unknown_player": (_event(3, player="zed"), "events[3] names player 'zed'"),
    "unknown_card": (_event(3, card="pirate"), "The card of events[3] is 'pirate'"),
    "slot_out_of_range": (_event(3, slot=4), "events[3] has slot 4"),
    "slot_not_a_number": (_event(3, slot="2"), "has slot '2'"),
    "slot_true": (_event(3, slot=True), "has slot True"),
    "bad_timing": (_event(3, timing="late"), "events[3] has timing 'late'"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_record_raises_one_clear_record_error(name):
    record, words = BAD[name]
    with pytest.raises(RecordError) as error:
        replay_record(record)
    message = str(error.value)
    assert words in message
    assert "\n" not in message and message.endswith(".")


def test_the_replay_command_reads_a_drakkar_record(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    out = subprocess.run([sys.executable, "-m", "voicehost", "replay", str(path), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ship"] == ["rower:yellow", "warrior:red", "goblin"]
    path.write_text(json.dumps(_event(3, slot=9)))
    out = subprocess.run([sys.executable, "-m", "voicehost", "replay", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "slot 9" in out.stderr
