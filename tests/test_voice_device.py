"""The host's voice on a real sound card: what it plays on and how late that card says it plays.

The loopback's registration test (test_host_sailor_live.py) plays the voice
through a speaker 0.9 s late, calibrated; these check the pieces it rests on.
"""

from __future__ import annotations

import pytest


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


def test_a_line_is_heard_to_its_last_sound(pulse, tmp_path):
    """The voice plays a line without the third of a second of silence espeak-ng
    ends it with (the microphone is muted no longer than the line sounds). ALSA's
    pulse plugin drops what is still buffered when the stream stops: without the
    silence the player then adds, the last 10 ms of each line went unheard."""
    import subprocess
    import time

    import numpy as np
    import soundfile as sf
    from scipy.signal import correlate

    from voicehost.speech import voice

    heard = tmp_path / "heard.wav"
    for text in ("Red, who do you accuse?", "Kraken! Now Drakkar Tum Tum."):
        recorder = subprocess.Popen(["parec", "-d", pulse.source, "--rate=16000",
                                     "--channels=1", "--format=float32le", "--latency-msec=20",
                                     "--file-format=wav", str(heard)])
        try:
            time.sleep(0.8)
            played = []

            def play(samples, rate):
                played.append(samples)
                voice.DevicePlayer()(samples, rate)

            voice.Voice(play=play).say(text)
            time.sleep(1.0)
        finally:
            recorder.terminate()
            recorder.wait(10)
        got, _ = sf.read(heard, dtype="float32")
        (line,) = played
        loud = np.flatnonzero(np.abs(line) > np.abs(line).max() * 10 ** (-40 / 20))
        assert len(line) - loud[-1] < 0.05 * 16000  # the silence after the line is cut
        # Where the line's last 0.3 s lie in what was heard, and how much of its
        # last 20 ms of sound came through.
        tail = line[loud[-1] - 4800: loud[-1]]
        at = int(np.argmax(correlate(got, tail, mode="valid", method="fft")))
        last = slice(len(tail) - 320, len(tail))
        kept = np.sum(got[at: at + len(tail)][last] ** 2) / np.sum(tail[last] ** 2)
        assert 0.7 < kept < 1.4, (text, kept)
