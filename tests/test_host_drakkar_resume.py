"""Crash and resume: SIGKILL the host mid-game, resume from the journal, lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from voicehost.games import drakkar
from voicehost.journal import read_journal, journal_to_record

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
WAV = GAMES / "drakkar_win.wav"
SIDE = GAMES / "drakkar_win.declarations.json"


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, timeout=120, **kw)


def journal_events(path: Path) -> int:
    try:
        return max(0, len(path.read_bytes().splitlines()) - 1)
    except FileNotFoundError:
        return 0


def test_resume_after_sigkill_ends_like_an_uninterrupted_game(tmp_path):
    whole = tmp_path / "whole.jsonl"
    out = cli("drakkar", "--input", str(WAV), "--declarations", str(SIDE), "--journal",
              str(whole), "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    uninterrupted = json.loads(out.stdout[out.stdout.index("{\n"):])
    assert uninterrupted["result"] == "won"

    crashed = tmp_path / "crashed.jsonl"
    # Paced at 6x real time so the game is still running when it is killed.
    proc = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "drakkar", "--input", str(WAV), "--declarations",
         str(SIDE), "--journal", str(crashed), "--quiet", "--pace", "6"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while journal_events(crashed) < 6 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the game ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _, before, _ = read_journal(crashed)
    assert 6 <= len(before) < 13

    out = cli("resume", str(crashed), "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert "Resuming the voyage after" in out.stdout
    resumed = json.loads(out.stdout[out.stdout.index("{\n"):])
    assert resumed["final"] == uninterrupted["final"]
    assert resumed["result"] == "won"

    # Nothing lost, nothing doubled: the journals hold the same plays.
    h1, e1, _ = read_journal(whole)
    h2, e2, _ = read_journal(crashed)
    key = lambda e: (e["type"], e["player"], e["card"], e.get("slot"), e.get("timing"))  # noqa: E731
    assert [key(e) for e in e2] == [key(e) for e in e1]
    a = drakkar.replay(journal_to_record(h1, e1)).state
    b = drakkar.replay(journal_to_record(h2, e2)).state
    assert drakkar.state_to_dict(a) == drakkar.state_to_dict(b)


def test_resuming_a_finished_game_says_so(tmp_path):
    path = tmp_path / "done.jsonl"
    out = cli("drakkar", "--input", str(GAMES / "drakkar_loss.wav"), "--declarations",
              str(GAMES / "drakkar_loss.declarations.json"), "--journal", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    out = cli("resume", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "already over after 4 plays: lost" in out.stdout


def test_resuming_a_recording_whose_audio_is_gone_is_a_clear_error(tmp_path):
    wav = tmp_path / "game.wav"
    wav.write_bytes((GAMES / "drakkar_loss.wav").read_bytes())
    path = tmp_path / "j.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "drakkar", "--input", str(wav), "--declarations",
         str(GAMES / "drakkar_loss.declarations.json"), "--journal", str(path), "--quiet",
         "--pace", "6"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while journal_events(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    wav.unlink()
    out = cli("resume", str(path), "--quiet")
    assert out.returncode == 2 and "no such file" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_live_journal_resumes_live_and_needs_the_keyboard(tmp_path):
    path = tmp_path / "done.jsonl"
    out = cli("drakkar", "--input", str(GAMES / "drakkar_loss.wav"), "--declarations",
              str(GAMES / "drakkar_loss.declarations.json"), "--journal", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["host"] = {"mode": "live", "seed": 0, "windows": "normal", "input_device": None}
    live = tmp_path / "live.jsonl"
    live.write_text("\n".join([json.dumps(header)] + lines[1:3]) + "\n")
    out = cli("resume", str(live), "--quiet", stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    assert "standard input is not a terminal" in out.stderr
