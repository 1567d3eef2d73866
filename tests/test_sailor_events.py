"""Events: what the host may say to the table, and the engine's purity."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import voicehost.games.sailor as sailor
from voicehost.games.sailor import (
    Event,
    GuessMade,
    NotUnmasked,
    Phase,
    RoleDealt,
    Unmasked,
    WordRevealed,
    new_match,
    start_round,
)

TABLE = [("ann", "red"), ("bo", "blue"), ("cy", "green"), ("di", "yellow")]
REVEALING = (Unmasked, NotUnmasked, GuessMade, WordRevealed)


def full_round(seed, unmask, right):
    match = new_match(TABLE)
    rnd = start_round(match, random.Random(seed))
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    rnd.start_vote()
    for player in match.players:
        if player != rnd.sailor:
            rnd.cast_vote(player, rnd.sailor if unmask else player)
    rnd.tally()
    if rnd.phase is Phase.GUESS:
        rnd.guess(rnd.word if right else "kettle")
    rnd.score()
    return rnd


def public_before_count(sailor_seat, word, seed):
    match = new_match(TABLE)
    deck = {e.word: e for e in match.envelopes}
    rnd = start_round(match, random.Random(seed), starter="cy", envelope=deck[word], sailor=sailor_seat)
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    rnd.start_vote()
    for seat, suspect in ((1, 2), (2, 1), (3, 1), (4, 3)):
        rnd.cast_vote(seat, suspect)
    rnd.tally()
    cut = next(i for i, e in enumerate(rnd.events) if isinstance(e, (Unmasked, NotUnmasked)))
    assert all(isinstance(e, RoleDealt) for e in rnd.events[:cut] if not e.public)
    return [e.to_dict() for e in rnd.events[:cut] if e.public]


@pytest.mark.parametrize("seed", range(3))
def test_events_for_the_table_before_the_count_do_not_depend_on_the_secrets(seed):
    seen = {
        json.dumps(public_before_count(sailor_seat, word, seed))
        for sailor_seat in range(1, len(TABLE) + 1)
        for word in ("anchor", "parrot", "lighthouse")
    }
    assert len(seen) == 1
    assert "anchor" not in seen.pop()


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("unmask,right", [(True, True), (True, False), (False, None)])
def test_the_word_is_first_said_to_the_table_after_the_count(seed, unmask, right):
    rnd = full_round(seed, unmask, right)
    first = next(e for e in rnd.events if e.public and rnd.word in e.say())
    assert isinstance(first, (GuessMade, WordRevealed))
    assert all(rnd.word not in json.dumps(e.to_dict()) for e in rnd.events[: rnd.events.index(first)] if e.public)


def test_every_event_has_a_type_a_sentence_and_plain_data():
    rnd = full_round(3, True, False)
    types = {e.type for e in rnd.events}
    assert {"round_started", "role_dealt", "turn_called", "accusations_started", "voting_started",
            "vote_cast", "unmasked", "guess_made", "points", "standings"} <= types
    for event in rnd.events:
        assert isinstance(event, Event)
        assert re.fullmatch(r"[a-z_]+", event.type)
        assert event.text == event.say() and event.say()[-1] in ".!?"
        data = json.loads(json.dumps(event.to_dict()))
        assert data["type"] == event.type and data["text"] == event.say()


def test_standings_and_points_say_the_scores():
    rnd = full_round(1, False, None)
    standings = rnd.events[-1]
    assert standings.type == "standings"
    assert standings.say().startswith(f"Scores: {rnd.sailor.label} 2,")


def test_role_can_be_asked_again_privately():
    rnd = start_round(new_match(TABLE), random.Random(5))
    for player in rnd.players:
        role = rnd.role(player.colour)
        assert not role.public and role.drunken_sailor == (player == rnd.sailor)
        assert (rnd.word in role.say()) != role.drunken_sailor


SOURCE = Path(sailor.__file__).parent


def test_rules_import_nothing_from_audio_speech_or_hosts():
    code = (
        "import sys, voicehost.games.sailor\n"
        "bad = [m for m in sys.modules if m.startswith(('voicehost.audio', 'voicehost.speech', "
        "'voicehost.hosts', 'numpy', 'sounddevice', 'vosk', 'pocketsphinx'))]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("path", sorted(SOURCE.glob("*.py")), ids=lambda p: p.name)
def test_rules_read_no_clock_do_no_io_and_use_only_a_given_rng(path):
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from)\s+(time|datetime|os|pathlib|socket)\b", text, re.M)
    assert not re.search(r"\brandom\.(random|choice|choices|shuffle|randint|sample|seed)\(", text)
    assert "open(" not in text and "print(" not in text
    if path.name != "envelopes.py":
        assert "resources" not in text


def test_votes_counted_lists_every_vote_most_first_including_the_sailors():
    match = new_match(TABLE)
    rnd = start_round(match, random.Random(0), "ann", sailor="bo")
    while rnd.phase is Phase.DRAWING:
        rnd.done_drawing()
    rnd.start_vote()
    for voter, suspect in (("ann", "cy"), ("bo", "cy"), ("cy", "bo"), ("di", "cy")):
        rnd.cast_vote(voter, suspect)
    counted, verdict = rnd.tally()
    assert counted.say() == "The votes: Green 3, Blue 1."
    assert isinstance(verdict, NotUnmasked)
    assert dict(rnd.counted.counts) == {match.player("cy"): 2, match.player("bo"): 1}
