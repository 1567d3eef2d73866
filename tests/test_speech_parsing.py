"""Answer parsing and grammars: pure text, no audio."""

import json

import pytest
from hypothesis import given, strategies as st

from voicehost.speech import parsing
from voicehost.speech.grammar import Question, QuestionError
from voicehost.speech.vosk_backend import UNK, check_vocabulary, grammar_json
from voicehost.errors import ModelError, VoicehostError

COLOURS = ["red", "blue", "green", "yellow"]


def vote():
    return Question.build(COLOURS, aliases={"red": ["alice", "one"], "blue": ["bo", "two"],
                                            "green": ["cy", "three"], "yellow": ["dmitri", "four"]})


@pytest.mark.parametrize("text,choice", [
    ("red", "red"), ("I vote red", "red"), ("i accuse blue", "blue"), ("number three", "green"),
    ("seat three", "green"), ("Seat 3", "green"), ("I vote for Alice", "red"), ("bo please", "blue"),
    ("i think i vote for dmitri", "yellow"), ("banana", None), ("red or blue", None), ("", None),
    ("i vote", None),
])
def test_vote_phrases(text, choice):
    assert vote().parse(text) == choice


def test_yes_no_and_done():
    yn = Question.yes_no()
    assert yn.parse("yeah") == "yes" and yn.parse("nope") == "no" and yn.parse("maybe") is None
    assert Question.done().parse("I'm done") == "done"
    assert Question.done().parse("finished") == "done"


@pytest.mark.parametrize("text,word", [
    ("the anchors", "anchor"), ("anchor", "anchor"), ("a lantern", "lantern"),
    ("my guess is the parrots", "parrot"), ("boxes", "box"), ("the cherries", "cherry"),
    ("It's an island", "island"), ("compass", "compass"),
])
def test_guess_normalised(text, word):
    assert parsing.normalise_guess(text) == word


def test_word_guess_question_accepts_plurals_and_articles():
    q = Question.word_guess(["anchor", "lanterns", "compass"])
    assert q.choices == ("anchor", "lantern", "compass")
    assert q.parse("the anchors") == "anchor"
    assert q.parse("my guess is a compass") == "compass"
    assert "anchors" in q.vocabulary()


@given(st.sampled_from(["anchor", "parrot", "barrel", "whale", "rope", "island", "box", "berry"]))
def test_plural_round_trip(word):
    assert parsing.singular(parsing.plural(word)) == word


def test_bad_questions_are_user_errors():
    with pytest.raises(QuestionError):
        Question.build([])
    with pytest.raises(QuestionError):
        Question.build(["red", " "])
    with pytest.raises(QuestionError):
        Question.build(["red", "red"])
    with pytest.raises(QuestionError, match="both"):
        Question.build(["red", "blue"], aliases={"red": ["sam"], "blue": ["sam"]})
    assert issubclass(QuestionError, VoicehostError)


def test_jsgf_has_answers_carriers_and_garbage():
    q = vote()
    bare = q.jsgf(garbage=["window"], carriers=False)
    assert "alice" in bare and "<garbage> = window" in bare and "<carrier>" not in bare
    lead = q.jsgf(carriers=True)
    assert "public <utterance> = <carrier> <choice>;" in lead
    # words the recogniser cannot say are left out
    assert "dmitri" not in q.jsgf(words_ok=set(q.vocabulary()) - {"dmitri"})


def test_vosk_grammar_and_missing_words_reported():
    q = vote()
    vocab = set(q.vocabulary()) - {"dmitri", "bo"}
    known, missing = check_vocabulary(q, lambda w: w in vocab)
    assert missing == ["bo", "dmitri"]
    phrases = json.loads(grammar_json(q, known))
    assert phrases[-1] == UNK and "red" in phrases and "i vote red" in phrases
    assert not any("dmitri" in p for p in phrases)
    # a choice with no sayable phrase at all is an error, not a silent drop
    with pytest.raises(ModelError, match="'yellow'"):
        check_vocabulary(Question.build(COLOURS, aliases={"yellow": ["dmitri"]}),
                         lambda w: w not in {"yellow", "dmitri"})


@pytest.mark.parametrize("text,words", [
    ("Zoë", ["zoe"]), ("José Ñúñez", ["jose", "nunez"]), ("Chloé, please", ["chloe", "please"]),
    ("I vote RED!", ["i", "vote", "red"]), ("it’s 3", ["it's", "three"]), ("seat_two", ["seat", "two"]),
    ("하나 둘", ["하나", "둘"]),
])
def test_tokens_fold_accents_and_keep_other_scripts(text, words):
    """A player called Zoë was the word "zo" (the accented letter dropped), and
    a name in another script vanished from the grammar."""
    assert parsing.tokens(text) == words


def test_accented_names_are_answers():
    q = Question.build(COLOURS, aliases={"red": ["Zoë"], "blue": ["José"]})
    assert q.phrases["red"] == ("red", "zoe")
    assert q.parse("I vote Zoë") == "red" and q.parse("jose") == "blue" and q.parse("zoe") == "red"


def test_vosk_grammar_is_utf8_and_unk_only_when_known():
    q = Question.build(["하나", "red"], carriers=())
    text = grammar_json(q, {"하나", "red"})
    assert "하나" in text and json.loads(text)[-1] == UNK
    assert UNK not in json.loads(grammar_json(q, {"하나", "red"}, unk=False))


def test_missing_notes():
    from voicehost.speech.recognizer import missing_notes

    assert missing_notes("vosk", []) == []
    words, unk = missing_notes("vosk", ["zyx", "[unk]"])
    assert "zyx" in words and "[unk]" not in words and "cannot be rejected" in unk
