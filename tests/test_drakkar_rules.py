"""One or more tests per rule of design.md section 1 (Drakkar Tum Tum), named after the rule."""

from __future__ import annotations

from collections import Counter

import pytest

from voicehost.games.drakkar import (
    Card,
    Clan,
    IllegalPlay,
    Kind,
    check_play,
    default_discards,
    discard,
    from_setup,
    legal_plays,
    legal_slots,
    next_song,
    play,
    singing_stops,
    song,
    state_to_dict,
)

C = Card.parse


def start(hands: dict[str, str], deck: str = "rower:red " * 12, islands: str = "calm calm calm",
          variant: str | None = None):
    """A game whose players were dealt exactly ``hands`` (dealing is round-robin)."""
    hands_ = {p: h.split() for p, h in hands.items()}
    players = list(hands_)
    n = len(hands_[players[0]])
    order = [hands_[p][i] for i in range(n) for p in players]
    return from_setup(players, order + deck.split(), islands.split(), variant)


def with_ship(state, *tops: str):
    """The same state with the given top cards on sections 1 to 3 ("grey" for none)."""
    s = state.copy()
    s.ship = [[] if t == "grey" else [C(t)] for t in tops]
    return s


def names(cards):
    return [str(c) for c in cards]


def types(events):
    return [e.type for e in events]


ANN_BO_CY = {"ann": "rower:red rower:red rower:red",
             "bo": "rower:yellow rower:yellow rower:yellow",
             "cy": "goblin kraken dragon"}


# --- The song -------------------------------------------------------------------------

def test_song_without_danger_is_drakkar_tum_tum_tum():
    s = start(ANN_BO_CY)
    assert song(s).text == "Drakkar Tum Tum Tum"
    assert song(s).tums == 3 and not song(s).reversed


@pytest.mark.parametrize("danger", ["goblin", "kraken", "dragon"])
def test_each_danger_on_a_section_removes_one_tum(danger):
    s = with_ship(start(ANN_BO_CY), danger, "rower:red", "rower:yellow")
    assert song(s).tums == 2 and song(s).text == "Drakkar Tum Tum"
    s = with_ship(s, danger, danger, "rower:yellow")
    assert song(s).tums == 1 and song(s).text == "Drakkar Tum"


def test_a_danger_removes_a_tum_and_a_defence_brings_it_back():
    s = start({"ann": "goblin rower:red rower:red", "bo": "warrior:red rower:yellow rower:yellow",
               "cy": "rower:red rower:red rower:red"})
    s, events = play(s, "ann", C("goblin"), 2)
    assert song(s).tums == 2
    assert [e.song for e in events if e.type == "song_changed"] == ["Drakkar Tum Tum"]
    s, events = play(s, "bo", C("warrior:red"), 2)
    assert song(s).tums == 3
    assert [e.song for e in events if e.type == "song_changed"] == ["Drakkar Tum Tum Tum"]


def test_only_the_top_card_of_a_section_counts_for_the_song():
    s = with_ship(start(ANN_BO_CY), "grey", "grey", "grey")
    s.ship[0] = [C("kraken"), C("crossbow:red")]
    assert song(s).tums == 3


def test_the_next_song_is_the_one_sung_until_the_game_ends():
    s = with_ship(start(ANN_BO_CY), "goblin", "kraken", "rower:red")
    assert next_song(s) == song(s) and next_song(s).text == "Drakkar Tum"
    s.active = 2
    s, _ = play(s, "cy", C("dragon"), 3)  # three dangers: lost, and no Tum left to sing
    assert s.is_over and song(s).tums == 0 and next_song(s) is None
    s = start(ANN_BO_CY, deck="goblin rower:red")
    s, _ = play(s, "ann", C("rower:red"), 1)
    s, _ = play(s, "bo", C("rower:yellow"), 1)  # the deck runs out: lost with three Tums
    assert s.is_over and song(s).tums == 3 and next_song(s) is None


# --- Placement ------------------------------------------------------------------------

