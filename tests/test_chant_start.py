"""The song's first bar is found however the recording or the stream begins.

The host counts the warm-up from the first bar it hears: a first bar lost
makes it refuse the first play as "still warming up" and the whole game
slips a bar. Two ways it was lost, both seen through the loopback sound card
(a null sink's monitor gives digital silence until playback starts, then
the recording from wherever the sound server's buffer cut in):

* a stream that opened on a fifth of a second of digital silence learnt the
  silence as the room, and missed "Tum"s of the first bar when the room's
  noise came in;
* two faint sounds before the song fitted its first syllables as a slow
  song; the tracker locked on them provisionally, dropped that lock, and
  then only looked at onsets still to come (the first three bars lost).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.analysis import analyze
from voicehost.audio.chant import SongStopped, WrongSong, track
from voicehost.audio.onsets import Onset
from voicehost.audio.sources import read_audio

from chant_onsets import sung

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
RATE = 16000


@pytest.fixture(scope="module")
def loss():
    return (read_audio(GAMES / "drakkar_loss.wav"),
            json.loads((GAMES / "drakkar_loss.truth.json").read_text()))


def test_faint_sounds_before_the_song_do_not_cost_its_first_bars():
    period = 60 / 130
    song = sung(1.5, period, 4)
    # Two faint sounds that, with "Drak" and "kar", look like a slow song
    # ("Tum, Drak-kar, Tum" at 76 beats a minute) until the real Tums come.
    strays = [Onset(0.147, 3.0, detected_t=0.185), Onset(0.957, 3.5, detected_t=0.975)]
    with_strays = track(strays + song, tums=3, follow=False, end_t=10.0)
    plain = track(song, tums=3, follow=False, end_t=10.0)
    assert [b.start for b in plain.bars][:1] == [1.5]
    assert [b.start for b in with_strays.bars] == [b.start for b in plain.bars]
    assert [b.last_tum for b in with_strays.bars] == [b.last_tum for b in plain.bars]


def test_talk_before_the_song_still_finds_it():
    """A few random syllables before the song never push its first bar later than the second."""
    period = 60 / 110
    song = sung(4.0, period, 4)
    rng = np.random.default_rng(7)
    for _ in range(40):
        times = np.sort(rng.uniform(0.0, 3.8, rng.integers(2, 7)))
        talk = [Onset(float(t), float(rng.uniform(2, 25)), detected_t=float(t) + 0.05)
                for t in times]
        tr = track(talk + song, tums=3, follow=False, end_t=14.0)
        starts = [round(b.start, 4) for b in tr.bars]
        assert starts and starts[0] <= 4.0 + 4 * period + 1e-6, (times, starts)


@pytest.mark.parametrize("cut", [0, 1067, 1164, 1358, 1940, 2037])
@pytest.mark.parametrize("lead", [0.0, 0.2])
def test_recording_cut_in_anywhere_keeps_its_first_bar(loss, cut, lead):
    """The loss game as a loopback hears it: ``lead`` s of digital silence, then
    the recording from ``cut`` samples in (the cuts where a bar was lost)."""
    x, truth = loss
    heard = np.concatenate([np.zeros(int(lead * RATE), np.float32), x[cut:]])
    shift = cut / RATE - lead
    bars = [b.start + shift for b in analyze(heard, tums=3).tracker.bars]
    want = [b["start"] for b in truth["bars"] if b["kind"] != "wrong"]
    assert len(bars) >= 3
    assert np.max(np.abs(np.array(bars[:3]) - want[:3])) < 0.03, (bars[:4], want[:4])


def test_the_rooms_faint_sounds_on_the_beat_do_not_keep_an_ended_song_going():
    """A song ends; the room's faint sounds (a fortieth of the song's strength)
    happen to fall near the beats for two seconds; then another song begins,
    slower. The first song stops where the table stopped, and the second is
    found bar for bar, not heard as a wrong song. (Through the loopback soak,
    such sounds made two phantom bars and a "wrong song", after which the
    tracker followed a reversed song for the rest of the half hour.)"""
    period = 0.6
    first = sung(0.6, period, 4, loud=4.0)  # a loud, clean song
    end = 0.6 + 16 * period
    faint = [Onset(end + k * period + d, 3.2, detected_t=end + k * period + d + 0.04)
             for k, d in ((1, 0.06), (2, -0.06), (3, -0.02))]
    second = sung(end + 6.0, 60 / 70, 3)
    tr = track(first + faint + second, tums=3, follow=True, end_t=end + 18.0)
    starts = [round(b.start, 3) for b in tr.bars]
    assert starts == [round(0.6 + 4 * k * period, 3) for k in range(4)] + \
        [round(end + 6.0 + 4 * k * 60 / 70, 3) for k in range(3)]
    assert not any(isinstance(e, WrongSong) for e in tr.events)
    stops = [e.t for e in tr.events if isinstance(e, SongStopped)]
    assert stops and abs(stops[0] - end) < period
