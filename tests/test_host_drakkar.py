"""The Drakkar host on whole recorded games, through the real audio pipeline.

The fixtures in audio_fixtures/games/ are made by tools/make_game_fixtures.py:
a table of espeak-ng singers with card slaps, a declarations sidecar, and the
truth (the record the rules should end with). Nothing here mocks the audio:
each WAV goes through FileSource, the onset detector, the chant tracker and
the judge, exactly as the microphone would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voicehost.games import drakkar
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar import run_recording
from voicehost.journal import read_journal, journal_to_record

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"


def paths(name: str) -> tuple[Path, Path, dict]:
    base = GAMES / f"drakkar_{name}"
    truth = json.loads(Path(f"{base}.truth.json").read_text())
    return base.with_suffix(".wav"), Path(f"{base}.declarations.json"), truth


def essentials(events: list[dict]) -> list[tuple]:
    return [(e["type"], e["player"], e["card"], e.get("slot"), e.get("timing")) for e in events]


@pytest.fixture(scope="module")
def win(tmp_path_factory):
    wav, side, truth = paths("win")
    announcer = Announcer(quiet=True, stream=open("/dev/null", "w"))
    journal_path = tmp_path_factory.mktemp("win") / "journal.jsonl"
    result = run_recording(wav, side, announcer, journal_path=journal_path)
    return result, truth, journal_path


@pytest.fixture(scope="module")
def whirlpool():
    wav, side, truth = paths("whirlpool")
    announcer = Announcer(quiet=True, silent=True)
    return run_recording(wav, side, announcer), truth


@pytest.fixture(scope="module")
def loss(tmp_path_factory):
    wav, side, truth = paths("loss")
    announcer = Announcer(quiet=True, stream=open("/dev/null", "w"))
    journal_path = tmp_path_factory.mktemp("loss") / "journal.jsonl"
    result = run_recording(wav, side, announcer, journal_path=journal_path)
    return result, truth, journal_path


def test_win_recording_ends_as_the_rules_say(win):
    result, truth, _ = win
    assert result.result == "won" == truth["outcome"]["result"]
    assert result.reason == truth["outcome"]["reason"]
    expected = drakkar.replay_output(drakkar.replay(truth["record"]))
    got = drakkar.replay_output(drakkar.Replay(result.state))
    for key in ("result", "islands_found", "ship", "hands", "deck_left"):
        assert got[key] == expected[key], key
    # Every play judged as the table played it (all on the beat in this game).
    assert [(p.player, p.card, p.slot, p.timing) for p in result.plays] == [
        (e["player"], e["card"], e["slot"], e["timing"]) for e in truth["record"]["events"]]


def test_win_recording_announces_song_changes_islands_and_timing(win):
    result, _, _ = win
    lines = result.lines
    assert "Kraken! Now Drakkar Tum Tum." in lines
    assert "Red warrior covers the danger! Now Drakkar Tum Tum Tum." in lines
    assert sum(line.startswith("Lookout! Land ho!") for line in lines) == 3
    assert lines.count("The crew has won the voyage!") == 1
    timing = {t.player: t for t in result.timing}
    assert timing["ann"].plays == 7 and timing["bo"].plays == 6
    assert all(t.mean_ms is not None and abs(t.mean_ms) < 120 for t in timing.values())
    assert any(line.startswith("Ann: 7 of 7 on the beat, ") for line in lines)


def test_an_illegal_play_is_refused_aloud_and_the_game_goes_on(win):
    result, _, _ = win
    refused = [r for r in result.refused if r["card"] == "rower:yellow" and r["slot"] == 2]
    assert refused and "cannot cover the Kraken" in refused[0]["why"]
    assert "A rower cannot cover the Kraken." in result.lines


def test_loss_recording_ends_as_the_rules_say(loss):
    result, truth, _ = loss
    assert result.result == "lost" == truth["outcome"]["result"]
    assert result.reason == "All three sections of the ship are dangers."
    assert result.state.ship == drakkar.replay(truth["record"]).state.ship
    assert [(p.player, p.card, p.slot, p.timing) for p in result.plays] == [
        (e["player"], e["card"], e["slot"], e["timing"]) for e in truth["record"]["events"]]


def test_a_late_play_is_a_mistake_the_card_stays_and_no_draw(loss):
    result, truth, _ = loss
    late = result.plays[1]
    assert (late.player, late.card, late.timing) == ("bo", "rower:yellow", "off_beat")
    assert late.verdict.verdict == "late" and late.offset_ms > 120
    assert late.mistake == drakkar.OUT_OF_RHYTHM
    assert "Too late, Bo keeps the card but draws none." in result.lines
    # The song stops and warms up again; after the restart Ann plays on the third bar.
    i = result.lines.index("Too late, Bo keeps the card but draws none.")
    assert result.lines[i + 1].startswith("Warm up twice: Drakkar Tum Tum. Ann first.")
    assert result.plays[2].timing == "on_beat"


def test_a_wrong_song_is_named_with_the_song_the_ship_needs(loss):
    result, _, _ = loss
    assert "You are singing three Tums: the ship has a goblin, sing Drakkar Tum Tum." in result.lines


def test_a_stopped_song_is_announced_and_restarted(loss):
    result, _, _ = loss
    assert "The song stopped: sing again, Drakkar Tum." in result.lines
    # After that restart the dragon (third bar) is still judged on the beat.
    assert result.plays[-1].card == "dragon" and result.plays[-1].timing == "on_beat"


def test_a_play_during_the_warm_up_is_refused_with_a_hint(loss):
    result, truth, _ = loss
    early = [d for d in truth["declarations"] if d.get("expect") == "refused_warmup"]
    warm = [r for r in result.refused if abs(r["t"] - early[0]["t"]) < 1e-3]
    assert warm and warm[0]["why"] == "Not yet, Bo: warm-up song two; play on the third."


@pytest.mark.parametrize("game", ["win", "loss"])
def test_the_journal_is_a_record_that_replays_to_the_same_state(game, win, loss):
    result, truth, journal_path = {"win": win, "loss": loss}[game]
    header, events, torn = read_journal(journal_path)
    assert torn is None
    assert header["host"]["mode"] == "recording"
    assert essentials(events) == essentials(truth["record"]["events"])
    assert all("verdict" in e and "clock" in e for e in events)
    replayed = drakkar.replay(journal_to_record(header, events))
    assert drakkar.state_to_dict(replayed.state) == drakkar.state_to_dict(result.state)


CHANT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"


def test_a_table_that_speeds_up_is_told_to_keep_one_tempo():
    # A chant recording (tools/make_fixtures.py) whose tempo drifts 12 % faster.
    announcer = Announcer(quiet=True, silent=True)
    result = run_recording(CHANT / "g3_100bpm_drift_snr15.wav", None, announcer,
                           players=["ann", "bo"])
    assert any(line.startswith("You are singing faster") for line in result.lines)
    assert result.heard["tempo"] >= 1


def test_a_wrong_song_is_said_once_not_every_bar():
    announcer = Announcer(quiet=True, silent=True)
    result = run_recording(CHANT / "g5_75bpm_wrong_2tums_snr15.wav", None, announcer,
                           players=["ann", "bo"])
    wrong = [line for line in result.lines if line.startswith("You are singing two Tums")]
    assert result.heard["wrong_song"] >= 2 and len(wrong) == 1
    assert wrong[0].endswith("the ship has no danger, sing Drakkar Tum Tum Tum.")


def test_whirlpool_island_reverses_the_song_and_plays_fall_on_drak(whirlpool):
    result, truth = whirlpool
    expected = drakkar.replay(truth["record"]).state
    assert result.result == "playing"
    assert drakkar.state_to_dict(result.state) == drakkar.state_to_dict(expected)
    assert [p.timing for p in result.plays] == ["on_beat"] * 7
    lines = result.lines
    assert any(line.startswith("Lookout! Land ho! The first island is Whirlpool Island")
               for line in lines)
    assert "Ship cleared. Warm up twice: Tum Tum Tum Drakkar. Ann first." in lines
    assert "Whirlpool! Ann plays again." in lines
    assert "Goblin! Now Tum Tum Drakkar." in lines


@pytest.mark.parametrize("blocksize", [320, 4000])
def test_the_outcome_does_not_depend_on_the_block_size(blocksize):
    """A sound card's block size is not the file's: the host must decide the same."""
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.drakkar import DrakkarHost, state_for
    from voicehost.hosts.drakkar_declarations import load_sidecar

    wav, side_path, truth = paths("win")
    side = load_sidecar(side_path)
    host = DrakkarHost(state_for(side.setup, None, 0), Announcer(quiet=True, silent=True))
    for decl in side.declarations:
        host.declare(decl)
    for block in FileSource(wav, blocksize=blocksize).blocks():
        host.feed(block)
        if host.done:
            break
    result = host.finish()
    assert result.result == "won"
    assert [(p.player, p.card, p.slot, p.timing) for p in result.plays] == [
        (e["player"], e["card"], e["slot"], e["timing"]) for e in truth["record"]["events"]]


class _TimedVoice:
    """A voice that plays nothing but takes as long as espeak-ng would (about 14
    characters a second, and a breath): the host's lines mask the microphone that long."""

    def say(self, text: str, at: float = 0.0) -> float:
        return 0.3 + len(text) / 14.0