@pytest.mark.parametrize("danger,name", [("goblin", "goblin"), ("kraken", "Kraken"),
                                         ("dragon", "Dragon")])
def test_rowers_go_on_anything_but_a_danger(danger, name):
    s = with_ship(start(ANN_BO_CY), danger, "rower:yellow", "warrior:red")
    assert check_play(s, "ann", C("rower:red"), 1) == f"A rower cannot cover the {name}."
    assert check_play(s, "ann", C("rower:red"), 2) is None
    assert check_play(s, "ann", C("rower:red"), 3) is None
    assert legal_slots(s, C("rower:red")) == [2, 3]


def test_a_rower_on_a_danger_is_refused_with_a_reason_and_changes_nothing():
    s = with_ship(start(ANN_BO_CY), "kraken", "grey", "grey")
    before = state_to_dict(s)
    with pytest.raises(IllegalPlay) as refused:
        play(s, "ann", C("rower:red"), 1)
    assert refused.value.reason == "A rower cannot cover the Kraken."
    assert state_to_dict(s) == before


@pytest.mark.parametrize("danger", ["goblin", "kraken", "dragon"])
def test_dangers_go_on_anything_but_another_danger(danger):
    s = with_ship(start({"ann": f"{danger} rower:red rower:red", "bo": "rower:red " * 3,
                         "cy": "rower:red " * 3}), "goblin", "warrior:yellow", "grey")
    assert "a danger never goes on another danger" in check_play(s, "ann", C(danger), 1)
    assert legal_slots(s, C(danger)) == [2, 3]
    s = with_ship(s, "crossbow:red", "whirlpool", "rower:yellow")
    assert legal_slots(s, C(danger)) == [1, 2, 3]


def test_warriors_go_on_anything_but_the_dragon():
    s = start({"ann": "warrior:yellow rower:red rower:red", "bo": "rower:red " * 3,
               "cy": "rower:red " * 3})
    s = with_ship(s, "goblin", "kraken", "dragon")
    assert legal_slots(s, C("warrior:red")) == [1, 2]
    assert check_play(s, "ann", C("warrior:yellow"), 3) == (
        "A warrior cannot cover the Dragon: only a crossbow can.")
    s = with_ship(s, "rower:red", "whirlpool", "crossbow:yellow")
    assert legal_slots(s, C("warrior:red")) == [1, 2, 3]


def test_crossbows_go_on_anything_even_the_dragon():
    s = start({"ann": "crossbow:red rower:red rower:red", "bo": "rower:red " * 3,
               "cy": "rower:red " * 3})
    for tops in (("goblin", "kraken", "dragon"), ("rower:red", "whirlpool", "warrior:yellow")):
        assert legal_slots(with_ship(s, *tops), C("crossbow:yellow")) == [1, 2, 3]
    s = with_ship(s, "dragon", "goblin", "rower:red")
    s, _ = play(s, "ann", C("crossbow:red"), 1)
    assert s.ship[0] == [C("dragon"), C("crossbow:red")]
    assert song(s).tums == 2


def test_whirlpools_go_on_anything_but_a_danger():
    s = with_ship(start(ANN_BO_CY), "dragon", "rower:red", "crossbow:red")
    assert legal_slots(s, C("whirlpool")) == [2, 3]
    assert check_play(s, "ann", C("whirlpool"), 1) is not None


def test_a_lookout_needs_all_three_sections_in_one_clan_colour():
    s = start({"ann": "lookout rower:red rower:red", "bo": "rower:red " * 3,
               "cy": "rower:red " * 3})
    refusal = "A lookout needs all three sections in one clan colour."
    for tops in (("grey", "grey", "grey"), ("rower:red", "rower:red", "grey"),
                 ("rower:red", "rower:yellow", "warrior:red"),
                 ("rower:red", "whirlpool", "rower:red"), ("rower:red", "goblin", "rower:red")):
        assert check_play(with_ship(s, *tops), "ann", C("lookout"), 1) == refusal, tops
        assert legal_slots(with_ship(s, *tops), C("lookout")) == []
    for tops in (("rower:red", "warrior:red", "crossbow:red"),
                 ("rower:yellow", "rower:yellow", "crossbow:yellow")):
        assert legal_slots(with_ship(s, *tops), C("lookout")) == [1, 2, 3]


