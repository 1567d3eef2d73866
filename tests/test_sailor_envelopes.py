"""The bundled envelope deck and the envelope loader."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from voicehost.games.sailor import (
    LINES_PER_ENVELOPE,
    Envelope,
    SetupError,
    load_envelopes,
    normalise_word,
    parse_envelopes,
    words,
)

DECK = load_envelopes()

# Words a speech grammar also uses for answers (colours, seat digits, yes/no/done),
# with their homophones: a secret word must not sound like one of them.
RESERVED = {
    "red", "read", "reed", "blue", "blew", "green", "yellow", "black", "white", "orange",
    "purple", "one", "won", "two", "too", "to", "three", "tree", "four", "for", "fore",
    "oar", "door", "five", "six", "seven", "eight", "ate", "nine", "ten", "zero",
    "yes", "no", "know", "nose", "done", "dun", "sun", "none", "nun", "knot", "not",
}


def plural(word: str) -> str:
    return word + "es" if word.endswith(("ss", "x", "ch", "sh")) else word + "s"


def test_deck_has_at_least_27_envelopes():
    assert len(DECK) >= 27


def test_each_word_is_one_lower_case_word_used_once():
    ws = words(DECK)
    assert len(set(ws)) == len(ws)
    for word in ws:
        assert re.fullmatch(r"[a-z]{3,12}", word), word
        assert word not in RESERVED, word


def test_each_envelope_has_7_distinct_short_lines_using_the_word_verbatim():
    for envelope in DECK:
        assert len(envelope.lines) == LINES_PER_ENVELOPE == 7
        assert len(set(envelope.lines)) == 7
        for line in envelope.lines:
            assert re.search(rf"\b{envelope.word}\b", line), (envelope.word, line)
            assert len(line) <= 90, line


def test_no_story_line_is_shared_between_envelopes():
    lines = [line for envelope in DECK for line in envelope.lines]
    assert len(set(lines)) == len(lines)


def test_every_word_round_trips_through_normalise_word():
    for word in words(DECK):
        assert normalise_word(word) == word
        assert normalise_word(plural(word)) == word
        assert normalise_word("the " + word.capitalize()) == word


def test_words_do_not_collide_after_normalising():
    assert len({normalise_word(w) for w in words(DECK)}) == len(DECK)


def test_data_file_is_the_one_loaded():
    raw = json.loads(resources.files("voicehost").joinpath("data/envelopes.json").read_text("utf-8"))
    assert [e["word"] for e in raw["envelopes"]] == words(DECK)


def good(word="anchor"):
    return {"word": word, "lines": [f"Line {i} with the {word}." for i in range(7)]}


def test_parse_envelopes_accepts_a_list_or_the_file_form():
    assert parse_envelopes([good()]) == (Envelope("anchor", tuple(good()["lines"])),)
    assert parse_envelopes({"envelopes": [good(), good("rope")]})[1].word == "rope"


@pytest.mark.parametrize(
    "data,message",
    [
        ([], "must be a list"),
        ([{"lines": []}], 'has no "word"'),
        ([good("Anchor")], "one lower-case word"),
        ([good("sea chest")], "one lower-case word"),
        ([good(), good()], "in the deck twice"),
        ([good(), good("anchors")], "in the deck twice"),
        ([{"word": "rope", "lines": ["the rope"] * 6}], "exactly 7 story lines"),
        ([{"word": "rope", "lines": [f"line {i} has ropes" for i in range(7)]}], "does not use the word"),
        ([{"word": "rope", "lines": ["a rope"] * 7}], "same story line twice"),
    ],
)
def test_parse_envelopes_refuses_a_bad_deck_with_a_clear_sentence(data, message):
    with pytest.raises(SetupError, match=message):
        parse_envelopes(data)