def _hosted_as_live(name: str, until: float = float("inf"), source: str = "sidecar",
                    voice: bool = True, declared=None):
    """Host the recorded game ``name`` up to ``until`` seconds as live: each line the
    host speaks masks the microphone as long as espeak-ng would say it (routine lines
    shown only; with ``voice=False`` nothing masks it), each play declared from
    ``source`` (or as ``declared`` makes each of the sidecar's). Returns the host, its
    announcer and the mute windows."""
    from dataclasses import replace

    from voicehost.audio.mute import MuteWindows
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.drakkar import DrakkarHost, state_for
    from voicehost.hosts.drakkar_declarations import load_sidecar

    wav, side_path, _ = paths(name)
    side = load_sidecar(side_path)
    mute = MuteWindows()
    announcer = Announcer(voice=_TimedVoice() if voice else None, mute=mute,
                          stream=open("/dev/null", "w"))
    announcer.speak = lambda line: line.kind != "play"
    audio = FileSource(wav)
    host = DrakkarHost(state_for(side.setup, None, 0), announcer, None, rate=audio.rate,
                       mute=mute, intro=False)
    for decl in side.declarations:
        host.declare(declared(decl) if declared else replace(decl, source=source))
    for block in audio.blocks():
        if block.start / block.rate > until:
            return host, announcer, mute
        host.feed(block)
    host.finish()
    return host, announcer, mute