def test_a_player_can_only_play_a_card_they_hold():
    s = start(ANN_BO_CY)
    assert check_play(s, "ann", C("kraken"), 1) == "Ann does not hold a Kraken."
    with pytest.raises(IllegalPlay, match="Bo does not hold a red rower"):
        play(s, "bo", C("rower:red"), 1)


def test_the_ship_has_three_sections():
    s = start(ANN_BO_CY)
    for slot in (0, 4, -1):
        assert "There is no section" in check_play(s, "ann", C("rower:red"), slot)


def test_an_unknown_player_is_refused():
    assert check_play(start(ANN_BO_CY), "zed", C("rower:red"), 1) == (
        "Nobody called zed is at the table.")


def test_timing_other_than_on_or_off_beat_is_a_programming_error():
    with pytest.raises(ValueError):
        play(start(ANN_BO_CY), "ann", C("rower:red"), 1, timing="late")


# --- The turn ----------------------------------------------------------------------------

def test_the_active_player_plays_one_card_then_draws_one():
    s = start(ANN_BO_CY, deck="warrior:yellow goblin " + "rower:red " * 10)
    s2, events = play(s, "ann", C("rower:red"), 1)
    assert s2.ship[0] == [C("rower:red")]
    assert names(s2.hands["ann"]) == ["rower:red", "rower:red", "warrior:yellow"]
    assert len(s2.deck) == len(s.deck) - 1
    assert types(events) == ["card_played", "card_drawn", "next_player"]
    assert events[1].say() == "Ann draws a card."  # who, never what


def test_turns_go_clockwise_one_bar_each():
    s = start(ANN_BO_CY)
    order = []
    for player, card in [("ann", "rower:red"), ("bo", "rower:yellow"), ("cy", "goblin"),
                         ("ann", "rower:red")]:
        order.append(s.turn)
        s, events = play(s, player, C(card), 1 if card != "goblin" else 2)
    assert order == ["ann", "bo", "cy", "ann"]
    assert s.turn == "bo" and events[-1].player == "bo"


def test_a_whirlpool_reverses_turn_order():
    s = start({"ann": "rower:red " * 3, "bo": "whirlpool rower:red rower:red",
               "cy": "rower:red " * 3, "dee": "rower:red " * 3})
    s, _ = play(s, "ann", C("rower:red"), 1)
    s, events = play(s, "bo", C("whirlpool"), 2)
    assert "turn_reversed" in types(events)
    assert s.turn == "ann"
    s, _ = play(s, "ann", C("rower:red"), 1)
    assert s.turn == "dee"


def test_a_whirlpool_with_two_players_lets_the_same_player_play_again():
    s = start({"ann": "whirlpool rower:red rower:red rower:red", "bo": "rower:red " * 4})
    s, events = play(s, "ann", C("whirlpool"), 1)
    assert "extra_turn" in types(events)
    assert s.turn == "ann"
    s, _ = play(s, "ann", C("rower:red"), 2)
    assert s.turn == "bo"


def test_two_players_are_dealt_four_cards_and_more_players_three():
    two = start({"ann": "rower:red " * 4, "bo": "goblin " * 4})
    assert {p: len(h) for p, h in two.hands.items()} == {"ann": 4, "bo": 4}
    assert two.hand_limit == 4
    three = start(ANN_BO_CY)
    assert [len(three.hands[p]) for p in three.players] == [3, 3, 3]


