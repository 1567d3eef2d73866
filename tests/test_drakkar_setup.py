"""Setup as the rulebook says: the house deck, four piles with lookouts, islands, dealing."""

from __future__ import annotations

import json
import random
from importlib import resources
from collections import Counter

import pytest

from voicehost.games.drakkar import (
    CARD_NAMES,
    Card,
    DrakkarConfig,
    DrakkarConfigError,
    Kind,
    load_config,
    new_game,
)
from voicehost.games.drakkar.deck import split_piles


def house_data() -> dict:
    return json.loads(resources.files("voicehost").joinpath("data/drakkar.json").read_text())


def test_card_names_round_trip_through_parse_and_str():
    assert len(CARD_NAMES) == 11
    for name in CARD_NAMES:
        assert str(Card.parse(name)) == name
    assert Card.parse("warrior:red").spoken == "red warrior"
    for bad in ("rower", "goblin:red", "rower:blue", "pirate", "", 3):
        with pytest.raises(ValueError):
            Card.parse(bad)


def test_house_deck_has_the_design_counts():
    config = load_config()
    counts = Counter()
    for card, n in config.deck:
        counts[card] += n
    by_kind = Counter()
    for card, n in counts.items():
        by_kind[card.kind] += n
    assert by_kind[Kind.ROWER] == 30
    assert counts[Card.parse("rower:red")] == counts[Card.parse("rower:yellow")] == 15
    assert (by_kind[Kind.GOBLIN], by_kind[Kind.KRAKEN], by_kind[Kind.DRAGON]) == (6, 5, 3)
    assert (by_kind[Kind.WARRIOR], by_kind[Kind.CROSSBOW]) == (11, 4)
    assert abs(counts[Card.parse("warrior:red")] - counts[Card.parse("warrior:yellow")]) <= 1
    assert counts[Card.parse("crossbow:red")] == counts[Card.parse("crossbow:yellow")]
    assert by_kind[Kind.WHIRLPOOL] == 4
    assert config.lookouts == 3
    assert len(config.islands) == 10
    assert {i.ability for i in config.islands} == {"whirlpool", "winter", "inhospitable", None}
    assert config.island("inhospitable").hand_limit == 2


def test_new_game_deals_the_whole_house_deck_plus_three_lookouts():
    state = new_game(["ann", "bo", "cy"], random.Random(0))
    config = load_config()
    expected = Counter({card: n for card, n in config.deck})
    expected[Card(Kind.LOOKOUT)] = 3
    assert Counter(state.setup.deck) == expected
    assert Counter(state.all_cards()) == expected


@pytest.mark.parametrize("seed", range(20))
def test_the_deck_is_four_piles_with_one_lookout_in_each_of_the_first_three(seed):
    deck = new_game(["ann", "bo"], random.Random(seed)).setup.deck
    # 63 voyage cards in piles of 16, 16, 16, 15; a lookout is shuffled into each of the first three
    bounds = [(0, 17), (17, 34), (34, 51)]
    positions = [i for i, card in enumerate(deck) if card.kind is Kind.LOOKOUT]
    assert len(positions) == 3
    for (lo, hi), pos in zip(bounds, positions):
        assert lo <= pos < hi
    assert all(card.kind is not Kind.LOOKOUT for card in deck[51:])


def test_lookouts_land_anywhere_within_their_pile():
    seen = set()
    for seed in range(200):
        deck = new_game(["ann", "bo"], random.Random(seed)).setup.deck
        seen.add(next(i for i, c in enumerate(deck) if c.kind is Kind.LOOKOUT))
    assert min(seen) == 0 and max(seen) == 16 and len(seen) > 12


def test_split_piles_is_as_even_as_possible():
    assert [len(p) for p in split_piles(list(range(63)), 4)] == [16, 16, 16, 15]
    assert sum(split_piles(list(range(10)), 4), []) == list(range(10))


def test_setup_picks_three_islands_face_down():
    state = new_game(["ann", "bo", "cy"], random.Random(5))
    assert len(state.islands_hidden) == 3 and state.islands_found == []
    names = Counter()
    for seed in range(300):
        names.update(i.name for i in new_game(["a", "b"], random.Random(seed)).islands_hidden)
    assert set(names) == {"whirlpool", "winter", "inhospitable", "calm"}
    assert names["calm"] > names["winter"]


def test_the_setup_comes_only_from_the_seeded_generator():
    a = new_game(["ann", "bo", "cy"], random.Random(42))
    b = new_game(["ann", "bo", "cy"], random.Random(42))
    c = new_game(["ann", "bo", "cy"], random.Random(43))
    assert a == b
    assert a.setup.deck != c.setup.deck


def test_first_player_starts_and_deal_sizes():
    state = new_game(["cy", "ann", "bo"], random.Random(1))
    assert state.turn == "cy"
    assert [len(state.hands[p]) for p in state.players] == [3, 3, 3]
    two = new_game(["ann", "bo"], random.Random(1))
    assert [len(two.hands[p]) for p in two.players] == [4, 4]
    assert len(two.deck) == 66 - 8


@pytest.mark.parametrize("players", [["solo"], ["a", "b", "c", "d", "e"], ["a", "a"], ["a", ""]])
def test_player_counts_and_names_are_checked(players):
    with pytest.raises(ValueError):
        new_game(players, random.Random(0))


def test_a_group_can_match_its_printed_deck_through_the_data_file(tmp_path):
    data = house_data()
    data["deck"] = {"rower:red": 4, "goblin": 2}
    data["islands"].append({"name": "fog", "title": "Fog Island", "ability": None})
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    config = load_config(path)
    state = new_game(["ann", "bo"], random.Random(3), config=config)
    assert len(state.setup.deck) == 6 + 3
    assert "fog" in config.island_names


@pytest.mark.parametrize("change,words", [
    (lambda d: d["deck"].update({"rower:blue": 3}), "rower:blue"),
    (lambda d: d["deck"].update({"goblin": -1}), "goblin"),
    (lambda d: d["islands"][0].update(ability="storm"), "storm"),
    (lambda d: d["islands"][2].pop("hand_limit"), "hand_limit"),
    (lambda d: d.pop("lookouts"), "lookouts"),
])
def test_a_broken_data_file_is_one_clear_error(change, words):
    data = house_data()
    change(data)
    with pytest.raises(DrakkarConfigError) as error:
        DrakkarConfig.from_dict(data)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_an_unreadable_data_file_is_one_clear_error(tmp_path):
    with pytest.raises(DrakkarConfigError, match="Cannot read"):
        load_config(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(DrakkarConfigError, match="Cannot read"):
        load_config(tmp_path / "bad.json")