def test_plays_under_the_hosts_voice_are_judged_on_the_song_it_could_not_hear():
    """Half duplex: while the host says "Kraken! Now Drakkar Tum Tum." (2.4 s) and
    then refuses a rower (2.5 s more), the microphone is masked and the table sings
    on. Ann's warrior is slapped on the next bar's last Tum, unheard. Before the
    tracker went on through the masked beats, the song "stopped" under the voice and
    Ann lost her draw: "Stop! No song was going"."""
    # Up to the first island: the fixture's table then warms up under the host's long
    # announcement, which a table hearing it would let end.
    host, announcer, mute = _hosted_as_live("win", until=14.5)
    assert mute.covers(9.0) and mute.covers(11.2)
    plays = {round(p.verdict.declared_t, 2): p for p in host.plays}
    warrior = plays[11.29]
    assert warrior.card == "warrior:red" and warrior.mistake is None
    assert warrior.verdict.timed_by == "deaf" and warrior.verdict.verdict == "on_beat"
    assert abs(warrior.verdict.offset_ms) < 60
    assert plays[13.11].verdict.verdict == "on_beat" and plays[13.11].mistake is None
    texts = announcer.texts
    assert "Red warrior covers the danger! Now Drakkar Tum Tum Tum." in texts
    assert not any("No song was going" in x or "the song stopped" in x for x in texts)


