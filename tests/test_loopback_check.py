"""The live tests' check that the loopback sound card delivered the file whole (tests/loopback.py)."""

from pathlib import Path

import numpy as np

from loopback import loopback_faults
from voicehost.audio.sources import FileSource

WAV = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games" / "sailor_private.wav"
RATE = 16000


def _heard(played: np.ndarray, lead: float = 0.37, seed: int = 0) -> np.ndarray:
    """The file as a loopback delivers it: late by ``lead``, a little quieter, with hiss."""
    noise = np.random.default_rng(seed).normal(0, 0.002, len(played) + int(lead * RATE))
    heard = noise.astype(np.float32)
    heard[int(lead * RATE):] += 0.8 * played
    return heard


def test_a_whole_delivery_has_no_faults_even_when_the_host_stopped_early():
    played = FileSource(WAV).read()
    heard = _heard(played)
    assert loopback_faults(played, heard, RATE) == []
    assert loopback_faults(played, heard[: len(heard) - 3 * RATE], RATE) == []


def test_audio_lost_or_inserted_in_the_loopback_is_found():
    played = FileSource(WAV).read()
    heard = _heard(played)
    at = 8 * RATE
    underrun = np.concatenate([heard[:at], np.zeros(RATE // 5, np.float32), heard[at:]])
    faults = loopback_faults(played, underrun, RATE)
    assert faults and all("+200 ms off" in f for f in faults), faults
    dropped = np.concatenate([heard[:at], heard[at + RATE // 10:]])
    assert any("-100 ms off" in f for f in loopback_faults(played, dropped, RATE))
    # An overflow repaired with silence keeps the timing but loses what was said.
    silenced = heard.copy()
    voiced = [s for s in range(0, len(played) - RATE // 2, RATE // 2)
              if np.sqrt(np.mean(played[s:s + RATE // 2] ** 2)) >= 0.03]
    piece = voiced[len(voiced) // 2]
    silenced[piece + int(0.37 * RATE):piece + int(0.37 * RATE) + RATE // 2] = 0.0
    faults = loopback_faults(played, silenced, RATE)
    assert [f.split(" s ")[0] for f in faults] == [f"{piece / RATE:.1f}"], faults
    assert loopback_faults(played, np.zeros(len(heard), np.float32), RATE)


def test_a_game_is_played_again_only_when_the_loopback_lost_audio(tmp_path, capsys):
    import pytest
    import soundfile as sf

    from loopback import played_whole_or_again

    played = FileSource(WAV).read()
    whole = _heard(played)
    gapped = np.concatenate([whole[:8 * RATE], np.zeros(RATE // 5, np.float32), whole[8 * RATE:]])
    recordings = {"whole": whole, "gapped": gapped}
    for name, x in recordings.items():
        sf.write(tmp_path / f"{name}.wav", x, RATE, subtype="FLOAT")

    def check(result):
        assert result == "right", f"the host decided {result}"

    def player(runs):
        def play(attempt):
            result, heard = runs[attempt]
            return result, tmp_path / f"{heard}.wav"
        return play

    # Lost audio, then a right game: played again, and the loss is told.
    assert played_whole_or_again(player([("wrong", "gapped"), ("right", "whole")]),
                                 check, played) == "right"
    assert "+200 ms off" in capsys.readouterr().out
    # A wrong game on a whole delivery is the host's fault: never played again.
    with pytest.raises(AssertionError, match="the host decided wrong"):
        played_whole_or_again(player([("wrong", "whole"), ("right", "whole")]), check, played)
    # Lost audio both times: the test fails, saying so.
    with pytest.raises(AssertionError, match="lost audio both times"):
        played_whole_or_again(player([("wrong", "gapped"), ("wrong", "gapped")]), check, played)
