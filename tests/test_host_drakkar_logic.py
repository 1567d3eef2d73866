"""The Drakkar host's decisions that need no audio, and its command-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.games import drakkar
from voicehost.hosts import settings
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar import (
    GAME,
    STOPPED,
    WARMUP,
    DrakkarHost,
    JudgedPlay,
    phase_at,
    timing_summary,
    wrong_song_line,
)
from voicehost.hosts.drakkar_declarations import (
    Declaration,
    DeclarationError,
    KeyParser,
    load_sidecar,
    normalise_card,
    resolve_card,
)
from voicehost.audio.judge import Verdict

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"


# -- warm-up and stops -------------------------------------------------------------
def test_the_game_starts_on_the_third_bar():
    bars = [1.0, 3.0, 5.0, 7.0]
    assert phase_at(2.9, bars, [], []) == (WARMUP, 1)
    assert phase_at(4.9, bars, [], []) == (WARMUP, 2)
    assert phase_at(6.9, bars, [], []) == (GAME, 3)


def test_a_play_before_any_bar_was_heard_asks_the_table_to_sing_louder():
    """Chatter as loud as the singing can keep the tracker from following a song at
    all (6 of the 16 held-out chants in babble at 10 dB): "warm-up song one" would tell a
    table singing its fifth bar to go on as it is."""
    host = DrakkarHost(_state(["rower:red"] * 16), Announcer(quiet=True, silent=True),
                       intro=False)
    host.clock = 5.0
    host.declare(Declaration(3.0, "ann", "rower:red", 1, source="sidecar"))
    host._step()
    assert [r["why"] for r in host.refused] == [
        "Not yet, Ann: I have not heard the song yet. Sing Drakkar Tum Tum Tum, louder "
        "than the room, and play on the third."]
    assert not host.plays and len(host.state.hands["ann"]) == 4
    host.bar_starts = [5.5]  # one bar heard: the warm-up is counted
    host.clock = 9.0
    host.declare(Declaration(6.0, "ann", "rower:red", 1, source="sidecar"))
    host._step()
    assert host.refused[-1]["why"] == "Not yet, Ann: warm-up song one; play on the third."


def test_after_a_stop_the_warm_up_starts_again():
    bars = [1.0, 3.0, 5.0, 10.0, 12.0, 14.0]
    assert phase_at(6.9, bars, [], [6.5]) == (STOPPED, 0)  # the host said stop: no bar since
    assert phase_at(11.0, bars, [8.0], [6.5]) == (WARMUP, 1)
    assert phase_at(14.5, bars, [8.0], [6.5]) == (GAME, 3)


def test_bars_sung_before_the_tracker_locked_count_as_warm_up():
    # A "Drak" at 0.6 s, first bar reported at 2.4 s: one 1.8 s bar was missed.
    assert phase_at(4.5, [2.4, 4.2], [], [], onsets=[0.6, 0.8, 1.0], bar_len=1.8) == (GAME, 3)
    assert phase_at(4.5, [2.4, 4.2], [], []) == (WARMUP, 2)
    # A stray sound before the song is not a bar.
    assert phase_at(4.5, [2.4, 4.2], [], [], onsets=[0.2, 2.4], bar_len=1.8) == (WARMUP, 2)


# -- what the host says ---------------------------------------------------------------
def _state(deck, players=("ann", "bo")):
    return drakkar.from_setup(list(players), deck, ["calm", "calm", "calm"])


def test_wrong_song_line_names_the_dangers_and_the_song():
    deck = ["kraken", "rower:red"] + ["rower:red"] * 12
    state, _ = drakkar.play(_state(deck), "ann", "kraken", 2)
    assert wrong_song_line(state, 3) == (
        "You are singing three Tums: the ship has a Kraken, sing Drakkar Tum Tum.")
    assert wrong_song_line(_state(deck), 1) == (
        "You are singing one Tum: the ship has no danger, sing Drakkar Tum Tum Tum.")
    assert wrong_song_line(_state(deck), 5).startswith("That is not the song")


def test_timing_summary_is_mean_and_spread_per_player():
    def jp(player, off):
        return JudgedPlay(0.0, player, "goblin", 1, "on_beat",
                          Verdict(0.0, 0.0, off, "on_beat" if abs(off) <= 120 else "late"))
    got = {t.player: t for t in timing_summary(["ann", "bo", "cy"],
                                                [jp("ann", 10), jp("ann", 30), jp("bo", 200)])}
    assert got["ann"].mean_ms == 20 and got["ann"].spread_ms == 10 and got["ann"].on_beat == 2
    assert got["bo"].plays == 1 and got["bo"].on_beat == 0
    assert got["cy"].plays == 0 and got["cy"].say() == "Cy: no judged play."


def test_a_player_with_no_card_that_fits_is_told_what_can_happen():
    # Bo holds only lookouts; Ann's rower makes the ship mixed (red on 1, grey elsewhere).
    deck = ["rower:red", "lookout", "rower:red", "lookout", "rower:red", "lookout",
            "rower:red", "lookout"] + ["rower:red"] * 8
    announcer = Announcer(quiet=True, stream=open("/dev/null", "w"))
    host = DrakkarHost(_state(deck), announcer)
    host.bar_starts = [1.0, 3.0, 5.0]  # three bars heard: the game is on
    host.last_tums = [6.5]
    host.declare(Declaration(6.52, "ann", "rower:red", 1))
    host._step(final=True)
    assert host.plays[0].timing == "on_beat"
    assert any("Bo, none of your cards can go on the ship" in line for line in announcer.texts)
    host.declare(Declaration(8.5, "bo", "lookout", 2))
    host._step(final=True)
    assert any("lookout needs" in r["why"].lower() for r in host.refused)
    assert len(host.plays) == 1


# -- declarations ----------------------------------------------------------------------
def test_card_names_are_normalised_and_resolved_against_the_hand():
    assert normalise_card("Red Rower") == "rower:red"
    assert normalise_card("kraken") == "kraken"
    hand = [drakkar.Card.parse("rower:yellow"), drakkar.Card.parse("goblin")]
    assert str(resolve_card(hand, "rower")) == "rower:yellow"
    assert resolve_card(hand, "rower:red") is None


def test_key_parser_takes_a_card_key_then_a_section():
    keys = KeyParser()
    assert keys.feed("k", 1.0) is None
    decl = keys.feed("2", 1.2)
    assert (decl.card, decl.slot, decl.t, decl.player) == ("kraken", 2, 1.2, None)
    assert decl.began == 1.0  # the card key: the card may have been slapped nearer it
    assert isinstance(keys.feed("3", 2.0), str)  # a section with no card first: a hint
    keys.feed("@", 3.0)
    keys.feed("r", 3.0)
    assert keys.feed("1", 3.1).player == "#seat1"


@pytest.mark.parametrize("content, words", [
    ("{not json", "not valid JSON"),
    ('{"declarations": [{"t": 1, "player": "zed", "card": "goblin", "slot": 1}], '
     '"setup": {"players": ["ann", "bo"], "deck": [], "islands": []}}', "'zed'"),
    ('[{"t": 1, "player": "ann", "card": "unicorn", "slot": 1}]', "'unicorn'"),
    ('[{"t": 1, "player": "ann", "card": "goblin", "slot": 4}]', "slot 4"),
    ('[{"player": "ann", "card": "goblin", "slot": 1}]', "needs \"t\""),
])
def test_bad_sidecars_give_one_clear_sentence(tmp_path, content, words):
    path = tmp_path / "side.json"
    path.write_text(content)
    with pytest.raises(DeclarationError) as err:
        load_sidecar(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, timeout=60)


def test_cli_errors_are_one_line_and_exit_2(tmp_path):
    missing = _cli("drakkar", "--input", str(tmp_path / "nope.wav"), "--players", "ann,bo",
                   "--quiet")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    side = tmp_path / "side.json"
    side.write_text(json.dumps([{"t": 1, "player": "zed", "card": "goblin", "slot": 1}]))
    unknown = _cli("drakkar", "--input", str(GAMES / "drakkar_loss.wav"), "--declarations",
                   str(side), "--players", "ann,bo", "--quiet")
    assert unknown.returncode == 2 and "'zed'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


# -- settings and the large view ----------------------------------------------------------
def test_calibration_latency_defaults_to_zero_and_reads_the_user_config(tmp_path, monkeypatch):
    monkeypatch.setenv("VOICEHOST_CONFIG_DIR", str(tmp_path))
    assert settings.calibration_latency() == 0.0
    settings.save_settings({"latency": 0.085})
    assert settings.calibration_latency() == 0.085
    (tmp_path / "config.json").write_text("{damaged")
    assert settings.calibration_latency() == 0.0


def test_the_host_is_deaf_after_each_line_for_the_rooms_echo_as_calibrated(tmp_path, monkeypatch):
    from voicehost.audio.mute import DEFAULT_TAIL

    monkeypatch.setenv("VOICEHOST_CONFIG_DIR", str(tmp_path))
    assert settings.mute_tail() == DEFAULT_TAIL  # never calibrated: a living room's
    settings.save_settings({"latency": 0.004, "latency_jitter": 0.0002, "echo": 0.005})
    assert settings.mute_tail() == settings.MIN_TAIL  # a headset: no echo to wait for
    settings.save_settings({"echo": 0.4})
    assert settings.mute_tail() == pytest.approx(0.45)  # bare walls
    settings.save_settings({"latency_jitter": 0.03})  # a path that wanders: a wider margin
    assert settings.mute_tail() == pytest.approx(0.49)
    settings.save_settings({"echo": "loud"})  # a hand-edited file
    assert settings.mute_tail() == DEFAULT_TAIL


def test_a_key_is_stamped_when_it_is_pressed_not_when_the_loop_gets_to_it():
    """The live loop reads the keys between blocks of audio (0.1 s or more
    apart). A key pressed at 1.0 s on the microphone's clock and read by the
    loop at 1.3 s is a play at 1.0 s: stamped at 1.3 s, its card's slap
    (heard around 0.9 s) was more than 250 ms away and did not time it."""
    import os
    import time

    from voicehost.hosts.drakkar_run import Keyboard

    master, slave = os.openpty()
    now = [1.0]
    with os.fdopen(slave, "r") as terminal, Keyboard(lambda: now[0], terminal) as keyboard:
        for key in (b"k", b"2"):
            os.write(master, key)
            deadline = time.monotonic() + 10
            while keyboard.keys.qsize() < (2 if key == b"2" else 1):
                assert time.monotonic() < deadline, "the keyboard never read the key"
                time.sleep(0.01)
            now[0] += 0.15  # the key's thread took it; the loop is still on its block
        got = list(keyboard.pending())
    os.close(master)
    assert got == [("k", 1.0), ("2", 1.15)]
    parser = KeyParser()
    assert parser.feed(*got[0]) is None
    decl = parser.feed(*got[1])
    assert (decl.card, decl.slot, decl.began, decl.t, decl.source) == (
        "kraken", 2, 1.0, 1.15, "keyboard")


def test_large_view_shows_song_ship_turn_and_hands_as_text():
    from rich.console import Console

    from voicehost.hosts.drakkar_run import status_rows
    from voicehost.hosts.view import LargeView

    host = DrakkarHost(_state(["rower:red"] * 16), Announcer(quiet=True, silent=True),
                       intro=False)
    view = LargeView("Drakkar Tum Tum", console=Console(file=open("/dev/null", "w")))
    view.update(status_rows(host))
    view.add_line("Ann starts.")
    text = view.render_text()
    for words in ("SONG: Drakkar Tum Tum Tum", "SHIP: 1: grey, 2: grey, 3: grey", "TURN: ann",
                  "HANDS: ann 4, bo 4", "> Ann starts."):
        assert words in text


def test_inhospitable_island_discards_are_journalled_before_the_next_play(tmp_path):
    """A declared discard is applied; the ones nobody declared default before the next play."""
    from voicehost.hosts.drakkar import host_header
    from voicehost.journal import Journal, journal_to_record, read_journal

    deck = ["rower:red", "rower:red", "rower:red", "lookout", "goblin", "kraken",
            "dragon", "whirlpool"] + ["rower:yellow"] * 12
    state = drakkar.from_setup(["ann", "bo"], deck, ["inhospitable", "calm", "calm"])
    journal = Journal.create(tmp_path / "j.jsonl", "drakkar", host_header(state, {"mode": "test"}))
    announcer = Announcer(quiet=True, silent=True)
    host = DrakkarHost(state, announcer, journal, intro=False)
    host.bar_starts = [0.0, 2.0, 4.0]
    host.last_tums = [5.5, 7.5, 9.5, 11.5]
    for t, player, card, slot in [(5.5, "ann", "rower:red", 1), (7.5, "bo", "rower:red", 2),
                                  (9.5, "ann", "rower:red", 3), (11.5, "bo", "lookout", 1)]:
        host.declare(Declaration(t, player, card, slot))
    host._step(final=True)
    assert host.state.hand_limit == 2 and host.state.pending_discards
    # The table stops and warms up again; Ann declares her discard, then plays.
    host.stops.append(12.5)
    host.bar_starts += [14.0, 16.0, 18.0]
    host.last_tums.append(19.5)
    host.declare(Declaration(13.0, "ann", "goblin", type="discard"))
    host.declare(Declaration(19.5, "ann", "rower:yellow", 1))
    host._step(final=True)
    journal.close()
    header, events, _ = read_journal(tmp_path / "j.jsonl")
    kinds = [(e["type"], e["player"], e.get("default", False)) for e in events]
    assert ("discard", "ann", False) in kinds
    assert any(k == ("discard", "bo", True) for k in kinds)
    assert kinds[-1][0] == "play"  # the defaults went in before the play that needed them
    replayed = drakkar.replay(journal_to_record(header, events))
    assert drakkar.state_to_dict(replayed.state) == drakkar.state_to_dict(host.state)
    assert not host.state.pending_discards


def test_players_by_voice_the_table_says_how_many():
    """Registration through the real endpointer and recogniser on a recorded answer."""
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.drakkar_register import register_by_voice
    from voicehost.speech.recognizer import open_recognizer

    wav = GAMES / "drakkar_register.wav"
    said: list[tuple[str, float]] = []
    opened_after: list[int] = []

    def microphone():  # records from its first block on, as a live one would
        opened_after.append(len(said))
        yield from FileSource(wav).blocks()

    players, rest = register_by_voice(microphone(), lambda text, t: said.append((text, t)),
                                      open_recognizer("pocketsphinx"))
    assert opened_after == [0]  # recording before the first question was asked
    assert players == ["Player 1", "Player 2", "Player 3"]
    assert [text for text, _ in said][:2] == ["How many players? Two to four.",
                                             "Three players. Right?"]
    after = next(rest)
    assert after.t >= 3.5  # the game's blocks go on after the answers, on the same clock


def test_the_first_player_is_chosen_by_name_or_at_random_with_the_seed():
    from voicehost.hosts.drakkar_run import UsageError, first_player

    assert first_player(["ann", "bo", "cy"], "bo", 0) == ["bo", "cy", "ann"]
    assert first_player(["ann", "bo", "cy"], None, 0) == ["ann", "bo", "cy"]
    assert first_player(["ann", "bo", "cy"], "random", 5) == first_player(
        ["ann", "bo", "cy"], "random", 5)
    with pytest.raises(UsageError):
        first_player(["ann", "bo"], "zed", 0)


def test_a_printed_deck_setup_is_read_from_a_record(tmp_path):
    from voicehost.hosts.drakkar_run import UsageError, load_setup

    truth = json.loads((GAMES / "drakkar_win.truth.json").read_text())
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(truth["record"]))
    setup = load_setup(path)
    state = drakkar.from_setup(setup["players"], setup["deck"], setup["islands"])
    assert state.players == ("ann", "bo") and len(state.hands["ann"]) == 4
    path.write_text(json.dumps({"game": "drakkar", "players": ["ann", "bo"]}))
    with pytest.raises(UsageError):
        load_setup(path)


def test_a_phone_tap_is_a_declaration_on_the_host_clock():
    from voicehost.companion.hub import PhoneDeclaration
    from voicehost.hosts.drakkar_run import phone_declaration

    tap = PhoneDeclaration("bo", "kraken", 2, 7.25, 0.01, 7.3, "x1")
    decl = phone_declaration(tap)
    assert (decl.t, decl.player, decl.card, decl.slot, decl.source) == (7.25, "bo", "kraken", 2,
                                                                        "phone")
    assert phone_declaration(PhoneDeclaration("bo", "kraken", None, 7.25, None, 7.3, "x2")) is None


def test_the_tracker_learns_the_new_song_as_soon_as_a_key_press_arrives():
    deck = ["kraken"] + ["rower:red"] * 15
    host = DrakkarHost(_state(deck), Announcer(quiet=True, silent=True), intro=False)
    host.bar_starts = [1.0, 3.0, 5.0]
    host.clock = 6.6
    host.declare(Declaration(6.55, None, "kraken", 2, source="keyboard"))
    host._step()
    assert not host.plays  # not judged yet: its audio is not all in
    assert host.tracker.tums == 2  # (not locked yet, so the song applies at once)


def test_the_table_is_told_when_the_microphone_goes_and_comes_back():
    from voicehost.audio.resilient import DeviceBack, DeviceLost, Overflow
    from voicehost.hosts.drakkar_run import device_line

    assert "microphone went away" in device_line(DeviceLost(3.0, "unplugged"), "Drakkar Tum")
    assert device_line(DeviceBack(9.0, 6.0, 3), "Drakkar Tum") == (
        "I hear you again. Warm up twice: Drakkar Tum.")
    assert device_line(Overflow(4.0, 1, 1, 0.1), "Drakkar Tum") is None
