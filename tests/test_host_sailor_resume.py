"""Crash and resume: SIGKILL the Sunken Sailor host mid-match, resume from the journal, lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from voicehost.journal import read_journal

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
WAV = GAMES / "sailor_match.wav"
TRUTH = json.loads((GAMES / "sailor_match.truth.json").read_text())
ARGS = ["sailor", "--input", str(WAV), "--players", TRUTH["players"],
        "--target", str(TRUTH["target"]), "--turn-seconds", str(TRUTH["turn_seconds"]),
        "--accuse-seconds", str(TRUTH["accuse_seconds"]),
        "--listen-seconds", str(TRUTH["listen_seconds"]), "--backend", TRUTH["backend"],
        "--quiet"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, timeout=120)


def events_in(path: Path) -> int:
    try:
        return max(0, len(path.read_bytes().splitlines()) - 1)
    except FileNotFoundError:
        return 0


def result_json(stdout: str) -> dict:
    return json.loads(stdout[stdout.index("{\n"):])


def test_resume_after_sigkill_mid_match_ends_like_an_uninterrupted_match(tmp_path):
    whole = tmp_path / "whole.jsonl"
    out = cli(*ARGS, "--journal", str(whole), "--json")
    assert out.returncode == 0, out.stderr
    uninterrupted = result_json(out.stdout)
    assert uninterrupted["scores"] == TRUTH["outcome"]["scores"]

    crashed = tmp_path / "crashed.jsonl"
    # Paced at 6x real time so the match is still running when it is killed.
    proc = subprocess.Popen([sys.executable, "-m", "voicehost", *ARGS, "--journal",
                             str(crashed), "--pace", "6"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while events_in(crashed) < 22 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the match ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _, before, _ = read_journal(crashed)
    assert 22 <= len(before) < 30  # killed in round 2, before its votes were all in
    assert sum(1 for e in before if e["type"] == "round") == 1

    out = cli("resume", str(crashed), "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert "Resuming round 2. Scores: Red 1, Green 1, Blue 0." in out.stdout
    resumed = result_json(out.stdout)
    assert resumed["scores"] == uninterrupted["scores"]
    assert resumed["winners"] == uninterrupted["winners"] == TRUTH["outcome"]["winners"]

    # Nothing lost, nothing doubled: the same decisions, at the same sample-clock times.
    _, e1, _ = read_journal(whole)
    _, e2, _ = read_journal(crashed)
    assert e2 == e1


def test_resuming_a_finished_match_says_so(tmp_path):
    path = tmp_path / "done.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [
        {"format": "voicehost-journal", "version": 1, "game": "sailor",
         "players": [{"name": "ann", "colour": "red"}, {"name": "bo", "colour": "blue"},
                     {"name": "cy", "colour": "green"}],
         "target": 2, "host": {"mode": "recording", "input": str(WAV)}},
        {"type": "round", "round": {"word": "printed card", "sailor": "cy", "starter": "ann",
                                    "votes": {"ann": "bo", "bo": "ann", "cy": "ann"},
                                    "guess": None}},
    ]) + "\n")
    out = cli("resume", str(path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "already over after 1 round: Green won" in out.stdout


def test_resuming_a_damaged_journal_is_a_one_line_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "voicehost-journal", "version": 1, "game": "sailor", '
                    '"players": [], "target": 4}\n')
    out = cli("resume", str(path), "--quiet")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1


def _private_journal(tmp_path, keep: int):
    """A private-cards match journalled whole, then cut after ``keep`` decisions (a crash)."""
    import io

    from voicehost.hosts.announce import Announcer
    from voicehost.hosts.sailor import recorded_match, run_recording

    wav, settings, truth = recorded_match(GAMES / "sailor_private.truth.json")
    whole = tmp_path / "whole.jsonl"
    run_recording(wav, settings, Announcer(quiet=True, stream=io.StringIO()),
                  journal_path=whole, keys=io.StringIO("\n" * 6), screen=io.StringIO())
    lines = whole.read_text().splitlines(keepends=True)
    cut = tmp_path / f"cut{keep}.jsonl"
    cut.write_text("".join(lines[:1 + keep]))
    return wav, truth, whole, cut


def _resume(cut: Path, keys: str):
    import io

    from voicehost.hosts.announce import Announcer
    from voicehost.hosts.sailor import SailorSettings, run_recording
    from voicehost.journal import Journal

    journal = Journal.open_existing(cut)
    screen = io.StringIO()
    announcer = Announcer(quiet=True, stream=io.StringIO())
    try:
        result = run_recording(journal.header["host"]["input"],
                               SailorSettings.from_header(journal.header), announcer,
                               journal=journal, resume_events=list(journal.events),
                               keys=io.StringIO(keys), screen=screen)
    finally:
        journal.close()
    return result, announcer, screen.getvalue()


def test_private_cards_resume_mid_vote_without_showing_the_cards_again(tmp_path):
    wav, truth, whole, cut = _private_journal(tmp_path, keep=9)  # deal, 6 turns, call, 1 vote
    result, announcer, screen = _resume(cut, keys="")
    assert result.scores == truth["outcome"]["scores"]
    assert screen == ""  # the cards were seen before the crash
    texts = announcer.texts
    i = texts.index("Resuming round 1. Scores: Red 0, Blue 0, Green 0.")
    assert texts[i + 1] == "Blue, who do you accuse?"
    assert read_journal(cut)[1] == read_journal(whole)[1]


def test_a_crash_while_the_cards_are_shown_shows_them_again(tmp_path):
    wav, truth, whole, cut = _private_journal(tmp_path, keep=1)  # only the deal
    result, announcer, screen = _resume(cut, keys="\n" * 6)
    assert result.scores == truth["outcome"]["scores"]
    assert screen.count("press Enter to see your card") == 3
    assert read_journal(cut)[1] == read_journal(whole)[1]
