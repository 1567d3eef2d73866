"""``voicehost sailor`` on the command line: clear one-line errors, the result, the large view."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.hosts.announce import Announcer
from voicehost.hosts.sailor import recorded_match, run_recording

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
WAV = GAMES / "sailor_private.wav"
TRUTH = json.loads((GAMES / "sailor_private.truth.json").read_text())


def cli(*args: str, env: dict | None = None, stdin: str | None = None):
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})},
                          input=stdin)


@pytest.mark.parametrize("args, env, why", [
    (["--players", "ann:red,bo:blue"], {}, "3 to 8 players"),
    (["--players", "ann:red,bo:pink,cy:green"], {}, "pink"),
    (["--players", "ann=red,bo:blue,cy:green"], {}, "name:colour"),
    (["--players", "ann:red,bo:blue,cy:green", "--turn-seconds", "0"], {}, "turn-seconds"),
    (["--players", "ann:red,bo:blue,cy:green", "--input", "no/such.wav"], {}, "no such file"),
    (["--players", "ann:red,bo:blue,cy:green", "--input", str(WAV), "--backend", "vosk"],
     {"VOICEHOST_VOSK_MODEL": "/no/such/model"}, "Vosk model"),
])
def test_user_mistakes_are_one_line_and_exit_2(args, env, why):
    out = cli("sailor", *args, "--quiet", env=env)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def test_a_journal_that_exists_is_not_overwritten(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text("keep me\n")
    out = cli("sailor", "--players", "ann:red,bo:blue,cy:green", "--input", str(WAV),
              "--journal", str(path), "--quiet")
    assert out.returncode == 2 and "voicehost resume" in out.stderr
    assert path.read_text() == "keep me\n"


def test_the_command_hosts_a_recording_and_prints_the_result():
    out = cli("sailor", "--input", str(WAV), "--players", TRUTH["players"], "--cards", "private",
              "--seed", str(TRUTH["seed"]), "--target", str(TRUTH["target"]),
              "--turn-seconds", str(TRUTH["turn_seconds"]),
              "--accuse-seconds", str(TRUTH["accuse_seconds"]),
              "--listen-seconds", str(TRUTH["listen_seconds"]), "--backend", TRUTH["backend"],
              "--quiet", "--json", stdin="\n" * 6)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout[out.stdout.index("{\n"):])
    assert result["scores"] == TRUTH["outcome"]["scores"]
    assert result["winners"] == TRUTH["outcome"]["winners"] and result["over"]
    assert "Blue wins the match!" in out.stdout


def test_the_large_view_follows_turn_phase_timer_and_scores():
    wav, settings, truth = recorded_match(GAMES / "sailor_private.truth.json")
    seen: list[dict[str, str]] = []
    result = run_recording(wav, settings, Announcer(quiet=True, stream=io.StringIO()),
                           keys=io.StringIO("\n" * 6), screen=io.StringIO(),
                           on_status=lambda host: seen.append(dict(host.status_rows())))
    assert result.match.over
    assert {"round": "1", "phase": "drawing", "turn": "Blue (bo), 1 of 6",
            "scores": "Red 0, Blue 0, Green 0", "target": "first to 1"} in seen
    timers = [rows["timer"] for rows in seen if rows.get("phase") == "accusations"]
    seconds = [int(t.split()[0]) for t in timers]
    assert seconds[0] == 2 and seconds == sorted(seconds, reverse=True) and 1 in seconds
    assert any(rows.get("turn") == "Green votes" for rows in seen)
    assert seen[-1]["scores"] == "Blue 1, Red 0, Green 0"
