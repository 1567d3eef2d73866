"""A speaker that plays late: the host must not hear the end of its own line.

Bluetooth speakers play 150 to 300 ms after the sound card is handed the
audio, network speakers a second or more. The host mutes the microphone
while it speaks; muted only for as long as the line lasts from the moment
it was handed over, the last words of a late speaker reach the microphone
unmuted and the host answers its own "Right?". ``voicehost calibrate``
measures the delay of the whole path, and the voice mutes that much longer.

The rig: the host speaks into a second null sink whose monitor PulseAudio's
``module-loopback`` plays into the microphone's sink 0.6 s late.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "audio_fixtures" / "games"
#: What ``module-loopback`` is asked for; it lands somewhat later.
DELAY_MS = 900


@pytest.fixture
def slow_speaker(pulse):
    """The name of a sink that plays into the loopback's sink ``DELAY_MS`` late."""
    sink = f"{pulse.sink}_slow"
    modules = []
    try:
        for args in (["module-null-sink", f"sink_name={sink}", "rate=48000"],
                     ["module-loopback", f"source={sink}.monitor", f"sink={pulse.sink}",
                      f"latency_msec={DELAY_MS}"]):
            done = pulse.pactl("load-module", *args)
            assert done.returncode == 0, f"cannot load {args[0]}: {done.stderr.strip()}"
            modules.append(done.stdout.strip())
        yield sink
    finally:
        for module in reversed(modules):
            pulse.pactl("unload-module", module)


def _wait_for(out: Path, text: str, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in out.read_text():
            return
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    raise AssertionError(f"never said {text!r}:\n{out.read_text()}")


def test_a_calibrated_slow_speaker_does_not_answer_the_hosts_own_question(
        pulse, slow_speaker, tmp_path):
    """The table says "three" and nothing more: "Three players. Right?",
    heard 0.6 s late, must not answer itself, so the host waits out its
    listening time before it asks again."""
    from voicehost.audio.sources import FileSource
    import soundfile as sf

    config = tmp_path / "config"
    env = {**os.environ, "PULSE_SINK": slow_speaker, "PULSE_SOURCE": pulse.source,
           "VOICEHOST_CONFIG_DIR": str(config), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "voicehost", "calibrate", "--input-device",
                           "pulse", "--output-device", "pulse", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    latency = json.loads(done.stdout)["latency_ms"]
    assert latency > DELAY_MS * 0.8, done.stdout  # the delay is the speaker's

    three = FileSource(GAMES / "drakkar_register.wav").read()[int(0.8 * 16000):int(2.2 * 16000)]
    wav = tmp_path / "three.wav"
    sf.write(wav, three, 16000)
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        host = subprocess.Popen(
            [sys.executable, "-m", "voicehost", "sailor", "--cards", "printed",
             "--listen-seconds", "8", "--input-device", "pulse", "--output-device", "pulse"],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE, env=env, text=True)
        try:
            _wait_for(out, "How many players?", host, 30)
            time.sleep(3.0 + DELAY_MS / 1000)  # the question is heard
            # The table speaks into the microphone's sink, not through the speaker.
            subprocess.run(["paplay", str(wav)], env={**env, "PULSE_SINK": pulse.sink},
                           check=True, timeout=30)
            _wait_for(out, "Three players. Right?", host, 15)
            asked = time.monotonic()
            _wait_for(out, "Sorry, I did not catch that. Three players. Right?", host, 20)
            waited = time.monotonic() - asked
        finally:
            host.kill()
            host.wait()
    text = out.read_text()
    assert "Welcome aboard" not in text, text
    # Nothing was heard: 8 s of audio went by. Hearing the end of its own
    # line, the host would have asked again (or gone on) as soon as it ended.
    assert waited > 6.0, text


def test_the_players_latency_is_the_one_the_card_gives_its_stream(pulse):
    """What the voice adds to its mute without calibration: the output
    latency of the very stream ``sounddevice.play`` opens."""
    import numpy as np
    import sounddevice as sd

    from voicehost.speech.voice import DevicePlayer

    player = DevicePlayer("pulse").check()
    assert isinstance(player.device, int)
    sd.play(np.zeros(1600, dtype=np.float32), 16000, device=player.device)
    got = sd.get_stream().latency
    sd.wait()
    assert got > 0 and player.latency == pytest.approx(got, abs=0.002)


def test_an_unknown_speaker_is_named_before_the_game_starts(pulse):
    from voicehost.errors import DeviceError
    from voicehost.hosts.announce import default_voice

    with pytest.raises(DeviceError, match="no output device named like \"hdmi 7\".*pulse"):
        default_voice(False, "hdmi 7")
