"""Fuzzing the parsers that read what people and files say (hypothesis).

Records, journals, plays files and spoken answers come from outside: any of
them may be anything. Each parser must either accept the input or refuse it
with a :class:`~voicehost.errors.VoicehostError` whose message is one line;
no other exception may escape, and an answer is always one of the choices
offered (or none).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voicehost.errors import VoicehostError

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "audio_fixtures" / "records"
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | \
    st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20)

VALID = {name: json.loads((RECORDS / f"{name}.json").read_text())
         for name in ("drakkar_win", "drakkar_loss", "sailor_match")}


def _refuses_cleanly(call, *args) -> object:
    try:
        return call(*args)
    except VoicehostError as exc:
        text = str(exc)
        assert text and "\n" not in text.strip(), repr(text)
        return exc


def _paths(obj, prefix=()):
    """Every place in a JSON value: (path, value)."""
    yield prefix, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated_records(draw):
    """A valid record with one to three places replaced, deleted or duplicated."""
    record = copy.deepcopy(VALID[draw(st.sampled_from(sorted(VALID)))])
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p, _ in _paths(record) if p]
        path = draw(st.sampled_from(places))
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace":
            parent[key] = draw(json_values)
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
    return record


@FUZZ
@given(json_values)
def test_replay_takes_anything_and_refuses_cleanly(record):
    from voicehost.replay import replay

    _refuses_cleanly(replay, record)


@FUZZ
@given(mutated_records())
def test_replay_of_a_damaged_record_refuses_cleanly(record):
    from voicehost.replay import replay

    out = _refuses_cleanly(replay, record)
    if not isinstance(out, VoicehostError):
        json.dumps(out)  # an accepted record gives a JSON-able state


@FUZZ
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_journal_and_record_files_of_any_bytes(tmp_path_factory, data):
    from voicehost.journal import load_record, read_journal

    path = tmp_path_factory.mktemp("f") / "record.jsonl"
    path.write_bytes(data)
    _refuses_cleanly(read_journal, path)
    _refuses_cleanly(load_record, path)


@FUZZ
@given(st.lists(st.fixed_dictionaries({"type": st.sampled_from(["play", "discard", "x"])},
                                      optional={"player": json_values, "card": json_values,
                                                "slot": json_values}), max_size=4),
       st.integers(0, 200))
def test_a_journal_with_damaged_events_or_a_torn_tail(tmp_path_factory, events, cut):
    from voicehost.journal import load_record, read_journal
    from voicehost.replay import replay

    header = {"format": "voicehost-journal", "version": 1, **VALID["drakkar_win"]}
    header.pop("events", None)
    text = "\n".join(json.dumps(x) for x in [header, *events]) + "\n"
    path = tmp_path_factory.mktemp("j") / "game.jsonl"
    data = text.encode()
    path.write_bytes(data[: max(len(json.dumps(header)) + 1, len(data) - cut)])
    out = _refuses_cleanly(read_journal, path)
    if not isinstance(out, VoicehostError):
        record = load_record(path)
        _refuses_cleanly(replay, record)


@FUZZ
@given(json_values)
def test_plays_files_of_anything(tmp_path_factory, value):
    from voicehost.commands.judge import load_plays

    path = tmp_path_factory.mktemp("p") / "plays.json"
    path.write_text(json.dumps(value))
    out = _refuses_cleanly(load_plays, path)
    if not isinstance(out, VoicehostError):
        assert isinstance(out, list)
        for play in out:
            t = play["t"]
            assert isinstance(t, (int, float)) and 0 <= t < float("inf")


COLOURS = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple"]
words = st.sampled_from(COLOURS + ["i", "vote", "for", "seat", "three", "yes", "no", "done",
                                   "the", "um", "not", "red-blue", "ann", "bo", "", "  "])


@FUZZ
@given(st.lists(st.sampled_from(COLOURS), min_size=2, max_size=6, unique=True),
       st.lists(words, max_size=8).map(" ".join) | st.text(max_size=40))
def test_an_answer_is_one_of_the_choices_or_none(choices, heard):
    from voicehost.speech.grammar import Question

    question = Question.build(choices)
    answer = _refuses_cleanly(question.parse, heard)
    assert answer is None or answer in choices, (answer, choices, heard)


@FUZZ
@given(st.lists(st.text(min_size=0, max_size=12), min_size=0, max_size=6))
def test_questions_from_any_choices_build_or_refuse_cleanly(choices):
    from voicehost.speech.grammar import Question

    built = _refuses_cleanly(Question.build, choices)
    if not isinstance(built, VoicehostError):
        assert built.choices == tuple(c.strip() for c in choices)  # spaces around are dropped
        assert built.parse("") is None
        for choice in choices:
            got = _refuses_cleanly(built.parse, choice)
            assert got is None or isinstance(got, VoicehostError) or got in built.choices


@FUZZ
@given(st.text(max_size=60), st.dictionaries(st.sampled_from(COLOURS),
                                             st.lists(st.text(max_size=10), max_size=3),
                                             min_size=1, max_size=4))
def test_match_choice_never_invents_an_answer(text, phrases):
    from voicehost.speech.parsing import match_choice

    got = _refuses_cleanly(match_choice, text, phrases)
    assert got is None or got in phrases
