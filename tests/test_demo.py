"""``voicehost demo``: narrates the bundled games on a machine with no microphone."""

import json
import subprocess
import sys
from pathlib import Path

from voicehost.games import drakkar, sailor
from voicehost.hosts.narration import narrate

RECORDS = Path(__file__).resolve().parents[1] / "audio_fixtures" / "records"


def _demo(*args):
    return subprocess.run(
        [sys.executable, "-m", "voicehost", "demo", *args], capture_output=True, text=True
    )


def test_demo_narrates_a_win_a_loss_and_a_sailor_match():
    out = _demo()
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "== drakkar win ==" in text and "== drakkar loss ==" in text and "== sailor match ==" in text
    win = text.split("== drakkar win ==")[1].split("==")[0]
    loss = text.split("== drakkar loss ==")[1].split("==")[0]
    assert "third island" in win.lower()
    assert drakkar.replay_record(json.loads((RECORDS / "drakkar_loss.json").read_text()))["result"] == "lost"
    assert "lost" in loss.lower() or "lose" in loss.lower()


def test_bundled_records_end_as_the_demo_says():
    win = drakkar.replay_record(json.loads((RECORDS / "drakkar_win.json").read_text()))
    loss = drakkar.replay_record(json.loads((RECORDS / "drakkar_loss.json").read_text()))
    match = sailor.replay_record(json.loads((RECORDS / "sailor_match.json").read_text()))
    assert win["result"] == "won" and win["islands_found"] == 3
    assert loss["result"] == "lost"
    assert match["winners"] and all(match["scores"][w] >= 4 for w in match["winners"])


def test_the_loss_record_has_a_mistake_and_it_is_announced():
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
        word = rnd["word"]
        first = next(i for i, line in enumerate(lines) if word in line.lower())
        # the word is first said in the guess or the reveal, after the votes of its round
        assert "guess" in lines[first].lower() or "word was" in lines[first].lower()


def test_demo_with_a_missing_records_folder_is_a_clear_error(tmp_path):
    out = _demo("--records", str(tmp_path / "nowhere"))
    assert out.returncode == 2
    assert out.stderr.startswith("voicehost: error:") and "Traceback" not in out.stderr
