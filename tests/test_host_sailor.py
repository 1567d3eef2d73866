"""Sunken Sailor host: whole matches from recorded answers through the real ears and recogniser.

The recordings (``tools/make_sailor_fixtures.py``) are espeak-ng answers
over a noise floor; the truth beside each says what the table meant. The
host hears them through its endpointer and PocketSphinx: nothing is mocked.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from voicehost.games import sailor
from voicehost.hosts.announce import Announcer
from voicehost.hosts.sailor import (
    RoundState,
    SailorHost,
    SailorSettings,
    UsageError,
    parse_players,
    recorded_match,
    run_recording,
)
from voicehost.hosts.sailor_deal import CLEAR, DealError
from voicehost.journal import journal_to_record, read_journal

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
PRINTED = GAMES / "sailor_match.truth.json"
PRIVATE = GAMES / "sailor_private.truth.json"


def quiet() -> Announcer:
    return Announcer(quiet=True, stream=io.StringIO())


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    wav, settings, truth = recorded_match(PRINTED)
    journal = tmp_path_factory.mktemp("sailor") / "match.jsonl"
    announcer = quiet()
    result = run_recording(wav, settings, announcer, journal_path=journal)
    return result, truth, announcer, journal


def test_printed_match_ends_with_the_outcome_the_rules_give(printed):
    result, truth, _, _ = printed
    assert result.completed and result.match.over
    assert result.scores == truth["outcome"]["scores"]
    assert result.winners == truth["outcome"]["winners"]
    # The record the host wrote replays through the rules alone to the same scores.
    replayed = sailor.replay_match(result.to_dict()["record"])
    assert {p.name: replayed.scores[p] for p in replayed.players} == result.scores


def test_each_round_is_the_one_the_table_played(printed):
    result, truth, _, _ = printed
    rounds = result.to_dict()["record"]["rounds"]
    assert len(rounds) == len(truth["rounds"])
    for got, want in zip(rounds, truth["rounds"]):
        assert got["starter"] == want["starter"]
        assert got["sailor"] == want["sailor"]
        assert got["votes"] == want["votes"]
        assert got["unmasked"] == want["unmasked"]
        assert got["guess_right"] == want["guess_right"]
        assert got["points"] == want["points"]


def test_an_unanswered_question_is_asked_again_after_the_listening_time(printed):
    result, truth, announcer, _ = printed
    texts = announcer.texts
    i = texts.index("Red, who do you accuse?")
    assert texts[i + 1] == "Sorry, I did not catch that. Red, who do you accuse?"
    assert texts[i + 2] == "Red accuses Blue. Right?"
    asked = [line.t for line in announcer.lines if line.text.endswith("Red, who do you accuse?")]
    assert asked[1] - asked[0] == pytest.approx(truth["listen_seconds"], abs=0.03)
    red_votes = [h for h in result.heard if h["question"] == "vote:red"]
    assert red_votes[0]["choice"] == "blue" and red_votes[0]["t"] >= asked[1]


def test_a_vote_answered_no_is_asked_again_and_corrected(printed):
    result, _, announcer, journal = printed
    texts = announcer.texts
    i = texts.index("Blue accuses Green. Right?")
    assert texts[i + 1] == "Then, Blue, who do you accuse?"
    assert texts[i + 2] == "Blue accuses Red. Right?"
    assert "Corrected: Blue accuses Red." in texts[i + 3:]
    _, events, _ = read_journal(journal)
    votes = [e for e in events if e["type"] == "vote" and e["round"] == 2 and e["voter"] == "bo"]
    assert len(votes) == 1  # only the confirmed vote is a decision
    assert votes[0]["suspect"] == "ann" and votes[0]["corrected"] is True


def test_a_silent_turn_ends_after_the_turn_time_on_the_sample_clock(printed):
    result, truth, announcer, journal = printed
    assert "Time is up, Red." in announcer.texts
    _, events, _ = read_journal(journal)
    turns = [e for e in events if e["type"] == "turn" and e["round"] == 1]
    assert [e["how"] for e in turns] == ["done", "done", "done", "timeout", "done", "done"]
    waited = turns[3]["t"] - turns[2]["t"]
    assert truth["turn_seconds"] <= waited < truth["turn_seconds"] + 0.05


def test_the_accusation_time_is_audio_consumed(printed):
    _, truth, _, journal = printed
    _, events, _ = read_journal(journal)
    for n in (1, 2, 3):
        last_turn = [e for e in events if e["type"] == "turn" and e["round"] == n][-1]
        called = next(e for e in events if e["type"] == "vote_called" and e["round"] == n)
        assert called["t"] - last_turn["t"] == pytest.approx(truth["accuse_seconds"], abs=0.01)


def test_every_decision_is_journalled_and_the_journal_is_a_record(printed):
    result, _, _, journal = printed
    header, events, torn = read_journal(journal)
    assert torn is None and header["game"] == "sailor"
    kinds = [e["type"] for e in events]
    assert kinds.count("deal") == kinds.count("round") == 3
    assert kinds.count("turn") == 18 and kinds.count("vote") == 9 and kinds.count("reveal") == 3
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    match = sailor.replay_match(journal_to_record(header, events))
    assert {p.name: match.scores[p] for p in match.players} == result.scores


def test_printed_cards_ask_the_table_to_judge_the_guess(printed):
    _, _, announcer, _ = printed
    texts = announcer.texts
    assert texts.count("Sailors, was that the secret word? Yes or no.") == 2
    assert "Wrong! Blue did not guess the secret word." in texts
    assert "Right! Red guessed the secret word." in texts
    assert "Green wins the match!" == texts[-1]


# -- private cards -----------------------------------------------------------------------------
def test_private_cards_are_shown_one_player_at_a_time_and_never_spoken():
    wav, settings, truth = recorded_match(PRIVATE)
    screen = io.StringIO()
    announcer = quiet()
    result = run_recording(wav, settings, announcer, keys=io.StringIO("\n" * 6), screen=screen)
    assert result.scores == truth["outcome"]["scores"]
    assert result.winners == truth["outcome"]["winners"]
    rnd = result.match.rounds[0]
    word, drunk = truth["rounds"][0]["word"], truth["rounds"][0]["sailor"]
    assert rnd.word == word and rnd.sailor.name == drunk
    # Each card is on the screen, then cleared before the next player comes.
    shown = screen.getvalue().split(CLEAR)
    assert len(shown) == 4 and shown[-1] == ""
    for part, player in zip(shown, result.match.players):
        assert part.startswith(f"{player.label} ({player.name}): press Enter")
        assert rnd.role(player).say() in part
    # Nothing secret is said before the sailor is unmasked; no story line is ever said.
    texts = announcer.texts
    unmasked = next(i for i, t in enumerate(texts) if "is unmasked as the Drunken Sailor" in t)
    assert not any(word in t.lower() for t in texts[:unmasked])
    assert not any(line in t for t in texts for line in rnd.lines.values())
    assert not any("you are" in t.lower() for t in texts)
    # The host judged the guess itself ("the seagull" heard, normalised, right).
    assert f"Blue guesses {word}. Right! The word was {word}." in texts


def test_private_cards_without_a_keyboard_stop_with_a_clear_error():
    wav, settings, _ = recorded_match(PRIVATE)
    with pytest.raises(DealError, match="presses Enter"):
        run_recording(wav, settings, quiet(), keys=io.StringIO(""), screen=io.StringIO())


# -- the accusation timer and its warnings ---------------------------------------------------
def test_the_accusation_minute_warns_at_thirty_and_ten_seconds_of_audio():
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.recognizer import open_recognizer

    noise = np.random.default_rng(0).normal(0, 0.001, 16000 * 62).astype(np.float32)
    ears = Ears(Tape.of(blocks_from_array(noise)), open_recognizer("pocketsphinx"))
    settings = SailorSettings(players=parse_players("ann:red,bo:blue,cy:green"))
    announcer = quiet()
    host = SailorHost(settings, announcer, ears)
    players = host.match.players
    host.round = RoundState(1, players[0], players * 2, turn=6)
    host._accusations()
    said = [(line.t, line.text) for line in announcer.lines]
    assert said[0][1].endswith("You have one minute.") and said[0][0] == 0.0
    assert said[1:] == [(30.0, "30 seconds left."), (50.0, "10 seconds left."),
                        (60.0, "Time is up. One, two, three: vote! Each player names a suspect.")]


# -- setup -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, why", [
    ("ann:red,bo:blue", "3 to 8 players"),
    ("ann:red,bo:pink,cy:green", "pink"),
    ("ann-red,bo:blue,cy:green", "neither name:colour"),
    ("ann:red,bo:red,cy:green", "both have the pencil colour red"),
    ("", "name:colour"),
])
def test_bad_players_are_refused_in_one_sentence(text, why):
    with pytest.raises((UsageError, sailor.SetupError), match=why):
        parse_players(text)


def test_bare_colours_name_the_players_after_their_seats():
    players = parse_players("red,blue,green")
    assert [(p.name, p.colour) for p in players] == [
        ("Player 1", "red"), ("Player 2", "blue"), ("Player 3", "green")]


# -- registration by voice ----------------------------------------------------------------------
def test_players_register_by_voice_with_a_colour_corrected():
    truth = json.loads((GAMES / "sailor_register.truth.json").read_text())
    announcer = quiet()
    settings = SailorSettings(players=None, backend=truth["backend"],
                              listen_seconds=truth["listen_seconds"])
    result = run_recording(GAMES / "sailor_register.wav", settings, announcer)
    assert [[p.name, p.colour] for p in result.match.players] == truth["players"]
    texts = announcer.texts
    assert texts[:2] == ["How many players? 3 to 8.", "Three players. Right?"]
    i = texts.index("Seat two is blue. Right?")
    assert texts[i + 1] == "Seat two, what is your pencil colour?"
    assert "Welcome aboard, Red, Purple, Green." in texts
    # The recording holds only the registration: the host says the match did not finish.
    assert not result.completed and texts[-1] == "The recording ended before the match did."


def test_an_answer_outside_the_grammar_is_rejected_and_asked_again(printed):
    result, _, announcer, journal = printed
    rejected = [h for h in result.heard if h["question"] == "vote:green" and h["choice"] is None]
    assert len(rejected) == 1  # an utterance was heard, and the recogniser refused it
    texts = announcer.texts
    last_round = len(texts) - 1 - texts[::-1].index("Green, who do you accuse?")
    assert texts[last_round + 1] == "Sorry, I did not catch that. Green, who do you accuse?"
    assert texts[last_round + 2] == "Green accuses Red. Right?"
    _, events, _ = read_journal(journal)
    vote = [e for e in events if e["type"] == "vote" and e["round"] == 3 and e["voter"] == "cy"]
    assert vote[0]["suspect"] == "ann"  # said as "seat one"


# -- the tape: the sample clock stays exact whatever the block size ---------------------------
def test_the_tape_reads_every_sample_once_in_order_whatever_the_blocks():
    from hypothesis import given, settings as hsettings
    from hypothesis import strategies as st

    from voicehost.audio.blocks import blocks_from_array
    from voicehost.hosts.sailor_listen import Tape

    @hsettings(max_examples=60, deadline=None)
    @given(st.integers(1, 5000), st.lists(st.integers(1, 900), min_size=1, max_size=40),
           st.integers(0, 3000))
    def check(blocksize, reads, skip):
        signal = np.arange(20000, dtype=np.float32)
        tape = Tape.of(blocks_from_array(signal, blocksize=blocksize))
        tape.skip_to(skip / 16000)
        got = []
        for n in reads:
            part = tape.read(n)
            if part is None:
                break
            got.append(part.copy())
        out = np.concatenate(got) if got else np.zeros(0, np.float32)
        assert np.array_equal(out, signal[skip:skip + len(out)])
        assert tape.position == skip + len(out)

    check()


def test_a_voter_who_never_answers_counts_as_no_vote_and_the_host_says_so(tmp_path):
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.journal import Journal
    from voicehost.speech.recognizer import open_recognizer

    noise = np.random.default_rng(1).normal(0, 0.0005, 16000 * 10).astype(np.float32)
    ears = Ears(Tape.of(blocks_from_array(noise)), open_recognizer("pocketsphinx"))
    settings = SailorSettings(players=parse_players("ann:red,bo:blue,cy:green"),
                              listen_seconds=1.5, tries=2)
    announcer = quiet()
    with Journal.create(tmp_path / "j.jsonl", "sailor", {}) as journal:
        host = SailorHost(settings, announcer, ears, journal)
        players = host.match.players
        host.round = RoundState(1, players[0], players * 2, turn=6, phase="voting")
        host._vote(players[0])
    assert announcer.texts == ["Red, who do you accuse?",
                               "Sorry, I did not catch that. Red, who do you accuse?",
                               "No vote from Red: it counts as a vote for nobody."]
    assert host.round.votes == {players[0]: None}
    _, events, _ = read_journal(tmp_path / "j.jsonl")
    assert events == [{"type": "vote", "round": 1, "voter": "ann", "suspect": None,
                       "corrected": False, "t": 3.0}]


# -- phones after a crash ----------------------------------------------------------------------
def test_a_resume_mid_round_sends_the_round_in_progress_to_the_phones_again(tmp_path):
    """After a crash the phones join a new companion with no role on them: the
    round in progress goes to them once more when the replay is over, and only
    that round (one already scored is not sent again)."""
    from voicehost.journal import Journal

    wav, settings, truth = recorded_match(PRIVATE)
    settings.cards = "phones"
    whole = tmp_path / "whole.jsonl"
    sent: list[tuple[list[str], str]] = []

    def deliver(roles, word) -> None:
        sent.append(([f"{r.player.name}:{r.drunken_sailor}" for r in roles], word))

    first = run_recording(wav, settings, quiet(), journal_path=whole, deliver=deliver)
    assert first.match.over and len(sent) == len(first.match.rounds) >= 1
    lines = whole.read_text().splitlines()
    header, events = lines[0], [json.loads(l) for l in lines[1:]]
    deal = next(i for i, e in enumerate(events) if e["type"] == "deal")
    turns = [i for i, e in enumerate(events) if i > deal and e["type"] != "deal"]
    assert len(turns) >= 2, events

    def resumed_from(n: int) -> tuple[list, list[str]]:
        crashed = tmp_path / f"crashed{n}.jsonl"
        crashed.write_text("\n".join([header, *lines[1 : n + 1]]) + "\n")
        journal = Journal.open_existing(crashed)
        got: list = []
        announcer = quiet()
        again = run_recording(wav, settings, announcer, journal=journal,
                              resume_events=list(journal.events),
                              deliver=lambda roles, word: got.append(
                                  ([f"{r.player.name}:{r.drunken_sailor}" for r in roles],
                                   word, list(announcer.texts))))
        journal.close()
        assert again.match.scores == first.match.scores
        return got, announcer.texts

    # Killed during the drawing of round 1: its roles are sent again, after the resume line.
    got, texts = resumed_from(turns[1] + 1)
    assert [(g[0], g[1]) for g in got] == sent
    assert any(t.startswith("Resuming round 1") for t in got[0][2])
    # Killed right after round 1 was scored: only the later rounds are sent.
    scored = next(i for i, e in enumerate(events) if e["type"] == "round")
    if scored + 1 < len(events):
        got, texts = resumed_from(scored + 1)
        assert [(g[0], g[1]) for g in got] == sent[1:]


# -- live: when the microphone listens -------------------------------------------------------
class _LiveMic:
    """A microphone from a recording: ``now`` is where a real one would be by now.

    The clock is moved by the test (here: each Enter of the pass-and-peek
    takes half a second); ``opened_after`` is how many lines the host had
    said when recording began.
    """

    rate = 16000

    def __init__(self, samples: np.ndarray, announcer: Announcer):
        self.samples = samples
        self.announcer = announcer
        self.clock = 0.0
        self.opened_after: int | None = None

    def blocks(self):
        from voicehost.audio.blocks import blocks_from_array

        self.opened_after = len(self.announcer.texts)
        yield from blocks_from_array(self.samples)

    def now(self) -> float:
        return self.clock


class _SlowKeys(io.StringIO):
    def __init__(self, mic: _LiveMic):
        super().__init__("\n" * 6)
        self.mic = mic

    def readline(self, *args):
        self.mic.clock += 0.5
        return super().readline(*args)


def test_live_the_microphone_records_before_the_first_word_and_skips_the_card_peek():
    """A live host opens the microphone before it says anything (a sound card can
    take seconds to open; the first answer must not fall into that time), and
    what the table says while the cards go round answers no question: a
    "done" said during the pass-and-peek is not the first player's turn."""
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.recognizer import open_recognizer

    wav, settings, truth = recorded_match(PRIVATE)
    match = FileSource(wav).read()
    done = match[int(0.80 * 16000):int(1.45 * 16000)]  # the first "done" of the match
    floor = match[:int(0.5 * 16000)]  # the recording's own room noise
    peek = np.concatenate([floor, done, np.tile(floor, 5)])[: 3 * 16000]  # a "done" at 0.5 s
    announcer = quiet()
    mic = _LiveMic(np.concatenate([peek, match]), announcer)
    ears = Ears(Tape.of(mic.blocks()), open_recognizer(settings.backend))
    host = SailorHost(settings, announcer, ears, keys=_SlowKeys(mic), screen=io.StringIO(),
                      now=mic.now, skip_audio=False)
    result = host.run()
    assert mic.opened_after == 0
    assert {p.name: result.match.scores[p] for p in result.match.players} == \
        truth["outcome"]["scores"]
    assert ears.heard[0]["t"] >= 3.0  # nothing before the end of the peek was heard