def test_a_card_heard_after_the_voice_is_not_judged_on_bars_that_went_on_under_it():
    """The loss game, its host's lines masking as long as espeak-ng speaks them: the
    table stops after the Kraken, under "You are singing three Tums...", and begins
    the one-Tum song again before the voice ends, on a beat of its own. Bo slaps the
    dragon 0.6 s after the voice: the tracker has not yet heard the song in time
    again, and the bars it went on with under the voice fall between the table's.
    Judged on them the dragon was 463 ms "late" (Bo lost his draw); it is refused,
    and the card stays in his hand."""
    host, announcer, mute = _hosted_as_live("loss")
    said = {(line.t, line.text) for line in announcer.lines}
    # As without the voice up to the dragon: Bo's late rower (timed under the voice,
    # with the benefit of the doubt, and late still), the wrong song, the Kraken.
    assert (8.3715, "Too late, Bo keeps the card but draws none.") in said
    assert (15.409, "You are singing three Tums: the ship has a goblin, sing Drakkar Tum Tum.") in said
    assert (16.39, "Kraken! Now Drakkar Tum.") in said
    assert mute.covers(19.5) and not mute.covers(21.2)  # the new song began under the voice
    assert (21.6892, "Not now, Bo: I could not hear the song while I spoke. "
                     "Play again on a last Tum.") in said
    assert [p.card for p in host.plays] == ["goblin", "rower:yellow", "kraken"]
    assert "dragon" in [str(card) for card in host.state.hands["bo"]]


def test_a_phone_tap_under_the_hosts_voice_times_its_play():
    """A phone's tap is the play itself (no card to hear): under the host's voice it
    gets no benefit of the doubt. The win game's warrior tapped 135 ms after its last
    Tum, where the sidecar declares it, is late."""
    host, _, mute = _hosted_as_live("win", until=14.5, source="phone")
    warrior = {round(p.verdict.declared_t, 2): p for p in host.plays}[11.29]
    assert mute.covers(11.2)
    assert warrior.verdict.timed_by == "declaration" and warrior.verdict.verdict == "late"


@pytest.mark.parametrize("name", ["win", "whirlpool"])
def test_a_play_typed_after_its_card_is_timed_by_the_card(name):
    """On the keyboard a play is two keys. A player who slaps the card and then types
    "k", "2" presses the card key about 0.15 s after the card and the section 0.45 s
    after it, beyond the 250 ms in which the judge looks for the card. The card is
    looked for near the key that began the declaration too: each play of the game,
    typed so, is judged as when declared right after its card. Timed by its section
    key alone, a play on the beat was "late". (The loss game's table stops singing
    when its host says "Too late", 0.1 s after the card: it cannot wait for keys.)"""
    from dataclasses import replace

    def typed(began):
        return lambda d: replace(d, t=d.t + 0.33, began=began(d), source="keyboard")

    def verdicts(host):
        return [(p.card, p.verdict.verdict, round(p.verdict.t, 3)) for p in host.plays]

    declared, _, _ = _hosted_as_live(name, voice=False)
    right_after = typed(lambda d: d.t + 0.03)
    host, _, _ = _hosted_as_live(name, voice=False, declared=right_after)
    assert verdicts(host) == verdicts(declared)
    assert {p.verdict.timed_by for p in host.plays} == {"slap"}
    # The section key alone is too far from the card: the play is late.
    host, _, _ = _hosted_as_live(name, voice=False, declared=typed(lambda d: None))
    assert [p.verdict.verdict for p in host.plays][0] == "late"
