"""Live play: ``voicehost sailor`` listening to a real input device.

PulseAudio's null sink is a loopback sound card (design.md 3.3): the
recorded answers are played into it and the host records them from its
monitor through PortAudio, exactly as from a microphone. The private-cards
match is used, with its Enter presses piped to the pass-and-peek.
"""

from __future__ import annotations

import json
import os
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


_HOST = [sys.executable, "-m", "voicehost", "sailor", "--players", TRUTH["players"],
         "--cards", "private", "--seed", str(TRUTH["seed"]), "--target", str(TRUTH["target"]),
         "--turn-seconds", "30", "--accuse-seconds", str(TRUTH["accuse_seconds"]),
         "--listen-seconds", str(TRUTH["listen_seconds"]), "--backend", TRUTH["backend"],
         "--quiet"]


def _decisions(path: Path) -> list[dict]:
    return read_journal(path)[1]


def _live_match(tmp_path: Path, pulse, attempt: int) -> tuple[subprocess.Popen, str, str,
                                                                Path, Path]:
    """One match hosted live from the loopback while the answers play into it."""
    env = {**os.environ, "PULSE_SINK": pulse.sink, "PULSE_SOURCE": pulse.source}
    journal = tmp_path / f"live{attempt}.jsonl"
    heard = tmp_path / f"heard{attempt}.wav"
    out = tmp_path / f"out{attempt}.txt"
    with open(out, "w") as stdout:
        host = subprocess.Popen(
            [*_HOST, "--input-device", "pulse", "--record-input", str(heard),
             "--journal", str(journal)],
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
            try:
                # The host may still be asking again after a misheard answer.
                host.wait(timeout=60)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait()
                raise AssertionError("the host never finished the match; it said:\n"
                                     + out.read_text()[-3000:] + "\n" + host.stderr.read()) from None
        finally:
            if host.poll() is None:
                host.kill()
                host.wait()
    return host, out.read_text(), host.stderr.read(), journal, heard


def test_a_live_match_through_a_loopback_sound_card(tmp_path, pulse):
    """The host hears the match live and decides it as the recording says.

    What it decides is always exactly what hosting its own recording of the
    input decides. The outcome is the recording's own when the loopback
    delivered the recording whole; a loaded machine can make the rig itself
    (paplay, or the input) lose audio, and then the match is played again,
    once, saying what was lost.
    """
    from loopback import played_whole_or_again

    from voicehost.audio.sources import FileSource

    def play(attempt: int):
        host, said, errors, journal, heard = _live_match(tmp_path, pulse, attempt)
        assert host.returncode == 0, errors
        header, events, _ = read_journal(journal)
        assert header["host"]["mode"] == "live"
        match = sailor.replay_match(journal_to_record(header, events))
        # The host decides on the audio alone: hosting what it recorded gives the
        # same decisions at the same sample-clock times.
        again = tmp_path / f"again{attempt}.jsonl"
        replay = subprocess.run([*_HOST, "--input", str(heard), "--journal", str(again)],
                                input="\n" * 6, capture_output=True, text=True, timeout=120)
        assert replay.returncode == 0, replay.stderr
        assert _decisions(again) == events, (
            "hosting the recording of the live input decided otherwise:\n"
            + "\n".join(map(str, _decisions(again))) + "\nlive:\n" + "\n".join(map(str, events)))
        # What the host heard and said, for a run that differs (the input is kept).
        story = ("\n".join(map(str, events)) + "\n" + said[-2000:] + "\n" + errors
                 + f"\nthe input is kept in {heard}")
        return (match, said, story), heard

    def check(result) -> None:
        match, _, story = result
        assert {p.name: match.scores[p] for p in match.players} == TRUTH["outcome"]["scores"], story

    match, said, _ = played_whole_or_again(play, check, FileSource(WAV).read())
    assert "Blue wins the match!" in said
    assert [p.name for p in match.winners] == TRUTH["outcome"]["winners"]


def _wait_for(path: Path, text: str, host: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while text not in path.read_text():
        assert host.poll() is None, host.stderr.read()
        assert time.monotonic() < deadline, f"never said {text!r}:\n{path.read_text()[-2000:]}"
        time.sleep(0.05)


def test_a_live_match_goes_on_after_the_microphone_went_away(tmp_path, pulse):
    """The sound server stops while Blue's turn is listened for (the device is
    gone for every client) and comes back: the host says so, asks again, and
    the match the table then plays ends as it should."""
    env = {**os.environ, "PULSE_SINK": pulse.sink, "PULSE_SOURCE": pulse.source}
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        host = subprocess.Popen([*_HOST, "--input-device", "pulse"], stdin=subprocess.PIPE,
                                stdout=stdout, stderr=subprocess.PIPE, env=env, text=True)
        try:
            host.stdin.write("\n" * 6)
            host.stdin.flush()
            _wait_for(out, "your turn to draw", host, 30)
            pulse.stop()
            _wait_for(out, "the microphone went away", host, 20)
            time.sleep(1.0)
            pulse.start()
            _wait_for(out, "I hear you again. Blue, say done when you have drawn.", host, 30)
            subprocess.run(["paplay", str(WAV)], env=env, check=True, timeout=60)
            host.wait(timeout=60)
        finally:
            if not pulse.running:
                pulse.start()
            if host.poll() is None:
                host.kill()
                host.wait()
    said = out.read_text()
    assert host.returncode == 0, host.stderr.read()
    assert "Time is up, Blue" not in said  # the outage did not eat Blue's turn
    assert "Blue wins the match!" in said and "Scores: Blue 1, Red 0, Green 0." in said, said


#: How late the slow speaker plays (what ``module-loopback`` is asked for; it lands later).
SLOW_MS = 900


@pytest.fixture(params=["speaker", "slow speaker"])
def speaker(request, pulse, tmp_path):
    """Where the host speaks: into the microphone's own sink, or into a sink
    whose monitor PulseAudio's ``module-loopback`` plays into it ``SLOW_MS``
    late (a Bluetooth speaker plays 0.2 to 0.3 s late, a network one a
    second), calibrated as its user would (``voicehost calibrate``).
    Yields the environment the host runs in."""
    env = {**os.environ, "PULSE_SINK": pulse.sink, "PULSE_SOURCE": pulse.source,
           "VOICEHOST_CONFIG_DIR": str(tmp_path / "config")}
    if request.param == "speaker":
        yield env
        return
    from loopback import calibrated_on, slow_speaker

    with slow_speaker(pulse, SLOW_MS) as sink:
        env["PULSE_SINK"] = sink
        measured = calibrated_on(env)
        assert measured["latency_ms"] > SLOW_MS * 0.8, measured
        yield env


def test_registration_by_voice_never_hears_the_hosts_own_voice(tmp_path, pulse, speaker):
    """The host's voice plays into the sound card it listens to (a loopback: the
    worst room). The table says "three" and nothing more: "Three players.
    Right?" must not answer itself, so the host waits out its listening time
    before it asks again. Through the slow speaker, muted only for as long as
    each line lasts from when it was handed over, the host heard the end of
    "How many players? 3 to 8." and of "Three players. Right?", confirmed
    itself and went on to hear its own seat colours."""
    from voicehost.audio.sources import FileSource
    import soundfile as sf

    three = FileSource(GAMES / "drakkar_register.wav").read()[int(0.8 * 16000):int(2.2 * 16000)]
    wav = tmp_path / "three.wav"
    sf.write(wav, three, 16000)
    out = tmp_path / "out.txt"
    late = SLOW_MS / 1000 if speaker["PULSE_SINK"] != pulse.sink else 0.0
    with open(out, "w") as stdout:
        host = subprocess.Popen(
            [sys.executable, "-m", "voicehost", "sailor", "--cards", "printed",
             "--listen-seconds", "8", "--input-device", "pulse", "--output-device", "pulse"],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE, env=speaker,
            text=True)
        try:
            _wait_for(out, "How many players?", host, 30)
            time.sleep(3.0 + late)  # the question is heard
            # The table speaks into the microphone's sink, never through the speaker.
            subprocess.run(["paplay", str(wav)], env={**speaker, "PULSE_SINK": pulse.sink},
                           check=True, timeout=30)
            _wait_for(out, "Three players. Right?", host, 15)
            asked = time.monotonic()
            _wait_for(out, "Sorry, I did not catch that. Three players. Right?", host, 20)
            waited = time.monotonic() - asked
        finally:
            host.kill()
            host.wait()
    assert "Welcome aboard" not in out.read_text()
    # Nothing was heard: 8 s of audio went by. Hearing itself, the host would
    # have asked again (or gone on) as soon as it stopped talking.
    assert waited > 6.0, out.read_text()