def test_a_microphone_that_goes_away_pauses_the_vote_and_the_question_stands():
    """The cable is pulled while Red is asked, and plugged back 20 s later (longer
    than every try's listening time): the host says so, asks again when it hears
    the table, and Red's vote counts. The outage's silence answers nothing."""
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.audio.resilient import DeviceBack, DeviceLost
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.microphone import MICROPHONE_LOST
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.recognizer import open_recognizer

    wav, settings, truth = recorded_match(PRIVATE)
    match = FileSource(wav).read()
    floor = match[:8000]  # half a second of the recording's room
    answers = match[int(7.4 * 16000):int(9.2 * 16000)]  # Red's "blue", then "yes"
    outage = np.zeros(20 * 16000, np.float32)  # what the resilient source gives meanwhile
    audio = np.concatenate([floor, outage, floor, answers, np.tile(floor, 4)])

    def microphone():
        for block in blocks_from_array(audio):
            if block.start == len(floor):
                ears.device_event(DeviceLost(block.t, "no sound for 1.5 s"))
            if block.start == len(floor) + len(outage):
                ears.device_event(DeviceBack(block.t, 20.0, 3))
            yield block

    ears = Ears(Tape.of(microphone()), open_recognizer(settings.backend))
    settings.listen_seconds, settings.tries = 4.0, 2
    announcer = quiet()
    host = SailorHost(settings, announcer, ears)
    ears.on_outage = host.device_outage
    players = host.match.players
    host.round = RoundState(1, players[0], players * 2, turn=6, phase="voting")
    host._vote(players[0])
    assert announcer.texts[:4] == ["Red, who do you accuse?", MICROPHONE_LOST,
                                   "I hear you again. Red, who do you accuse?",
                                   "Red accuses Blue. Right?"]
    assert host.round.votes == {players[0]: host.match.player("bo")}
    assert ears.paused == pytest.approx(20.0, abs=0.05)


def test_ears_report_words_the_model_lacks_once(capsys):
    """A Vosk model without a player's name left it out of the vote grammar
    silently; the ears now say so once, the first time it matters."""
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.grammar import Question
    from voicehost.speech.recognizer import Prepared

    class Lacking:
        name = "vosk"
        rate = 16000

        def prepare(self, question):
            return Prepared(question, ["zyxia", "[unk]"] if "zyxia" in question.vocabulary() else [])

    ears = Ears(Tape.of(blocks_from_array(np.zeros(1600, dtype=np.float32))), Lacking())
    q = Question.build(["red", "blue"], aliases={"red": ["zyxia"]})
    ears.prepare(q)
    ears.prepare(Question.build(["red", "blue", "green"], aliases={"red": ["zyxia"]}))
    err = capsys.readouterr().err
    assert err.count("zyxia") == 1 and err.count("[unk]") == 1
