"""Live play: ``voicehost sailor`` listening to a real input device.

PulseAudio's null sink is a loopback sound card (design.md 3.3): the
recorded answers are played into it and the host records them from its
monitor through PortAudio, exactly as from a microphone. The private-cards
match is used, with its Enter presses piped to the pass-and-peek.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from voicehost.games import sailor
from voicehost.journal import journal_to_record, read_journal

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
WAV = GAMES / "sailor_private.wav"
TRUTH = json.loads((GAMES / "sailor_private.truth.json").read_text())


def _null_sink() -> str | None:
    """The name of a PulseAudio null sink to loop through, loading one if needed."""
    if not shutil.which("pactl") or not shutil.which("paplay"):
        return None
    try:
        sinks = subprocess.run(["pactl", "list", "short", "sinks"], capture_output=True,
                               text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if sinks.returncode != 0:
        return None
    for line in sinks.stdout.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[2].startswith("module-null-sink"):
            return parts[1]
    made = subprocess.run(["pactl", "load-module", "module-null-sink", "sink_name=vhsailor"],
                          capture_output=True, text=True, timeout=10)
    return "vhsailor" if made.returncode == 0 else None


def test_a_live_match_through_a_loopback_sound_card(tmp_path):
    sink = _null_sink()
    if sink is None:
        pytest.skip("no PulseAudio null sink (see design.md 3.3)")
    env = {**os.environ, "PULSE_SINK": sink, "PULSE_SOURCE": f"{sink}.monitor"}
    journal = tmp_path / "live.jsonl"
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        host = subprocess.Popen(
            [sys.executable, "-m", "voicehost", "sailor", "--players", TRUTH["players"],
             "--cards", "private", "--seed", str(TRUTH["seed"]), "--target",
             str(TRUTH["target"]), "--turn-seconds", "30",
             "--accuse-seconds", str(TRUTH["accuse_seconds"]),
             "--listen-seconds", str(TRUTH["listen_seconds"]), "--backend", TRUTH["backend"],
             "--input-device", "pulse", "--quiet", "--journal", str(journal)],
            stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE, env=env, text=True)
        try:
            host.stdin.write("\n" * 6)  # each player: Enter to see the card, Enter to hide it
            host.stdin.flush()
            deadline = time.monotonic() + 30
            while "your turn to draw" not in out.read_text() and time.monotonic() < deadline:
                assert host.poll() is None, host.stderr.read()
                time.sleep(0.05)
            # The table starts answering once the host is listening for the first turn.
            subprocess.run(["paplay", str(WAV)], env=env, check=True, timeout=60)
            host.wait(timeout=30)
        finally:
            if host.poll() is None:
                host.kill()
                host.wait()
    assert host.returncode == 0, host.stderr.read()
    said = out.read_text()
    assert "Blue wins the match!" in said
    header, events, _ = read_journal(journal)
    assert header["host"]["mode"] == "live"
    match = sailor.replay_match(journal_to_record(header, events))
    assert {p.name: match.scores[p] for p in match.players} == TRUTH["outcome"]["scores"]
    assert [p.name for p in match.winners] == TRUTH["outcome"]["winners"]
