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
