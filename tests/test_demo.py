"""``voicehost demo`` hosts whole games from the bundled recordings, no microphone needed;
``voicehost replay --narrate`` tells a recorded game as the host would."""

import json
import subprocess
import sys
from pathlib import Path

from voicehost.games import drakkar, sailor
from voicehost.hosts.narration import narrate

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "audio_fixtures" / "records"
GAMES = ROOT / "audio_fixtures" / "games"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True, text=True)


def test_demo_hosts_a_win_a_loss_and_a_sailor_match_from_recordings():
    out = _cli("demo", "--quiet", "--seed", "3")
    assert out.returncode == 0, out.stderr
    summary = out.stdout.split("== summary ==")[1]
    truth_win = json.loads((GAMES / "drakkar_win.truth.json").read_text())
    truth_loss = json.loads((GAMES / "drakkar_loss.truth.json").read_text())
    truth_sailor = json.loads((GAMES / "sailor_match.truth.json").read_text())
    assert "drakkar win: won, 3 island(s) found" in summary
    assert "drakkar loss: lost" in summary
    # the outcomes are the ones the rules give for the recorded plays
    assert drakkar.replay_record(truth_win["record"])["result"] == "won"
    assert drakkar.replay_record(truth_loss["record"])["result"] == "lost"
    winners = truth_sailor["outcome"]["winners"]
    colours = dict(p.split(":") for p in truth_sailor["players"].split(","))
    assert f"winner {' and '.join(colours[w].capitalize() for w in winners)};" in summary
    # what the host said about the games came before the summary
    assert "Land ho!" in out.stdout and "wins the match" in out.stdout


def test_demo_is_deterministic_for_a_seed():
    first = _cli("demo", "--quiet", "--seed", "5")
    second = _cli("demo", "--quiet", "--seed", "5")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


def test_demo_with_a_missing_folder_is_a_clear_error(tmp_path):
    out = _cli("demo", "--quiet", "--games", str(tmp_path / "nowhere"))
    assert out.returncode == 2
    assert out.stderr.startswith("voicehost: error:") and "Traceback" not in out.stderr


def test_example_records_end_as_their_names_say():
    win = drakkar.replay_record(json.loads((RECORDS / "drakkar_win.json").read_text()))
    loss = drakkar.replay_record(json.loads((RECORDS / "drakkar_loss.json").read_text()))
    match = sailor.replay_record(json.loads((RECORDS / "sailor_match.json").read_text()))
    assert win["result"] == "won" and win["islands_found"] == 3
    assert loss["result"] == "lost"
    assert match["winners"] and all(match["scores"][w] >= 4 for w in match["winners"])


def test_narration_announces_every_mistake():
    record = json.loads((RECORDS / "drakkar_loss.json").read_text())
    assert any(e.get("timing") == "off_beat" for e in record["events"])
    lines = list(narrate(record))
    mistakes = [e for e in drakkar.replay(record).events if isinstance(e, drakkar.Mistake)]
    assert mistakes and all(m.say() in lines for m in mistakes)


def test_narration_never_tells_a_role_or_the_word_before_the_reveal():
    record = json.loads((RECORDS / "sailor_match.json").read_text())
    lines = list(narrate(record))
    assert not any("you are the Drunken Sailor" in line for line in lines)
    for rnd in record["rounds"]:
        first = next(i for i, line in enumerate(lines) if rnd["word"] in line.lower())
        assert "guess" in lines[first].lower() or "word was" in lines[first].lower()


def test_replay_narrate_prints_the_story():
    out = _cli("replay", str(RECORDS / "drakkar_win.json"), "--narrate")
    assert out.returncode == 0, out.stderr
    assert "third island" in out.stdout.lower()
