"""``voicehost replay``: records in, state out; a bad record is one clear line and exit 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

RECORDS = Path(__file__).resolve().parents[1] / "audio_fixtures" / "records"

DRAKKAR = {
    "game": "drakkar", "players": ["ann", "bo"], "variant": None,
    "deck": ["rower:red", "rower:yellow", "goblin", "kraken", "warrior:red", "crossbow:yellow",
             "rower:red", "whirlpool", "lookout", "rower:yellow", "dragon", "warrior:yellow"],
    "islands": ["winter", "calm", "whirlpool"],
    "events": [{"type": "play", "player": "ann", "card": "rower:red", "slot": 1, "timing": "on_beat"}],
}
SAILOR = {
    "game": "sailor",
    "players": [{"name": "ann", "colour": "red"}, {"name": "bo", "colour": "blue"},
                {"name": "cy", "colour": "green"}],
    "rounds": [{"word": "anchor", "sailor": "bo", "votes": {"ann": "bo", "bo": "ann", "cy": "blue"},
                "guess": "anchor"}],
}


def _replay(tmp_path, record, *args):
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return subprocess.run([sys.executable, "-m", "voicehost", "replay", str(path), *args],
                          capture_output=True, text=True)


def test_drakkar_record_gives_the_contract_state(tmp_path):
    out = _replay(tmp_path, DRAKKAR, "--json")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    for key in ("result", "reason", "islands_found", "song", "tums", "ship", "hands",
                "deck_left", "next_player", "rejected"):
        assert key in state
    assert state["ship"] == ["rower:red", "grey", "grey"] and state["next_player"] == "bo"
    # dealt 4 each with 2 players, round-robin from ann; ann played and drew
    assert state["deck_left"] == len(DRAKKAR["deck"]) - 8 - 1


def test_sailor_record_gives_the_contract_state(tmp_path):
    out = _replay(tmp_path, SAILOR, "--json")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["scores"] == {"ann": 0, "bo": 1, "cy": 0}  # unmasked, guessed right
    assert state["rounds"][0]["unmasked"] is True and state["rounds"][0]["guess_right"] is True
    assert state["winners"] == []


@pytest.mark.parametrize("record, words", [
    ({k: v for k, v in DRAKKAR.items() if k != "deck"}, "deck"),
    ({**DRAKKAR, "deck": ["rower:red", "sea-serpent"]}, "sea-serpent"),
    ({**DRAKKAR, "game": "chess"}, "chess"),
    ({k: v for k, v in DRAKKAR.items() if k != "game"}, "game"),
    ({**DRAKKAR, "events": [{**DRAKKAR["events"][0], "player": "zed"}]}, "zed"),
    ({k: v for k, v in SAILOR.items() if k != "players"}, "players"),
    ({**SAILOR, "rounds": [{**SAILOR["rounds"][0], "votes": {"ann": "mauve"}}]}, "mauve"),
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
])
def test_a_bad_record_is_one_clear_line_and_exit_2(tmp_path, record, words):
    out = _replay(tmp_path, record, "--json")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicehost: error:"), out.stderr
    assert words in lines[0]
    assert out.stdout == ""


def test_a_missing_record_file_is_one_clear_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "voicehost", "replay", str(tmp_path / "nope.json")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "no such record" in out.stderr


def test_replay_of_a_bundled_record_matches_its_name():
    out = subprocess.run([sys.executable, "-m", "voicehost", "replay",
                          str(RECORDS / "drakkar_win.json"), "--json"], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)["result"] == "won"
