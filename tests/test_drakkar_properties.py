"""Properties over random games: no card is ever lost or duplicated, a refused play changes
nothing, and replaying the journal of a game gives the same state."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voicehost.games.drakkar import (
    CARD_NAMES,
    Card,
    Clan,
    IllegalPlay,
    Kind,
    check_play,
    default_discards,
    discard,
    from_setup,
    legal_slots,
    new_game,
    play,
    replay,
    setup_record,
    state_to_dict,
)

ISLANDS = ["whirlpool", "winter", "inhospitable", "calm"]

actions = st.lists(
    st.tuples(
        st.integers(0, 9),          # what kind of move (see _move)
        st.integers(0, 3),          # player
        st.integers(0, 20),         # which card / which legal play
        st.integers(1, 3),          # slot
        st.booleans(),              # off the beat
    ),
    max_size=80,
)

# Arbitrary decks, biased to one clan so that lookouts become playable and islands appear.
deck_cards = st.lists(
    st.sampled_from(["rower:red"] * 6 + ["warrior:red", "crossbow:red"] + list(CARD_NAMES)),
    min_size=12, max_size=60,
)


def _move(state, action):
    """Turn hypothesis' numbers into one record event (legal or not)."""
    mode, p, c, slot, off = action
    timing = "off_beat" if off else "on_beat"
    players = state.players
    player = players[p % len(players)]
    if mode <= 5:  # the active player, a legal play when there is one (lookouts first)
        player = state.turn
        options = [(card, s) for card in state.hands[player] for s in legal_slots(state, card)]
        lookouts = [o for o in options if o[0].kind is Kind.LOOKOUT]
        # steer towards a one-clan ship half of the time, so islands get found
        steer = [(card, s) for card, s in options if mode <= 2 and card.clan is Clan.RED
                 and getattr(state.tops()[s - 1], "clan", None) is not Clan.RED]
        best = lookouts or steer or options
        if best:
            card, slot = best[c % len(best)]
            timing = "off_beat" if off and mode == 5 else "on_beat"
        elif state.hands[player]:
            card = state.hands[player][c % len(state.hands[player])]
        else:
            card = Card.parse(CARD_NAMES[c % len(CARD_NAMES)])
    elif mode <= 7 and state.hands[player]:  # anyone, any card they hold, maybe illegal
        card = state.hands[player][c % len(state.hands[player])]
    elif mode == 9:  # a discard, owed or not
        hand = state.hands[player]
        card = hand[c % len(hand)] if hand else Card.parse("goblin")
        return {"type": "discard", "player": player, "card": str(card)}
    else:  # quite possibly a card the player does not hold
        card = Card.parse(CARD_NAMES[c % len(CARD_NAMES)])
    return {"type": "play", "player": player, "card": str(card), "slot": slot, "timing": timing}


def _check_invariants(state, whole_deck):
    assert Counter(state.all_cards()) == whole_deck
    assert len(state.islands_found) + len(state.islands_hidden) == 3
    tums = 3 - sum(1 for stack in state.ship if stack and stack[-1].is_danger)
    assert state.song.tums == tums
    if state.result == "playing":
        assert tums >= 1 and state.deck and all(state.hands.values())
        assert len(state.islands_found) < 3
        for name, hand in state.hands.items():
            assert len(hand) <= state.hand_limit + state.pending_discards.get(name, 0)
    else:
        assert state.reason


def _run(state, moves):
    """Apply moves as a replay would, checking the invariants after each one."""
    whole_deck = Counter(state.setup.deck)
    _check_invariants(state, whole_deck)
    events, refused = [], []
    for action in moves:
        event = _move(state, action)
        index = len(events)
        events.append(event)
        card = Card.parse(event["card"])
        if event["type"] == "play" and state.pending_discards and not state.is_over:
            state, _ = default_discards(state)
            _check_invariants(state, whole_deck)
        before = state_to_dict(state)
        try:
            if event["type"] == "play":
                reason = check_play(state, event["player"], card, event["slot"])
                new, _ = play(state, event["player"], card, event["slot"], event["timing"])
                assert reason is None
            else:
                new, _ = discard(state, event["player"], card)
        except IllegalPlay as refusal:
            assert refusal.reason and "\n" not in refusal.reason
            refused.append(index)
            new = state
        assert state_to_dict(state) == before  # the input state is never changed
        state = new
        _check_invariants(state, whole_deck)
    return state, events, refused


def _replays_the_same(start, final, events, refused):
    """The journal of the game (setup + every attempted move) replays to the same state."""
    record = setup_record(start)
    record["events"] = events
    result = replay(record)
    assert result.state == final
    assert [r["index"] for r in result.rejected] == refused


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(2, 4),
       variant=st.sampled_from([None, "percussionist:red", "percussionist:yellow"]),
       moves=actions)
def test_random_games_conserve_every_card_and_replay_identically(seed, n_players, variant, moves):
    players = ["ann", "bo", "cy", "dee"][:n_players]
    start = new_game(players, random.Random(seed), variant=variant)
    final, events, refused = _run(start, moves)
    _replays_the_same(start, final, events, refused)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=deck_cards, islands=st.lists(st.sampled_from(ISLANDS), min_size=3, max_size=3),
       n_players=st.integers(2, 4), variant=st.sampled_from([None, "percussionist:red"]),
       moves=actions)
def test_arbitrary_decks_and_islands_conserve_cards_and_replay_identically(
        deck, islands, n_players, variant, moves):
    players = ["ann", "bo", "cy", "dee"][:n_players]
    # three lookouts spread through the deck, as the rulebook's piles would
    deck = list(deck)
    for i, pos in enumerate((2, len(deck) // 3, 2 * len(deck) // 3)):
        deck.insert(pos + i, "lookout")
    start = from_setup(players, deck, islands, variant)
    final, events, refused = _run(start, moves)
    _replays_the_same(start, final, events, refused)


def _outcome(state):
    reason = state.reason or ""
    for word, what in (("deck", "deck"), ("cards left", "hand"), ("dangers", "dangers")):
        if word in reason:
            return state.result, what
    return state.result, ""


def test_the_random_games_do_reach_islands_wins_and_losses():
    """The strategies above are only worth something if they explore the whole game."""
    rng = random.Random(11)
    outcomes, islands = Counter(), Counter()
    for _ in range(150):
        deck = [rng.choice(["rower:red"] * 6 + ["warrior:red", "crossbow:red"] + list(CARD_NAMES))
                for _ in range(40)]
        for i, pos in enumerate((2, 13, 26)):
            deck.insert(pos + i, "lookout")
        state = from_setup(["ann", "bo", "cy"], deck, [rng.choice(ISLANDS) for _ in range(3)])
        moves = [(rng.randint(0, 9), rng.randint(0, 3), rng.randint(0, 20), rng.randint(1, 3),
                  rng.random() < 0.2) for _ in range(80)]
        state, _, _ = _run(state, moves)
        outcomes[_outcome(state)] += 1
        islands.update(i.ability for i in state.islands_found)
    assert outcomes["won", ""] > 0
    assert outcomes["lost", "dangers"] > 0
    assert outcomes["lost", "deck"] > 0
    assert outcomes["lost", "hand"] > 0
    assert islands["winter"] and islands["inhospitable"] and islands["whirlpool"]