def test_dealing_is_one_card_at_a_time_from_the_first_player():
    deck = ["rower:red", "goblin", "kraken", "dragon", "whirlpool", "lookout",
            "warrior:red", "warrior:yellow", "crossbow:red", "rower:yellow"]
    s = from_setup(["ann", "bo", "cy"], deck, ["calm", "calm", "calm"])
    assert names(s.hands["ann"]) == ["rower:red", "dragon", "warrior:red"]
    assert names(s.hands["bo"]) == ["goblin", "whirlpool", "warrior:yellow"]
    assert names(s.hands["cy"]) == ["kraken", "lookout", "crossbow:red"]
    assert names(s.deck) == ["rower:yellow"]
    assert s.turn == "ann"


# --- The lookout ---------------------------------------------------------------------------

def _lookout_ready(islands="winter calm whirlpool", variant=None, tops=("rower:red",) * 3, **kw):
    s = start({"ann": "lookout rower:red rower:red", "bo": "rower:yellow " * 3,
               "cy": "rower:red " * 3}, islands=islands, variant=variant, **kw)
    return with_ship(s, *tops)


def test_a_lookout_reveals_the_next_island_and_clears_the_ship():
    s = _lookout_ready(islands="calm winter whirlpool",
                       tops=("rower:red", "warrior:red", "crossbow:red"))
    s, events = play(s, "ann", C("lookout"), 2)
    assert [i.name for i in s.islands_found] == ["calm"]
    assert [i.name for i in s.islands_hidden] == ["winter", "whirlpool"]
    assert s.ship == [[], [], []]
    assert Counter(names(s.discard_pile)) == Counter(
        ["rower:red", "warrior:red", "crossbow:red", "lookout"])
    assert song(s).text == "Drakkar Tum Tum Tum"
    revealed = [e for e in events if e.type == "island_revealed"]
    assert revealed[0].name == "calm" and revealed[0].number == 1
    assert "ship_cleared" in types(events)


def test_turn_order_goes_on_after_a_lookout():
    s, events = play(_lookout_ready(), "ann", C("lookout"), 1)
    assert s.turn == "bo"
    assert names(s.hands["ann"]) == ["rower:red", "rower:red", "rower:red"]  # draws as usual


# --- Islands ----------------------------------------------------------------------------

def test_whirlpool_island_swaps_bow_and_stern_for_the_rest_of_the_voyage():
    s = _lookout_ready(islands="whirlpool calm calm")
    s, events = play(s, "ann", C("lookout"), 1)
    assert song(s).reversed and song(s).text == "Tum Tum Tum Drakkar"
    assert any(e.type == "song_changed" and e.song == "Tum Tum Tum Drakkar" for e in events)
    s, _ = play(s, "bo", C("rower:yellow"), 1)
    s, _ = play(s, "cy", C("rower:red"), 1)
    s.ship[1] = [C("goblin")]
    assert song(s).text == "Tum Tum Drakkar"
    # still reversed after the next island
    s.ship = [[C("rower:red")]] * 3
    s.hands["ann"].append(C("lookout"))
    s, _ = play(s, "ann", C("lookout"), 1)
    assert song(s).reversed and [i.name for i in s.islands_found] == ["whirlpool", "calm"]


def test_winter_island_puts_cleared_warriors_back_on_top_of_the_deck_not_shuffled():
    s = _lookout_ready(islands="winter calm calm", tops=("rower:red", "rower:red", "rower:red"),
                       deck="goblin " + "rower:yellow " * 10)
    s.ship = [[C("warrior:yellow"), C("rower:red")],
              [C("crossbow:red"), C("warrior:red")],
              [C("kraken"), C("warrior:red")]]
    deck_before = list(s.deck)
    s, events = play(s, "ann", C("lookout"), 1)
    # the three warriors (not the crossbow), section 1 to 3 bottom to top, the first on top;
    # then ann draws the top one
    assert names(s.hands["ann"])[-1] == "warrior:yellow"
    assert names(s.deck[:2]) == ["warrior:red", "warrior:red"]
    assert s.deck[2:] == deck_before
    assert Counter(names(s.discard_pile)) == Counter(
        ["rower:red", "crossbow:red", "kraken", "lookout"])
    assert [e.count for e in events if e.type == "warriors_returned"] == [3]


