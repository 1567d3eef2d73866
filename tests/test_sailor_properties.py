"""Property tests (hypothesis): invariants of whole matches, live and replayed."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.games.sailor import (
    COLOURS,
    Envelope,
    Phase,
    RoleDealt,
    load_envelopes,
    match_to_dict,
    new_match,
    replay_match,
    replay_record,
    start_round,
)

NAMES = ["ann", "bo", "cy", "di", "ed", "flo", "gus", "hal"]
SMALL_DECK = tuple(
    Envelope(w, tuple(f"{i}: the {w} in the story" for i in range(7)))
    for w in ("anchor", "parrot", "compass", "barrel", "lantern")
)
FULL_DECK = load_envelopes()

round_spec = st.tuples(
    st.lists(st.one_of(st.none(), st.integers(0, 7)), min_size=8, max_size=8),  # each seat's vote
    st.booleans(),  # does an unmasked sailor guess right?
)
match_spec = st.tuples(
    st.integers(3, 8),
    st.integers(0, 2**32 - 1),
    st.lists(round_spec, min_size=1, max_size=25),
)


def play_live(n, seed, rounds, target=4, deck=SMALL_DECK, on_round=None):
    """Play a match through the live API with ``rng``; stop early if it is won."""
    match = new_match(list(zip(NAMES[:n], COLOURS[:n])), deck, target)
    rng = random.Random(seed)
    for votes, right in rounds:
        if match.over:
            break
        rnd = start_round(match, rng, starter=None if seed % 2 else rng.randint(1, n))
        while rnd.phase is Phase.DRAWING:
            rnd.done_drawing()
        rnd.start_vote()
        for seat, suspect in enumerate(votes[:n]):
            if suspect is not None:
                rnd.cast_vote(seat + 1, match.players[suspect % n].colour)
        rnd.tally()
        if rnd.phase is Phase.GUESS:
            rnd.guess(rnd.word if right else "kettle")
        rnd.score()
        if on_round:
            on_round(match, rnd)
    return match


@settings(max_examples=60, deadline=None)
@given(match_spec)
def test_scores_only_grow(spec):
    n, seed, rounds = spec
    history = []
    play_live(n, seed, rounds, target=1000,
              on_round=lambda m, r: history.append(dict(m.scores)))
    start = {p: 0 for p in history[0]}
    for before, after in zip([start] + history, history):
        assert all(after[p] >= before[p] for p in before)
        assert sum(after.values()) > sum(before.values())  # every round gives someone points


@settings(max_examples=60, deadline=None)
@given(match_spec)
def test_exactly_one_drunken_sailor_per_round(spec):
    n, seed, rounds = spec

    def check(match, rnd):
        roles = [e for e in rnd.events if isinstance(e, RoleDealt)]
        assert sorted(p.name for p in (e.player for e in roles)) == sorted(NAMES[:n])
        sailors = [e.player for e in roles if e.drunken_sailor]
        assert sailors == [rnd.sailor]
        lines = [e.line for e in roles if not e.drunken_sailor]
        assert len(set(lines)) == n - 1 and all(rnd.word in line for line in lines)

    play_live(n, seed, rounds, target=1000, on_round=check)


@settings(max_examples=60, deadline=None)
@given(match_spec)
def test_replaying_gives_the_same_state(spec):
    n, seed, rounds = spec
    live = play_live(n, seed, rounds, deck=FULL_DECK)
    saved = match_to_dict(live)
    again = replay_match(saved, FULL_DECK)
    assert match_to_dict(again) == saved
    assert again.scores == live.scores and again.winners == live.winners
    assert replay_record(saved) == replay_record(saved)
    # and the same seed plays the same match
    assert match_to_dict(play_live(n, seed, rounds, deck=FULL_DECK)) == saved


@settings(max_examples=60, deadline=None)
@given(match_spec)
def test_envelopes_never_repeat_within_a_match_until_exhausted(spec):
    n, seed, rounds = spec
    match = play_live(n, seed, rounds, target=1000)
    played = [r.word for r in match.rounds]
    k = len(SMALL_DECK)
    for start in range(0, len(played), k):
        chunk = played[start:start + k]
        assert len(set(chunk)) == len(chunk)
    assert all(a != b for a, b in zip(played, played[1:]))
    assert match.passes == (len(played) - 1) // k + 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40))
def test_full_deck_does_not_repeat_before_all_envelopes_are_used(seed, count):
    match = play_live(3, seed, [([None] * 8, False)] * count, target=1000, deck=FULL_DECK)
    played = [r.word for r in match.rounds]
    first_pass = played[: len(FULL_DECK)]
    assert len(set(first_pass)) == len(first_pass)


def plural(word):
    return word + "es" if word.endswith(("ss", "x", "ch", "sh")) else word + "s"


@st.composite
def records(draw):
    n = draw(st.integers(3, 8))
    colours = draw(st.permutations(COLOURS))[:n]
    players = [{"name": NAMES[i], "colour": colours[i]} for i in range(n)]
    words = [e.word for e in FULL_DECK]

    def ref(seat):
        return draw(st.sampled_from([NAMES[seat], colours[seat].upper(), seat + 1, str(seat + 1)]))

    rounds = []
    for _ in range(draw(st.integers(0, 6))):
        sailor = draw(st.integers(0, n - 1))
        votes = {}
        for voter in range(n):
            choice = draw(st.one_of(st.none(), st.integers(0, n - 1)))
            if choice is not None:
                votes[ref(voter)] = ref(choice)
        word = draw(st.sampled_from(words))
        guess = draw(st.sampled_from([None, word, "The " + plural(word).upper(), "kettle", word + "x"]))
        rounds.append({"word": word, "sailor": ref(sailor), "votes": votes, "guess": guess})
    return {"game": "sailor", "players": players, "rounds": rounds}


def oracle(record):
    """design.md section 2 written out once more, independently of the engine."""
    players = record["players"]
    n = len(players)

    def seat(ref):
        if isinstance(ref, int) or ref.isdigit():
            return int(ref) - 1
        return next(i for i, p in enumerate(players) if ref.lower() in (p["name"], p["colour"]))

    scores = [0] * n
    results = []
    for rnd in record["rounds"]:
        if max(scores) >= 4:
            break
        sailor = seat(rnd["sailor"])
        votes = {seat(v): seat(s) for v, s in rnd["votes"].items()}
        accusers = [v for v, s in votes.items() if s == sailor and v != sailor]
        unmasked = 2 * len(accusers) > n - 1
        word = rnd["word"]
        right = rnd["guess"] is not None and rnd["guess"].lower() in (word, "the " + plural(word))
        points = [0] * n
        if unmasked and right:
            points[sailor] = 1
        else:
            if not unmasked:
                points[sailor] = 2
            for v in accusers:
                points[v] += 1
        scores = [a + b for a, b in zip(scores, points)]
        results.append((unmasked, right if unmasked else None, points))
    return scores, results


@settings(max_examples=100, deadline=None)
@given(records())
def test_replay_agrees_with_an_independent_reading_of_the_rules(record):
    scores, results = oracle(record)
    names = [p["name"] for p in record["players"]]
    if len(results) < len(record["rounds"]):
        record["rounds"] = record["rounds"][: len(results)]  # rounds after a win are an error
    out = replay_record(record)
    assert out["scores"] == dict(zip(names, scores))
    assert out["winners"] == [name for name, s in zip(names, scores) if s >= 4]
    assert [(r["unmasked"], r["guess_right"], list(r["points"].values())) for r in out["rounds"]] == results