def test_winter_island_lasts_for_later_clearings():
    s = _lookout_ready(islands="winter calm calm")
    s, _ = play(s, "ann", C("lookout"), 1)
    s.ship = [[C("warrior:red")], [C("rower:red")], [C("crossbow:red")]]
    s.hands["bo"].append(C("lookout"))
    s, events = play(s, "bo", C("lookout"), 1)
    assert "warriors_returned" in types(events)
    assert C("warrior:red") not in s.discard_pile


def test_without_winter_island_warriors_are_discarded():
    s = _lookout_ready(islands="calm winter calm", tops=("warrior:red", "rower:red", "rower:red"))
    s, events = play(s, "ann", C("lookout"), 1)
    assert C("warrior:red") in s.discard_pile
    assert "warriors_returned" not in types(events)


def test_a_calm_island_has_no_ability():
    s0 = _lookout_ready(islands="calm calm calm")
    s, events = play(s0, "ann", C("lookout"), 1)
    assert not s.reversed and s.hand_limit == s0.hand_limit and not s.winter
    assert set(types(events)) <= {"card_played", "island_revealed", "ship_cleared",
                                  "card_drawn", "next_player"}


def test_inhospitable_island_drops_the_hand_limit_to_two_and_larger_hands_discard():
    s = _lookout_ready(islands="inhospitable calm calm")
    s, events = play(s, "ann", C("lookout"), 1)
    assert s.hand_limit == 2
    assert "hand_limit_changed" in types(events)
    # ann played down to 2: no draw; bo and cy hold 3 and owe one discard each
    assert len(s.hands["ann"]) == 2
    assert ("no_draw", "ann") in [(e.type, getattr(e, "player", None)) for e in events]
    assert s.pending_discards == {"bo": 1, "cy": 1}
    with pytest.raises(IllegalPlay, match="First Bo must discard 1 card"):
        play(s, "bo", C("rower:yellow"), 1)
    with pytest.raises(IllegalPlay, match="does not hold"):
        discard(s, "bo", C("kraken"))
    with pytest.raises(IllegalPlay, match="nothing to discard"):
        discard(s, "ann", C("rower:red"))
    s, _ = discard(s, "bo", C("rower:yellow"))
    s, _ = discard(s, "cy", C("rower:red"))
    assert s.pending_discards == {}
    assert [len(s.hands[p]) for p in s.players] == [2, 2, 2]
    # from now on a player at the limit plays one and draws one back to it, never above
    s, events = play(s, "bo", C("rower:yellow"), 1)
    assert len(s.hands["bo"]) == 2 and "card_drawn" in types(events)


def test_default_discards_drop_the_most_recently_received_cards():
    s = start({"ann": "lookout rower:red rower:red", "bo": "goblin kraken dragon",
               "cy": "rower:red rower:yellow whirlpool"}, islands="inhospitable calm calm")
    s = with_ship(s, "rower:red", "rower:red", "rower:red")
    s, _ = play(s, "ann", C("lookout"), 1)
    s, events = default_discards(s)
    assert names(s.hands["bo"]) == ["goblin", "kraken"]
    assert names(s.hands["cy"]) == ["rower:red", "rower:yellow"]
    assert types(events) == ["discarded", "discarded"]


# --- Mistakes ------------------------------------------------------------------------------

def test_a_play_out_of_rhythm_stays_but_its_player_draws_no_card():
    s = start(ANN_BO_CY)
    s, events = play(s, "ann", C("rower:red"), 1, timing="off_beat")
    assert s.ship[0] == [C("rower:red")]
    assert len(s.hands["ann"]) == 2
    assert [(e.type, getattr(e, "kind", None)) for e in events][:2] == [
        ("card_played", None), ("mistake", "out_of_rhythm")]
    assert "card_drawn" not in types(events)
    assert s.turn == "bo"


def test_a_play_out_of_turn_stays_no_draw_and_play_goes_on_after_the_one_who_erred():
    s = start(ANN_BO_CY)
    assert s.turn == "ann"
    s, events = play(s, "bo", C("rower:yellow"), 3)
    assert s.ship[2] == [C("rower:yellow")]
    assert len(s.hands["bo"]) == 2 and len(s.hands["ann"]) == 3
    assert [e.kind for e in events if e.type == "mistake"] == ["out_of_turn"]
    assert s.turn == "cy"


def test_a_mistaken_illegal_card_is_refused_like_any_illegal_play():
    s = with_ship(start(ANN_BO_CY), "kraken", "grey", "grey")
    with pytest.raises(IllegalPlay, match="A rower cannot cover"):
        play(s, "bo", C("rower:yellow"), 1, timing="off_beat")


def test_a_lookout_played_off_beat_still_reveals_an_island_but_no_draw():
    s, events = play(_lookout_ready(), "ann", C("lookout"), 1, timing="off_beat")
    assert len(s.islands_found) == 1 and s.ship == [[], [], []]
    assert len(s.hands["ann"]) == 2
    assert "mistake" in types(events)


# --- Losing and winning ------------------------------------------------------------------

def test_three_dangers_on_the_ship_lose():
    s = with_ship(start(ANN_BO_CY), "goblin", "kraken", "rower:red")
    s.active = 2
    s, events = play(s, "cy", C("dragon"), 3)
    assert s.result == "lost" and s.reason == "All three sections of the ship are dangers."
    assert types(events)[-1] == "game_lost"
    assert song(s).tums == 0
    with pytest.raises(IllegalPlay, match="The game is over"):
        play(s, "ann", C("rower:red"), 1)


def test_an_empty_voyage_deck_before_the_third_island_loses():
    s = start(ANN_BO_CY, deck="goblin rower:red")
    s, _ = play(s, "ann", C("rower:red"), 1)
    assert s.result == "playing" and len(s.deck) == 1
    s, events = play(s, "bo", C("rower:yellow"), 1)
    assert s.deck == [] and s.result == "lost"
    assert s.reason == "The voyage deck is empty and only 0 of 3 islands were found."
    assert events[-1].type == "game_lost"


def test_an_empty_hand_loses():
    s = start(ANN_BO_CY)
    s, _ = play(s, "ann", C("rower:red"), 1, timing="off_beat")  # 2 left
    s, _ = play(s, "ann", C("rower:red"), 1)                     # out of turn: 1 left
    assert s.result == "playing"
    s, events = play(s, "ann", C("rower:red"), 2)                # out of turn: none left
    assert s.result == "lost" and s.reason == "Ann has no cards left."


def test_the_third_island_wins_even_with_an_empty_hand_and_a_short_deck():
    s = start({"ann": "lookout lookout lookout", "bo": "rower:red " * 3,
               "cy": "rower:red " * 3}, deck="rower:red rower:red rower:red")
    for n in (1, 2):
        s = with_ship(s, "rower:red", "rower:red", "rower:red")
        s.active = 0
        s, _ = play(s, "ann", C("lookout"), 1, timing="off_beat")  # no draw
        assert s.result == "playing" and len(s.islands_found) == n
    s = with_ship(s, "rower:red", "rower:red", "rower:red")
    s.active = 0
    s, events = play(s, "ann", C("lookout"), 1, timing="off_beat")
    assert s.hands["ann"] == []
    assert s.result == "won" and len(s.islands_found) == 3
    assert types(events)[-1] == "game_won"


# --- Percussionist variant ---------------------------------------------------------------

def test_percussionist_variant_lookout_needs_the_percussionist_colour():
    s = _lookout_ready(variant="percussionist:red", tops=("rower:yellow",) * 3)
    assert check_play(s, "ann", C("lookout"), 1) == (
        "A lookout needs all three sections red, the percussionist's colour.")
    s = with_ship(s, "rower:red", "warrior:red", "crossbow:red")
    assert check_play(s, "ann", C("lookout"), 1) is None


def test_percussionist_flips_colour_at_each_island():
    s = _lookout_ready(variant="percussionist:red")
    assert s.percussionist is Clan.RED
    s, events = play(s, "ann", C("lookout"), 1)
    assert s.percussionist is Clan.YELLOW
    assert [e.colour for e in events if e.type == "percussionist_flipped"] == ["yellow"]
    s = with_ship(s, "rower:red", "rower:red", "rower:red")
    s.hands["bo"].append(C("lookout"))
    assert check_play(s, "bo", C("lookout"), 1).startswith("A lookout needs all three sections yellow")
    s = with_ship(s, "rower:yellow", "rower:yellow", "rower:yellow")
    s, _ = play(s, "bo", C("lookout"), 1)
    assert s.percussionist is Clan.RED


def test_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="Unknown variant"):
        start(ANN_BO_CY, variant="percussionist:blue")


# --- Events --------------------------------------------------------------------------------

def test_every_event_says_one_short_sentence_and_draws_stay_private():
    s = _lookout_ready(islands="inhospitable calm calm", variant="percussionist:red",
                       deck="kraken " * 6)
    s, events = play(s, "ann", C("lookout"), 1)
    s, more = default_discards(s)
    events += more
    s, more = play(s, "bo", C("rower:yellow"), 1, timing="off_beat")
    events += more
    for event in events:
        text = event.say()
        assert text and "\n" not in text and len(text) < 120, event
        assert event.to_dict()["type"] == event.type
    drawn = [e for e in events if e.type in ("card_drawn", "discarded")]
    assert all("kraken" not in e.say().lower() and "rower" not in e.say().lower() for e in drawn)


def test_states_are_values_a_play_never_changes_its_input():
    s = start(ANN_BO_CY)
    before = state_to_dict(s)
    play(s, "ann", C("rower:red"), 1)
    assert state_to_dict(s) == before
    assert s.hands["ann"].count(C("rower:red")) == 3
    assert Kind.ROWER in {c.kind for c in s.hands["ann"]}


# --- Helpers for the host ------------------------------------------------------------------

def test_legal_plays_lists_each_playable_card_and_section_once():
    s = with_ship(start({"ann": "rower:red rower:red lookout", "bo": "rower:red " * 3,
                         "cy": "rower:red " * 3}), "goblin", "rower:yellow", "grey")
    assert legal_plays(s, "ann") == [(C("rower:red"), 2), (C("rower:red"), 3)]
    assert legal_plays(s, "zed") == []
    assert check_play(s, "ann", "rower:red", 2) is None  # record names work too
    assert legal_slots(s, "warrior:red") == [1, 2, 3]


def test_singing_stops_after_a_mistake_or_a_lookout_but_not_after_a_plain_play():
    s = start(ANN_BO_CY)
    _, plain = play(s, "ann", C("rower:red"), 1)
    _, mistake = play(s, "ann", C("rower:red"), 1, timing="off_beat")
    _, lookout = play(_lookout_ready(), "ann", C("lookout"), 1)
    assert not singing_stops(plain)
    assert singing_stops(mistake) and singing_stops(lookout)


def test_an_off_beat_play_out_of_turn_is_one_mistake_out_of_turn():
    s, events = play(start(ANN_BO_CY), "cy", C("goblin"), 1, timing="off_beat")
    assert [e.kind for e in events if e.type == "mistake"] == ["out_of_turn"]
    assert s.turn == "ann"


def test_an_out_of_turn_whirlpool_reverses_first_then_play_goes_on_from_the_one_who_erred():
    s = start({"ann": "rower:red " * 3, "bo": "rower:red " * 3,
               "cy": "whirlpool rower:red rower:red", "dee": "rower:red " * 3})
    s, events = play(s, "cy", C("whirlpool"), 1)
    assert "mistake" in types(events) and "turn_reversed" in types(events)
    assert s.turn == "bo"
