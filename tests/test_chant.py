"""The chant tracker on real fixture audio, through the same streaming pipeline as live."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.analysis import analyze
from voicehost.audio.chant import (
    PREDICTED_SHARE, BarStart, Beat, ChantTracker, LastTum, LastTumPredicted, SongStopped,
    TempoChanged, WrongSong, track,
)
from voicehost.audio.onsets import FAINT, SLAP, Onset, detect_onsets
from voicehost.audio.sources import read_audio

from chant_onsets import generator, heard_as_the_host, sung
from bench._metrics import f_measure, spoken_digits

CHANT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"


def truth(name: str) -> dict:
    return json.loads((CHANT / f"{name}.json").read_text())


def wav(name: str) -> Path:
    return CHANT / f"{name}.wav"


def events_of(result, kind):
    return [e for e in result.events if isinstance(e, kind)]


@pytest.fixture(scope="module")
def clean():
    return analyze(wav("g3_100bpm_3tums_clean"), tums=3, follow=False), truth("g3_100bpm_3tums_clean")


def _hidden_by_slap(t: dict, time: float) -> float | None:
    """A slap within 50 ms before a syllable hides it: the onset heard is the slap, and
    the tracker takes the beat halfway between it and the beat it predicted (here,
    in a steady clean chant, where the syllable truly is)."""
    for s in t["slaps"]:
        if 0 < time - s["t"] < 0.05:
            return (s["t"] + time) / 2
    return None


def test_bars_and_last_tums_of_a_clean_group_chant(clean):
    result, t = clean
    assert [b.tums for b in result.tracker.bars] == [b["tums"] for b in t["bars"]]
    for got, want in zip(result.tracker.bars, t["bars"]):
        ref = _hidden_by_slap(t, want["last_tum"]) or want["last_tum"]
        assert abs(got.last_tum - ref) <= 0.01
        assert abs(got.start - want["start"]) <= 0.01
    assert abs(result.tempo_bpm - t["bpm"]) < 2


def test_bar_start_and_beat_events(clean):
    result, t = clean
    starts = [e.t for e in events_of(result, BarStart)]
    assert len(starts) == len(t["bars"])
    for s, b in zip(starts, t["bars"]):
        assert abs(s - b["start"]) <= 0.01
    beats = events_of(result, Beat)
    want = [_hidden_by_slap(t, x) or x for b in t["bars"] for x in b["beats"]]
    assert len(beats) >= len(want)
    for x in want:
        assert min(abs(e.t - x) for e in beats) <= 0.01


def test_last_tum_is_predicted_before_it_is_heard(clean):
    result, t = clean
    order = result.events
    heard = events_of(result, LastTum)
    assert len(heard) == len(t["bars"])
    for lt in heard:
        pred = [e for e in order if isinstance(e, LastTumPredicted) and e.bar == lt.bar]
        assert pred, f"bar {lt.bar} had no prediction"
        assert order.index(pred[0]) < order.index(lt)
        assert abs(pred[0].t - lt.t) <= 0.04
        assert min(abs(lt.t - (_hidden_by_slap(t, b["last_tum"]) or b["last_tum"]))
                   for b in t["bars"]) <= 0.01


@pytest.mark.parametrize("name, tum", [("g3_100bpm_3tums_clean", 9.603),
                                       ("g5_120bpm_2tums_snr20", 4.6)])
def test_a_slap_that_hides_its_last_tum_is_not_the_last_tum(name, tum):
    """A card slapped 30 to 40 ms before the Tum hides the syllable (one onset,
    a slap). Taken as the Tum, the slap judged itself: 0 ms, whatever it was.
    The tracker puts that Tum halfway to the beat it predicted."""
    from voicehost.audio.judge import Heard, Judge

    result = analyze(wav(name), tums=truth(name)["bars"][0]["tums"], follow=False)
    slap = next(s["t"] for s in truth(name)["slaps"] if 0.02 < tum - s["t"] < 0.05)
    assert min(abs(o.t - slap) for o in result.onsets if o.kind == "slap") <= 0.005
    assert not any(abs(o.t - tum) < 0.02 for o in result.onsets)  # the Tum went unheard
    lt = min(result.last_tums, key=lambda x: abs(x - tum))
    assert abs(lt - tum) < 0.7 * (tum - slap)  # nearer the Tum than the slap
    verdict = Judge("hard").judge(slap + 0.2, Heard(result.last_tums, slaps=result.slaps))
    assert verdict.timed_by == "slap" and verdict.verdict == "on_beat"
    assert -(tum - slap) * 1000 <= verdict.offset_ms <= -10


def test_song_that_changes_is_followed_offline():
    name = "g4_105bpm_change_3_2_1_snr20"
    result = analyze(wav(name), tums=3, follow=True)
    want = truth(name)["bars"]
    assert [b.tums for b in result.tracker.bars] == [b["tums"] for b in want]
    errs = [abs(g.last_tum - w["last_tum"]) for g, w in zip(result.tracker.bars, want)]
    assert np.median(errs) <= 0.01


@pytest.mark.parametrize("name", ["g3_100bpm_3tums_clean", "g4_70bpm_3tums_snr30",
                                  "g3_80bpm_3tums_snr5"])
def test_a_longer_song_whose_bar_splits_in_whole_is_followed_offline(name):
    """Told "Drakkar Tum" while the table sings three Tums, every "Drak-kar"
    falls where a one-Tum bar begins, so no wrong "Drak-kar" ever says so:
    the bars were split in two to the end. The "Drak-kar"s' spacing says it."""
    result = analyze(wav(name), tums=1, follow=True)
    want = truth(name)["bars"]
    assert [b.tums for b in result.tracker.bars] == [b["tums"] for b in want] == [3] * len(want)
    errs = [abs(g.last_tum - w["last_tum"]) for g, w in zip(result.tracker.bars, want)]
    assert max(errs) <= 0.04, errs
    assert [(e.expected_tums, e.heard_tums) for e in events_of(result, WrongSong)] == [(1, 3)]
    # The host, which follows only what the game tells it, still hears one Tum a bar.
    told = analyze(wav(name), tums=1, follow=False)
    assert {b.tums for b in told.tracker.bars} == {1}


def test_wrong_song_is_reported_live():
    name = "g4_105bpm_change_3_2_1_snr20"
    result = analyze(wav(name), tums=3, follow=False)
    wrong = {(e.expected_tums, e.heard_tums) for e in events_of(result, WrongSong)}
    assert (3, 2) in wrong and (3, 1) in wrong


def test_table_singing_fewer_tums_than_the_ship_allows():
    name = "g5_75bpm_wrong_2tums_snr15"
    told_three = analyze(wav(name), tums=3, follow=False)
    wrong = events_of(told_three, WrongSong)
    assert wrong and all(e.expected_tums == 3 and e.heard_tums == 2 for e in wrong)
    told_two = analyze(wav(name), tums=2, follow=False)
    assert events_of(told_two, WrongSong) == []


def test_host_telling_the_new_song_avoids_wrong_song():
    """The host calls set_song after each play; the tracker then expects the new bar."""
    name = "g4_105bpm_change_3_2_1_snr20"
    t = truth(name)
    onsets = detect_onsets(read_audio(wav(name)))
    songs = {b_i: b["tums"] for b_i, b in enumerate(t["bars"])}
    tr = ChantTracker(tums=3)
    events = []
    for o in sorted(onsets, key=lambda o: o.detected_t):
        for e in tr.process([o], o.detected_t):
            events.append(e)
            if isinstance(e, LastTum):
                # The play on this last Tum: the game's next song is the next bar's.
                nxt = min(t["bars"], key=lambda b: abs(b["last_tum"] - e.t))
                i = t["bars"].index(nxt) + 1
                if i in songs:
                    tr.set_song(songs[i])
    events += tr.finish(t["duration"])
    assert not [e for e in events if isinstance(e, WrongSong)]
    assert [b.tums for b in tr.bars] == [b["tums"] for b in t["bars"]]


def test_reversed_song_play_falls_on_drak():
    name = "g3_110bpm_reversed_snr15"
    result = analyze(wav(name), tums=3, reversed=True, follow=False)
    bars = result.tracker.bars
    want = truth(name)["bars"]
    assert len(bars) >= len(want) - 1
    assert all(b.reversed and b.tums == 3 for b in bars)
    draks = [s["t"] for s in truth(name)["syllables"] if s["text"] == "Drak"]
    for b in bars:
        assert min(abs(b.last_tum - d) for d in draks) <= 0.03
    assert events_of(result, WrongSong) == []


def test_whirlpool_island_reverses_the_song_mid_recording():
    """Tracker logic on the fixture's exact onsets (its babble defeats the detector, see report)."""
    t = truth("g3_95bpm_whirlpool_snr20")
    onsets = [Onset(o["t"], 1.0, o["kind"], o["t"] + 0.03) for o in t["onsets"]]
    tr = track(onsets, tums=3, reversed=False, follow=True, end_t=t["duration"])
    assert [(b.tums, b.reversed) for b in tr.bars] == [(b["tums"], b["reversed"]) for b in t["bars"]]
    live = track(onsets, tums=3, reversed=False, follow=False, end_t=t["duration"])
    assert any(isinstance(e, WrongSong) for e in live.events)


def test_song_stopped_and_restarted():
    name = "g3_120bpm_stop_snr20"
    t = truth(name)
    result = analyze(wav(name), tums=3, follow=False)
    stops = events_of(result, SongStopped)
    stop_truth = t["stops"][0]
    period = 60.0 / t["bpm"]
    first = [s for s in stops if s.t < t["bars"][-1]["start"]]
    assert first, "no SongStopped when the table stopped"
    assert abs(first[0].t - stop_truth) <= period
    # Found only once the table had been silent for more than a beat.
    detected_at = [e for e in result.events if isinstance(e, SongStopped)][0]
    assert detected_at.t >= t["bars"][1]["last_tum"]
    after = [b for b in result.tracker.bars if b.start > stop_truth]
    assert len(after) >= 1, "the tracker did not lock again after the restart"


def test_tempo_drift_is_reported():
    name = "g3_100bpm_drift_snr15"
    result = analyze(wav(name), tums=3, follow=False)
    changes = events_of(result, TempoChanged)
    assert changes and changes[0].new_bpm > changes[0].old_bpm * 1.08
    assert [b.tums for b in result.tracker.bars] == [3] * len(truth(name)["bars"])


def test_one_tum_song():
    name = "g3_90bpm_1tum_snr10"
    result = analyze(wav(name), tums=1, follow=False)
    want = truth(name)["bars"]
    assert [b.tums for b in result.tracker.bars] == [1] * len(want)
    errs = [min(abs(b.last_tum - w["last_tum"]) for b in result.tracker.bars) for w in want]
    assert np.median(errs) <= 0.04


def test_set_song_checks_its_input():
    tr = ChantTracker()
    with pytest.raises(ValueError):
        tr.set_song(0)
    with pytest.raises(ValueError):
        ChantTracker(tums=4)


def test_no_song_in_silence_or_noise():
    rng = np.random.default_rng(3)
    x = (0.02 * rng.standard_normal(16000 * 5)).astype(np.float32)
    result = analyze(x, tums=3)
    assert result.tracker.bars == []
    assert events_of(result, LastTum) == []


REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


def test_people_talking_is_not_a_song():
    """Real recorded speech (spoken digits, one after another) never locks as a chant."""
    files = sorted((REAL / "fsdd").glob("*.wav"))
    assert len(files) >= 60, f"the real recordings are missing: {REAL}"
    rng = np.random.default_rng(0)
    for _ in range(3):
        parts = []
        for i in rng.choice(len(files), 60, replace=False):
            parts.append(read_audio(files[i]))
            parts.append(np.zeros(int(rng.uniform(0.0, 0.25) * 16000), dtype=np.float32))
        result = analyze(np.concatenate(parts), tums=3)
        assert len(result.onsets) > 50  # plenty of syllables were heard ...
        assert result.tracker.bars == []  # ... but no song
        assert not any(isinstance(e, (BarStart, LastTum, WrongSong, SongStopped))
                       for e in result.events)


@pytest.mark.parametrize("tums", [1, 3])
def test_words_whose_pace_wanders_are_not_a_song(tums):
    """Real spoken digits one after another with pauses up to 0.22 s: their pace wandered
    from 109 to 140 "BPM" in the first bars, the phase-locked loop followed it word
    by word, and six bars of a one-Tum song (three of three Tums) were confirmed. A
    table keeps its tempo from the first bar: a lock whose tempo moved more than 8 %
    before it was confirmed is dropped."""
    result = analyze(spoken_digits(109), tums=tums)
    assert len(result.onsets) > 40  # fifty digits: a syllable heard for most
    assert result.tracker.bars == [] and events_of(result, LastTum) == []


@pytest.mark.parametrize("seed", [107, 108, 110])
def test_words_with_a_syllable_on_every_half_beat_are_not_a_song(seed):
    """Real spoken digits one after another, as the host hears them (told one Tum):
    a grid they seemed to keep had a syllable on nearly every half beat, so two
    "Drak-kar"s came in a row again and again, and three to nine bars were confirmed
    (the host would have said "the song stopped" when the talk did). No song has two
    in a row: before a lock is confirmed, such a pair is a stray onset."""
    result = analyze(spoken_digits(seed), tums=1, follow=False)
    assert len(result.onsets) > 40  # fifty digits: a syllable heard for most
    assert result.tracker.bars == []
    assert not any(isinstance(e, (LastTum, SongStopped)) for e in result.events)


def test_a_syllable_with_a_click_right_after_it_does_not_take_the_last_tum():
    """A card slapped 80 ms before the last Tum in chatter (real voices seed 1, chant 5):
    the detector heard its rise as a syllable, stamped 28 ms early on the chatter
    before it, then the slap's click inside it. Loud as a card, 90 ms before the
    beat predicted, it took the last Tum from the Tum sung 10 ms after it: 108 ms
    early, and every play near it judged late. Such a syllable weighs as a slap."""
    period = 0.83
    onsets = sung(1.0, period, 4, tums=3)
    tum = onsets[5 * 2 + 4]  # bar 2's last Tum
    slap_rise = Onset(tum.t - 0.09, 2.0 * tum.strength, detected_t=tum.t - 0.03)
    click = Onset(tum.t - 0.063, 2.0 * tum.strength, SLAP, detected_t=tum.t + 0.01, inside=True)
    sung_tum = replace(tum, t=tum.t + 0.01, detected_t=tum.t + 0.06)
    onsets = sorted([o for o in onsets if o is not tum] + [slap_rise, click, sung_tum],
                    key=lambda o: o.t)
    last = [e.t for e in track(onsets, tums=3, follow=False).events if isinstance(e, LastTum)]
    assert len(last) == 4
    assert abs(last[2] - sung_tum.t) < 0.005


@pytest.mark.parametrize("voice_at, click_at, sung_at, heard_at", [
    (-0.11, -0.05, 0.005, 0.005),  # chatter, then the card's click: the Tum sung after takes the beat
    (-0.11, -0.05, None, -0.025),  # ... no Tum heard after the card: halfway to the beat predicted
    (0.0, 0.05, None, 0.0),        # a Tum on the beat, a card slapped 50 ms after it: the Tum
    (-0.03, 0.0, None, -0.0225),   # a Tum a little early, the card on the beat: the Tum
])
def test_a_slap_inside_chatter_before_the_beat_takes_it(voice_at, click_at, sung_at, heard_at):
    """In chatter the detector decides a card slapped near the last Tum on the slap's
    rise and stamps that "syllable" back on the chatter before it, then hears the
    card's click inside it (held-out seeds 1 to 8 in babble: such last Tums were
    located 53 to 142 ms early, and every play near them judged late). A slap inside
    a syllable that began 40 ms or more before the beat predicted, and 20 ms nearer
    to it, takes the beat as a slap does. A syllable that keeps the beat is reported
    a quarter of the way to the beat predicted (``PREDICTED_SHARE``)."""
    period = 0.83
    onsets = sung(1.0, period, 4, tums=3)
    tum = onsets[5 * 2 + 4]  # bar 2's last Tum, on the beat predicted
    rise = Onset(tum.t + voice_at, 2.0 * tum.strength, detected_t=tum.t + 0.06)
    click = Onset(tum.t + click_at, 2.0 * tum.strength, SLAP, detected_t=tum.t + 0.08,
                  inside=True)
    heard = [rise, click]
    if sung_at is not None:
        heard.append(replace(tum, t=tum.t + sung_at, detected_t=tum.t + 0.1))
    onsets = sorted([o for o in onsets if o is not tum] + heard, key=lambda o: o.t)
    last = [e.t for e in track(onsets, tums=3, follow=False).events if isinstance(e, LastTum)]
    assert len(last) == 4
    assert abs(last[2] - (tum.t + heard_at)) < 0.005, last[2] - tum.t


def test_a_last_tum_far_louder_than_the_table_is_struck():
    """A card slapped with the Tum is one onset with it, far louder than the beats:
    the last Tum says so, for the judge (a card heard, though not apart)."""
    onsets = sung(1.0, 0.6, 4, tums=2)
    tum = onsets[4 * 2 + 3]  # bar 2's last Tum
    loud = replace(tum, strength=1.6 * tum.strength)
    onsets = [loud if o is tum else o for o in onsets]
    last = [e for e in track(onsets, tums=2, follow=False).events if isinstance(e, LastTum)]
    assert len(last) == 4
    assert [e.struck for e in last] == [False, False, True, False]


def test_a_last_tum_that_clicks_sharper_than_the_tables_tums_is_struck():
    """A card is a click, a sung "T" a breath: a last Tum 5 dB sharper than the Tums
    before it holds a card, however loud; one as sharp as they are holds none,
    even 1.6 times as loud. Compared with Tums alone: here the "Drak"s click
    sharper than the Tum with the card."""
    clicks = {0: -10.0, 1: -22.0}  # by beat: "Drak", Tum
    onsets = []
    for o in sung(1.0, 0.6, 6, tums=1):
        beat = round((o.t - 1.0) / 0.6, 3)
        onsets.append(replace(o, click=clicks.get(int(beat) % 2, -30.0) if beat == int(beat)
                              else -30.0))
    tums = [o for o in onsets if o.click == -22.0]
    sharp, loud = tums[3], tums[4]
    onsets = [replace(o, click=-17.0) if o is sharp
              else replace(o, strength=1.6 * o.strength) if o is loud else o for o in onsets]
    last = [e for e in track(onsets, tums=1, follow=False).events if isinstance(e, LastTum)]
    assert [round(e.t, 3) for e in last] == [round(o.t, 3) for o in tums[1:]]  # locked in bar 2
    assert [e.struck for e in last] == [False, False, True, False, False]


@pytest.mark.parametrize("seed, k, bar", [(8, 5, 1), (7, 2, 4)])
def test_a_card_slapped_in_chatter_times_its_last_tum(seed, k, bar):
    """Held-out chants in babble (20 and 15 dB), a card slapped on the last Tum: that
    Tum was located 142 and 105 ms early, on the chatter the detector stamped the
    slap's rise back to. It is the slap's, or the Tum sung after it, now."""
    spec = generator().held_out_specs(seed)[k]
    assert spec.noise == "babble"
    result, t = as_the_host_hears(spec)
    truth = t["bars"][bar]["last_tum"]
    assert any(abs(s["t"] - truth) < 0.1 for s in t["slaps"])
    located = [e.t for e in events_of(result, LastTum)]
    assert min(abs(x - truth) for x in located) < 0.03, [round(x - truth, 3) for x in located]


def _last_tum_errors(result, true_last_tums) -> list[float]:
    """Each true last Tum's nearest located one, less it (s)."""
    located = [e.t for e in events_of(result, LastTum)]
    return [min(located, key=lambda x: abs(x - t)) - t for t in true_last_tums]


@pytest.mark.parametrize("specs, seed, k, bars, within_ms", [
    ("held_out_specs", 2, 1, [1, 2], 30),  # were 46 and 37 ms early
    ("real_voice_specs", 4, 6, [0, 4], 10),  # were 33 and 12 ms early
])
def test_a_tum_in_chatter_is_stamped_where_it_is_sung_not_on_the_chatter_before(
        specs, seed, k, bars, within_ms):
    """Chants in babble at 10 and 15 dB (synthetic voices, held-out seed 2 chant 1;
    real voices, seed 4 chant 6): the detector walked back from a Tum's rise over
    the chatter before it, its flux above the noise there too, and the last Tum was
    located that much early. Where the room chatters, it walks back now only over
    frames whose rise comes near the chant's level."""
    spec = getattr(generator(), specs)(seed)[k]
    assert spec.noise == "babble"
    result, t = as_the_host_hears(spec)
    errors = _last_tum_errors(result, [t["bars"][b]["last_tum"] for b in bars])
    assert all(abs(e) < within_ms / 1000 for e in errors), [round(e * 1000) for e in errors]


def test_a_syllable_heard_off_its_beat_is_reported_a_quarter_of_the_way_to_the_beat_predicted():
    """The stamp and the prediction are each off on their own (a "T" under hiss is
    stamped on its vowel; the prediction carries the table's unevenness): a last Tum
    heard 40 ms after a steady table's beat is reported 30 ms after it, and so is
    its beat. The tracker's own windows keep the syllable heard: the next beats are
    predicted as before."""
    period = 0.6
    onsets = sung(1.0, period, 6, tums=2)
    late = 3 * 3 + 2  # bar 3's last Tum
    on_grid = track(onsets, tums=2, follow=False)
    onsets[late] = replace(onsets[late], t=onsets[late].t + 0.04,
                           detected_t=onsets[late].detected_t + 0.04)
    tr = track(onsets, tums=2, follow=False)
    (tum,) = [e for e in tr.events if isinstance(e, LastTum) and abs(e.t - onsets[late].t) < 0.1]
    assert tum.predicted_t == pytest.approx(onsets[late].t - 0.04, abs=1e-4)
    assert PREDICTED_SHARE == 0.25
    assert tum.t == pytest.approx(tum.predicted_t + 0.03, abs=1e-4)
    assert any(isinstance(e, Beat) and e.t == tum.t for e in tr.events)
    assert [b.tums for b in tr.bars] == [b.tums for b in on_grid.bars] == [2] * 6
    assert [b.start for b in tr.bars] == pytest.approx([b.start for b in on_grid.bars], abs=0.01)


def test_last_tums_heard_late_in_noise_lie_within_30_ms():
    """A committed chant in pink noise 10 dB under the singing: its "T"s are under the
    noise and four last Tums were stamped 20 to 34 ms late on their vowels; a quarter
    of the way to the beat predicted, all lie within 26 ms."""
    truth = json.loads((CHANT / "g3_90bpm_1tum_snr10.json").read_text())
    assert (truth["noise"], truth["snr_db"]) == ("pink", 10)
    result = analyze(read_audio(CHANT / "g3_90bpm_1tum_snr10.wav"), tums=1, follow=False)
    errors = _last_tum_errors(result, [b["last_tum"] for b in truth["bars"][1:]])
    assert len(errors) == 5 and all(0 < e < 0.03 for e in errors), [round(e * 1000) for e in errors]


def test_a_tum_in_chatter_of_the_committed_fixtures_is_stamped_on_the_tum():
    """A committed chant in babble at 20 dB: its second last Tum was located 26 ms
    early, on the chatter before it."""
    truth = json.loads((CHANT / "g5_120bpm_2tums_snr20.json").read_text())
    assert truth["noise"] == "babble"
    result = analyze(read_audio(CHANT / "g5_120bpm_2tums_snr20.wav"), tums=2, follow=False)
    errors = _last_tum_errors(result, [b["last_tum"] for b in truth["bars"][1:]])
    # The fourth is heard 13 ms early where the beat predicted lies 42 ms early
    # (chatter moved the tempo): reported a quarter of the way to it, 20 ms early.
    assert abs(errors[0]) < 0.01 and all(abs(e) < 0.025 for e in errors), \
        [round(e * 1000) for e in errors]


def _beats_moved(shifts: dict[int, float], stray_at: float | None, period: float = 0.56,
                 bars: int = 8) -> list[Onset]:
    """A one-Tum song from 1.0 s, beat k moved by ``shifts[k]`` of a period (a "Drak"
    with its "kar"), and a stray onset ``stray_at`` beats in."""
    out, k = [], -1
    for i, o in enumerate(sung(1.0, period, bars, tums=1)):
        k += i % 3 != 1  # the "kar" moves with its "Drak"
        d = shifts.get(k, 0.0) * period
        out.append(replace(o, t=o.t + d, detected_t=o.detected_t + d))
    if stray_at is not None:
        t = 1.0 + stray_at * period
        out.append(Onset(t, 15.0, detected_t=t + 0.06))
    return sorted(out, key=lambda o: o.t)


def _bars_out_by(onsets: list[Onset], until: float) -> int:
    """Bars the live tracker has announced by the clock's ``until``."""
    tr = ChantTracker(1, follow=False)
    events = [e for o in onsets if o.detected_t <= until for e in tr.process([o], o.detected_t)]
    events += tr.process([], until)
    return sum(isinstance(e, BarStart) for e in events)


def test_a_lock_with_a_stray_onset_waits_until_its_beats_keep_a_steady_tempo():
    """Real spoken digits, seed 110: a one-Tum grid laid on them had a stray syllable
    and a beat 61 ms off a steady tempo (0.11 of a beat), and three bars were confirmed
    on four beats in time. A table keeps one tempo; words said one after another scatter
    about it. A lock with a stray onset is confirmed only once its beats lie near a
    steady tempo; a song that keeps time loses nothing by it."""
    scattered = {1: -0.05, 3: 0.1, 5: -0.08}
    by = 1.0 + 7 * 0.56  # seven beats in: the bars sung so far are out ...
    assert _bars_out_by(_beats_moved({}, 3.3), by) == 4  # ... steady, one stray
    assert _bars_out_by(_beats_moved(scattered, None), by) == 4  # ... scattered, no stray
    assert _bars_out_by(_beats_moved(scattered, 3.3), by) == 0  # both: not yet ...
    assert _bars_out_by(_beats_moved(scattered, 3.3), by + 0.56) == 4  # ... a beat later
    tr = track(_beats_moved(scattered, 3.3), tums=1, follow=False)
    assert len(tr.bars) == len(track(_beats_moved({}, None), tums=1, follow=False).bars) == 8


def test_chatter_on_a_half_beat_does_not_hide_the_bar_the_lock_heard():
    """Real voices in babble (seed 4, chant 6): chatter on the half beat after a Tum
    made a "Drak-kar" where the song has none, right after the one sung a bar after
    the lock, and the lock was dropped with its first bar. The lock's "Drak-kar" and
    one whole bars after it are a bar seen, whatever came since."""
    period, bar = 0.6, 3 * 0.6
    extra = [1.0 + b * bar + 1.5 * period for b in (1, 2)]  # after bars 2 and 3's first Tum
    extra.append(1.0 + 2 * bar + 2.25 * period)  # and a stray between beats
    onsets = sorted(sung(1.0, period, 6, tums=2) + [Onset(t, 15.0, detected_t=t + 0.06)
                                                    for t in extra], key=lambda o: o.t)
    tr = track(onsets, tums=2, follow=False)
    assert [round(b.start, 2) for b in tr.bars] == [1.0, 2.8, 4.6, 6.4, 8.2, 10.0]


@pytest.mark.parametrize("seed, tums", [(700, 1), (710, 2), (710, 3)])
def test_words_that_leave_beats_unheard_are_not_a_song(seed, tums):
    """Real spoken digits, sequences the talk rules were not measured on: a grid laid on
    them had a stray syllable and a beat with nothing on it before it was confirmed,
    and two to seven bars were followed. A chant keeps time with every beat sung:
    before a lock is confirmed, a beat unheard counts as a stray onset does."""
    result = analyze(spoken_digits(seed), tums=tums, follow=False)
    assert len(result.onsets) > 40  # a syllable every 0.4 s or so
    assert result.tracker.bars == []
    assert not any(isinstance(e, (LastTum, SongStopped)) for e in result.events)


@pytest.mark.parametrize("kar_at, where, strength, then, wrong", [
    (0.48, 0.70, 12.0, 3, False),  # chatter late in the half-beat window: no "kar" sings there
    (0.48, 0.50, 5.5, 3, False),   # a faint sound on the half beat: under half the table's "kar"s
    (0.48, 0.50, 11.0, 3, False),  # a "kar" there once, and the table sings on: no new song
    (0.48, 0.50, 11.0, 1, True),   # a "kar" there, and the table goes on with one Tum
    (0.68, 0.68, 11.0, 1, True),   # a table that swings its "kar"s late, singing another song
    (0.68, 0.45, 12.0, 3, False),  # ... and chatter early in its half-beat window
])
def test_chatter_on_a_half_beat_is_no_wrong_song(kar_at, where, strength, then, wrong):
    """A syllable of chatter on some half beat made the host announce a wrong song
    (7 of 18 babble chants rendered by ``bench onsets --held-out``) and look for
    the last Tum in the wrong place. A "kar" sung there says the song changed
    once the table sings that song again; one alone, however plain, is held as a
    suspect (in an echoing room one lost the bars for the rest of the song)."""
    period = 0.6
    onsets = sung(1.0, period, 6, kar_at=kar_at)
    tum = onsets[5 * 3 + 3].t  # bar 3's second Tum: a "kar" there says one Tum was sung
    if then != 3:  # from that Tum on, "Drak-kar" and ``then`` Tums (its first "kar" is added below)
        song = sung(tum, period, 4, tums=then, kar_at=kar_at)
        onsets = [o for o in onsets if o.t < tum] + song[:1] + song[2:]
    onsets.append(Onset(tum + where * period, strength, detected_t=tum + where * period + 0.06))
    onsets.sort(key=lambda o: o.t)
    tracker = track(onsets, tums=3, follow=False, end_t=20.0)
    assert any(isinstance(e, WrongSong) for e in tracker.events) is wrong
    if not wrong:
        assert len(tracker.bars) == 6 and all(b.tums == 3 for b in tracker.bars)
    else:
        heard = [e.heard_tums for e in tracker.events if isinstance(e, WrongSong)]
        assert heard[0] == then


def test_a_kar_of_chatter_does_not_move_the_bars_for_good():
    """Real voices in an echoing room with babble (real_voice_specs seed 1, chant 6, RT60
    0.5 s): a syllable of chatter on a half beat moved every bar after it, and the
    table's own "kar"s, lost under the echo, never moved them back (1 of 5 last Tums
    found, 4 misplaced and a wrong song announced)."""
    gen = generator()
    spec = replace(gen.real_voice_specs(1)[6], rt60=0.5, drr_db=0.0)
    result, t = as_the_host_hears(spec)
    assert events_of(result, WrongSong) == []
    located = [e.t for e in events_of(result, LastTum)]
    assert sum(any(abs(x - b["last_tum"]) < 0.05 for x in located) for b in t["bars"]) >= 4
    assert all(any(abs(x - b["last_tum"]) < 0.15 for b in t["bars"]) for x in located)


def test_chatter_in_a_noisy_room_is_no_wrong_song():
    """A chant in babble at 20 dB (held-out seed 1, chant 5): four wrong songs before."""
    gen = generator()
    spec = gen.held_out_specs(1)[5]
    assert spec.noise == "babble" and spec.snr_db == 20
    audio, t = gen.render(spec)
    result = analyze(audio, tums=t["expected_tums"])
    assert events_of(result, WrongSong) == []
    located = [e.t for e in events_of(result, LastTum)]
    assert sum(any(abs(x - b["last_tum"]) < 0.05 for x in located) for b in t["bars"]) >= 3


@pytest.mark.parametrize("k", [0, 1])
def test_a_chant_in_real_voices(k):
    """Real people's words on the beat (real_voice_specs, seed 1: clean, pink noise
    at 20 dB): espeak-ng is one synthesiser, and the tracker must hear real voices too."""
    gen = generator()
    spec = gen.real_voice_specs(1)[k]
    audio, t = gen.render(spec)
    result = analyze(audio, tums=t["expected_tums"])
    assert events_of(result, WrongSong) == []
    located = [e.t for e in events_of(result, LastTum)]
    errors = [min(abs(x - b["last_tum"]) for x in located) for b in t["bars"] if located]
    # The first bar is the warm-up the lock is made in; every one after it is found.
    assert len(errors) == 5 and all(e < 0.04 for e in errors[1:]), errors
    # The detector's onsets, stamped where real voices begin.
    F, _, _ = f_measure(np.array([o["t"] for o in t["onsets"]]),
                        np.array([o.t for o in result.onsets]))
    assert F >= 0.85


def assert_last_tums_on(tr, truth: list[float], at_least: int) -> None:
    """At least ``at_least`` last Tums were heard, each within 20 ms of a true one."""
    lts = [e.t for e in tr.events if isinstance(e, LastTum)]
    assert len(lts) >= at_least and all(any(abs(x - y) < 0.02 for y in truth) for x in lts), lts


def as_the_host_hears(spec):
    """Render ``spec`` and analyse it as the live host does: told each song by the game, not following it."""
    audio, t = generator().render(spec)
    return heard_as_the_host(audio, t), t


def _bars_found(result, truth) -> tuple[int, int]:
    """True last Tums located (within 150 ms, as the benchmark counts), and last Tums far from any."""
    located = [e.t for e in events_of(result, LastTum)]
    found = sum(any(abs(x - b["last_tum"]) < 0.15 for x in located) for b in truth["bars"])
    wrong = sum(all(abs(x - b["last_tum"]) >= 0.15 for b in truth["bars"]) for x in located)
    return found, wrong


@pytest.mark.parametrize("seed, k, found_at_least", [(1, 0, 4), (2, 4, 4)])
def test_a_first_tum_lost_under_the_kar_does_not_keep_the_song_unheard(seed, k, found_at_least):
    """Held-out chants in chatter, sung in a living room (RT60 0.5 s): the Tum right
    after the "kar" was lost under its tail bar after bar, and a lock waited for three
    beats in a row: none of 5 last Tums in either. "Drak-kar", a beat unheard and two
    beats lock now, the unheard beat counted out of place until the lock is confirmed."""
    gen = generator()
    spec = replace(gen.held_out_specs(seed)[k], rt60=0.5, drr_db=0.0)
    assert spec.noise == "babble"
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= found_at_least and wrong == 0


@pytest.mark.parametrize("seed, k", [(2, 9), (2, 10)])
def test_a_room_that_swallows_the_kars_still_has_bars(seed, k):
    """Held-out chants sung in a living room (RT60 0.5 s) with pink noise: the "kar"
    rises over the echo of its "Drak" and is rarely an onset (1 of 5 here), so the
    host never locked (0 of 5 last Tums). Its faint rise stands out of the half
    beats where nothing is sung, and now tells where the bars begin."""
    gen = generator()
    spec = replace(gen.held_out_specs(seed)[k], rt60=0.5, drr_db=0.0)
    result, t = as_the_host_hears(spec)
    assert not any(o.kind == FAINT for o in result.onsets)  # faint rises are the tracker's only
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0


def test_faint_kars_lock_only_where_they_stand_out():
    """A chant whose every "kar" is only a faint rise locks once eight onsets passed
    with none (a room swallowing them), and finds every bar after; with chatter as
    faint on the other half beats, a faint rise says nothing and nothing locks."""
    period = 0.6
    plain = sung(1.0, period, 6)
    faint = [Onset(o.t, 3.0, FAINT, o.detected_t) if (k % 5) == 1 else o
             for k, o in enumerate(plain)]
    tr = track(faint, tums=3, follow=False, end_t=20.0)
    assert_last_tums_on(tr, [plain[5 * b + 4].t for b in range(6)], at_least=4)
    chatter = [Onset(o.t + 0.5 * period, 3.0, FAINT, o.detected_t + 0.5 * period)
               for k, o in enumerate(plain) if (k % 5) in (2, 3)]
    tr = track(sorted(faint + chatter, key=lambda o: o.t), tums=3, follow=False, end_t=20.0)
    assert tr.bars == [] and not any(isinstance(e, LastTum) for e in tr.events)


def test_a_kar_after_a_late_drak_is_still_its_half_beat():
    """A "Drak" stamped 30 ms late (its consonant lost under chatter) put its own
    "kar" before the half-beat window opened, counted from it. That "kar" was a
    stray onset, and with one stray sound more (chatter after a "Drak") the lock
    was never confirmed: no bar at all (held-out seed 1, babble at 20 dB, 149 BPM).
    The beat the tracker predicted is the second reference for the half beat."""
    period = 0.41
    onsets = sung(1.0, period, 5, tums=1)
    drak, kar = 6, 7  # bar 3's "Drak" and "kar", after the lock (bars 0 to 1)
    assert onsets[kar].t - onsets[drak].t == pytest.approx(0.47 * period)
    onsets[drak] = replace(onsets[drak], t=onsets[drak].t + 0.03)
    onsets[kar] = replace(onsets[kar], t=onsets[kar].t - 0.01)
    assert onsets[kar].t - onsets[drak].t < 0.4 * period  # outside the window counted from it
    stray = Onset(onsets[4].t + 0.085, 14.0, detected_t=onsets[4].t + 0.15)  # after bar 2's "Drak"
    tr = track(sorted(onsets + [stray], key=lambda o: o.t), tums=1, follow=False, end_t=6.0)
    # Every bar from the first: the lock on bars 0 to 1 stands (dropped, it
    # came back a bar later, and a five-bar chant had none left to confirm it).
    # Each bar begins on its "Drak" heard and ends on its Tum heard, each reported a
    # quarter of the way to the beat predicted (the late "Drak" 22.5 ms late; the
    # prediction then lags by a few ms).
    assert [b.start for b in tr.bars] == pytest.approx([onsets[3 * b].t for b in range(5)], abs=0.008)
    assert [b.last_tum for b in tr.bars] == pytest.approx([onsets[3 * b + 2].t for b in range(5)],
                                                          abs=0.008)


def test_a_fast_chant_in_chatter_is_followed_from_its_second_bar():
    """That chant (held-out seed 1, chant 4: three singers at 149 BPM, one Tum, babble
    at 20 dB): the lock on its second and third bars was dropped for its two stray
    onsets, and no bar of the five was located. Now four bars are followed from
    the second; two last Tums are heard (one is lost under chatter, the first bar's
    came before the lock)."""
    gen = generator()
    spec = gen.held_out_specs(1)[4]
    assert spec.noise == "babble" and spec.snr_db == 20 and spec.bpm == 149
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 2 and wrong == 0
    starts = [b.start for b in result.tracker.bars]
    assert sum(any(abs(s - b["start"]) < 0.05 for s in starts) for b in t["bars"]) >= 4


@pytest.mark.parametrize("bpm", [70, 100, 140])
@pytest.mark.parametrize("tums", [1, 2, 3])
def test_a_chant_whose_kars_are_lost_after_the_lock_is_followed(bpm, tums):
    """Only the first bar's "kar" heard (chatter buries the others): the lock kept
    time for bars and was never confirmed, no last Tum at all. Eight beats in time
    now confirm it, and every bar from the lock on is followed."""
    period = 60 / bpm
    per = tums + 2  # onsets in a bar
    onsets = sung(1.0, period, 8, tums=tums)
    heard = [o for i, o in enumerate(onsets) if not (i % per == 1 and i >= per)]
    tr = track(heard, tums=tums, follow=False, end_t=40.0)
    assert_last_tums_on(tr, [onsets[per * b + per - 1].t for b in range(8)], at_least=7)
    assert not any(isinstance(e, WrongSong) for e in tr.events)


def test_a_chant_in_loud_chatter_is_followed_without_its_kars():
    """Held-out seed 4, chant 0 (five singers at 128 BPM, three Tums, babble at 10 dB):
    after the lock its "kar"s rose no higher than the chatter on the other half
    beats, and no last Tum was located although eleven beats kept time. Now three
    are, none misplaced."""
    gen = generator()
    spec = gen.held_out_specs(4)[0]
    assert spec.noise == "babble" and spec.snr_db == 10 and spec.bpm == 128
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0


def test_a_song_that_stops_a_beat_short_of_confirmation_is_kept():
    """Three bars of one Tum, the first "kar" unheard: the lock came on the second bar,
    three beats in time and two "Drak-kar"s a bar apart followed, and the table
    stopped, a beat short of the four that confirm a lock. The lock was dropped and
    its two last Tums with it. A beat fewer still (two bars) is no song."""
    period = 0.5
    onsets = sung(1.0, period, 3, tums=1)
    tr = track(onsets[:1] + onsets[2:], tums=1, follow=False, end_t=10.0)
    assert [e.t for e in tr.events if isinstance(e, LastTum)] == pytest.approx([2.5, 3.5])
    assert [e.t for e in tr.events if isinstance(e, SongStopped)] == pytest.approx([4.0])
    tr = track(onsets[:1] + onsets[2:6], tums=1, follow=False, end_t=10.0)
    assert tr.bars == [] and tr.events == []


def as_listed(rows) -> list[Onset]:
    """Onsets listed as (t, strength, kind), in time order, each handed out 50 ms after it."""
    return sorted((Onset(t, s, k, detected_t=t + 0.05) for t, s, k in rows), key=lambda o: o.t)


#: Held-out seed 4, chant 0 (five singers, three Tums at 128 BPM, babble at 10 dB) as
#: the detector hears it, to 8.2 s (t, strength, kind): the lock rests on chatter 0.6
#: of a beat after the Tum at 3.377 s, taken for its "kar".
HEARD_H04_00 = [
    (0.032, 8.63, "voice"), (0.236, 13.76, "voice"), (0.497, 11.20, "voice"), (0.596, 22.34, "voice"),
    (1.070, 17.25, "voice"), (1.302, 2.51, "faint"), (1.422, 6.30, "faint"), (1.472, 12.80, "voice"),
    (1.829, 6.88, "voice"), (1.942, 3.33, "faint"), (2.022, 8.54, "voice"), (2.253, 6.65, "voice"),
    (2.402, 3.46, "faint"), (2.482, 17.24, "voice"), (2.712, 8.87, "voice"), (2.958, 10.38, "voice"),
    (3.192, 8.12, "voice"), (3.377, 12.54, "voice"), (3.682, 6.08, "voice"), (3.832, 2.37, "faint"),
    (3.872, 10.58, "voice"), (4.122, 2.69, "faint"), (4.272, 5.60, "faint"), (4.362, 7.26, "voice"),
    (4.602, 2.89, "faint"), (4.570, 11.00, "voice"), (4.702, 4.19, "faint"), (4.829, 8.74, "voice"),
    (4.982, 1.41, "faint"), (5.290, 11.71, "voice"), (5.656, 46.62, "voice"), (5.766, 9.61, "voice"),
    (6.052, 3.48, "faint"), (6.202, 3.16, "faint"), (6.225, 11.87, "voice"), (6.492, 6.90, "faint"),
    (6.707, 9.09, "voice"), (7.002, 7.03, "faint"), (7.082, 3.97, "faint"), (7.162, 9.05, "voice"),
    (7.282, 2.88, "faint"), (7.462, 6.74, "faint"), (7.612, 2.86, "faint"), (7.616, 19.57, "voice"),
    (8.052, 4.04, "faint"), (8.087, 10.32, "voice"),
]


def test_a_kar_on_the_half_beat_moves_a_lock_made_on_chatter():
    """The lock's "Drak-kar" was a Tum and chatter 0.6 of a beat after it, so the bars
    began on that Tum. The table's next "Drak-kar", its "kar" 0.42 of a beat after its
    "Drak", was taken for chatter because it fell 0.2 of a beat from where this table
    "sang its kar" (the lock's chatter), and every last Tum was located a beat early.
    One "kar" heard sets no swing: the one on the half beat moves the bars; and the
    beat before it, the last Tum of the table's bar, is heard as one."""
    onsets = as_listed(HEARD_H04_00)
    tr = track(onsets, tums=3, follow=False, end_t=8.5)
    located = [e.t for e in tr.events if isinstance(e, LastTum)]
    assert located == pytest.approx([3.881, 5.757, 7.631], abs=0.02)  # the true last Tums


#: Held-out seed 5, chant 3 (three singers, two Tums at 92 BPM, babble at 15 dB) as
#: the detector heard it before it stopped looking for a burst before a click
#: (t, strength, kind): the lock came on a faint rise on a Tum's half beat.
HEARD_H05_03 = [
    (0.105, 3.35, "voice"), (0.275, 4.36, "voice"), (0.325, 3.31, "voice"), (0.569, 8.96, "voice"),
    (0.911, 10.97, "voice"), (1.192, 2.15, "faint"), (1.24, 9.58, "voice"), (1.382, 1.55, "faint"),
    (1.572, 1.33, "faint"), (1.722, 2.49, "faint"), (1.77, 8.27, "voice"), (1.864, 10.43, "voice"),
    (1.882, 1.86, "faint"), (2.032, 2.35, "faint"), (2.292, 2.99, "faint"), (2.305, 8.53, "voice"),
    (2.482, 2.22, "faint"), (2.518, 15.62, "voice"), (2.883, 19.43, "voice"), (3.218, 8.96, "voice"),
    (3.382, 4.28, "faint"), (3.542, 5.64, "faint"), (3.702, 6.30, "voice"), (3.802, 6.90, "voice"),
    (4.302, 6.24, "faint"), (4.432, 5.33, "faint"), (4.493, 21.54, "voice"), (4.712, 3.28, "faint"),
    (4.835, 12.59, "voice"), (5.072, 3.56, "faint"), (5.202, 6.44, "faint"), (5.592, 5.90, "faint"),
    (5.772, 8.86, "faint"), (5.815, 17.95, "voice"), (5.852, 7.18, "faint"), (6.042, 4.39, "faint"),
    (6.122, 6.38, "faint"), (6.222, 4.58, "faint"), (6.422, 4.13, "faint"), (6.466, 17.27, "voice"),
    (6.795, 18.03, "voice"), (7.114, 12.81, "voice"), (7.492, 2.73, "faint"), (7.572, 4.13, "faint"),
    (7.652, 5.43, "faint"), (7.665, 53.81, "voice"), (7.781, 18.48, "voice"),
]


def test_a_lock_on_a_faint_rise_a_beat_off_is_no_wrong_song():
    """The lock rested on a faint rise on a Tum's half beat, so the bars began on that
    Tum; the table's sung "Drak-kar" then fell where the bars had none, and the host
    announced one Tum. A faint rise is the weakest "kar": the sung one places the bars."""
    onsets = as_listed(HEARD_H05_03)
    tr = track(onsets, tums=2, follow=False, end_t=8.5)
    assert not any(isinstance(e, WrongSong) for e in tr.events)
    # The "Drak" sung at 4.51 s, heard at 4.493 s (reported at 4.481 s, a quarter
    # of the way to the beat predicted); the Tum a beat off lay 0.65 s away.
    assert any(abs(b.start - 4.493) < 0.02 for b in tr.bars)
    last = [b.last_tum for b in tr.bars if b.last_tum is not None]
    # Located as the benchmark counts (150 ms): the slap of the second was heard early.
    assert all(any(abs(x - lt) < 0.15 for x in last) for lt in (5.819, 7.784))


def test_a_lock_a_beat_off_is_no_wrong_song():
    """Held-out seed 3, chant 3 (babble at 15 dB, two Tums): the lock rested on a
    syllable of chatter on a Tum's half beat, so the bars began on that Tum; the
    table's next "Drak-kar" then fell where the bars had none, and the host told a
    table singing the song it was asked for that it sang one Tum. The plainer
    "kar" now places the bars, and the song stays the one expected."""
    spec = generator().held_out_specs(3)[3]
    assert spec.noise == "babble" and spec.bars == [2] * 5
    result, t = as_the_host_hears(spec)
    assert events_of(result, WrongSong) == []
    found, _ = _bars_found(result, t)
    assert found >= 3  # of five: the lock came in the second bar


def test_a_song_told_while_a_lock_is_unsure_outlives_it():
    """Held-out seed 10, chant 11 (pink noise at 20 dB, two Tums at 109 BPM, Whirlpool
    Island's reversed song from the third bar): the game told the reversed song while
    the lock was provisional, and the song was applied at the next bar the lock laid.
    That lock was then dropped, and the song told with it: the table's reversed bars
    were heard as the old song, a beat off (1 of 5 last Tums, 3 misplaced). It is sung
    from the first bar begun after it was told, whatever lock comes next."""
    spec = generator().held_out_specs(10)[11]
    assert spec.noise == "pink" and spec.reversed_from == 2 and spec.bars == [2] * 5
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 4 and wrong == 0
    assert events_of(result, WrongSong) == []
    told = t["bars"][2]["start"]
    assert [b.reversed for b in result.tracker.bars] == [b.start > told - 0.1 for b in result.tracker.bars]


def test_the_bars_of_a_lock_a_beat_off_are_forgotten():
    """Held-out seed 1, chant 2, in babble 10 dB under the singing (two Tums at 122
    BPM): the lock rested on chatter on a Tum's half beat, and the bar it laid began
    on that Tum. When the table's "Drak-kar" moved the bars, that bar stayed, its
    last Tum 540 ms after the table's (a play there judged against it), and so did
    the last Tum heard on the "Drak" that moved them, 450 ms after the next. Both
    go with the lock's phase; the bar still open ends on the table's last Tum, and
    that Tum is now heard as one."""
    spec = replace(generator().held_out_specs(1)[2], snr_db=10)
    assert spec.noise == "babble" and spec.bars == [2] * 5
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0
    true = [b["last_tum"] for b in t["bars"]]
    assert all(min(abs(x - y) for y in true) < 0.15 for x in result.last_tums)
    bars = result.tracker.bars
    assert [b.index for b in bars] == list(range(len(bars)))
    assert [e.index for e in events_of(result, BarStart)] == list(range(len(bars) + 1))


@pytest.mark.parametrize("seed, k, snr, found_at_least", [(6, 1, None, 3), (6, 2, 10, 3), (7, 0, None, 4)])
def test_a_kar_weaker_than_the_locks_is_no_wrong_song(seed, k, snr, found_at_least):
    """Held-out chants in babble 10 dB under the singing: a provisional lock, and then a
    "Drak-kar" where its bars have none, its "kar" weaker than the lock's own. The
    plainer "kar" kept the bars, yet the other "Drak-kar" was counted as a wrong song:
    the host said the table sang one or two Tums, and moved the bars by it (seed 6,
    chant 1: chatter after the last Tum, 1 of 5 last Tums left and 2 misplaced; seed
    7, chant 0: 2 misplaced, two wrong songs). It is chatter until a "Drak-kar" comes
    a bar after it: then the lock was a beat off, and the bars move, the song the
    same (seed 6, chant 2, at 10 dB: its lock rested on chatter after a Tum)."""
    spec = generator().held_out_specs(seed)[k]
    if snr is not None:
        spec = replace(spec, snr_db=snr)
    assert spec.noise == "babble"
    result, t = as_the_host_hears(spec)
    assert events_of(result, WrongSong) == []
    found, wrong = _bars_found(result, t)
    assert found >= found_at_least and wrong == 0


def test_a_song_that_kept_time_for_long_through_chatter_is_followed():
    """Held-out seed 8, chant 1 (two singers, three Tums at 121 BPM, babble at 10 dB):
    the lock kept time for fourteen beats, its "Drak-kar"s a bar apart from the
    second on, with three syllables of chatter among them, and was dropped for
    them: 0 of 5 last Tums. Once twelve beats kept time, one stray onset in four
    is the room's. Its first "Drak-kar" was chatter's (a beat off): no wrong song."""
    spec = generator().held_out_specs(8)[1]
    assert spec.noise == "babble" and spec.snr_db == 10 and spec.bars == [3] * 5
    result, t = as_the_host_hears(spec)
    found, _ = _bars_found(result, t)
    assert found >= 3
    assert events_of(result, WrongSong) == []


def test_a_table_that_sings_the_wrong_song_from_the_start_is_told_so():
    """The other side of the rule above: told three Tums, a table that sings two from
    its first bar has two plain "Drak-kar"s one against one at first; the third
    repeats the second's bar, and the host says so by then (a bar later than
    before the rule, when the second "kar" was sung stronger than the first)."""
    name = "g5_75bpm_wrong_2tums_snr15"
    result = analyze(wav(name), tums=3, follow=False)
    bars = truth(name)["bars"]
    wrong = events_of(result, WrongSong)
    assert wrong and all((e.expected_tums, e.heard_tums) == (3, 2) for e in wrong)
    assert wrong[0].t < bars[2]["start"] + 0.05
    assert wrong[-1].t > bars[-1]["start"] - 0.05  # and in every bar after
    assert [b.tums for b in result.tracker.bars] == [2] * len(result.tracker.bars)


def test_a_short_song_in_real_voices_that_locked_late_is_followed():
    """Real voices, seed 1, chant 3 (three people, one Tum at 119 BPM, white noise at
    20 dB): a Tum heard as a slap with its vowel apart delayed the lock, and the
    five-bar song ended a beat before it was confirmed: no bar was followed. Now
    three last Tums are, none misplaced."""
    gen = generator()
    spec = gen.real_voice_specs(1)[3]
    assert spec.noise == "white" and spec.snr_db == 20 and spec.bars == [1] * 5
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0


@pytest.mark.parametrize("bpm, kar_at", [(60, 0.3), (70, 0.3), (90, 0.35), (120, 0.38)])
def test_a_table_that_sings_its_kar_early_in_the_beat_is_followed(bpm, kar_at):
    """ "Drakkar" said quickly at a slow tempo puts the "kar" a quarter to 0.4 of a
    beat in, before the half-beat window: no bar at all was found. Such a table
    is followed once it has sung its early "kar" twice, from its third bar."""
    period = 60 / bpm
    onsets = sung(1.0, period, 6, kar_at=kar_at)
    tr = track(onsets, tums=3, follow=False, end_t=40.0)
    assert_last_tums_on(tr, [onsets[5 * b + 4].t for b in range(6)], at_least=4)
    assert not any(isinstance(e, WrongSong) for e in tr.events)


@pytest.mark.parametrize("bpm, tums, singers, seed", [(70, 3, 3, 7), (99, 2, 4, 100)])
def test_an_early_kar_sung_by_a_group_is_heard_as_the_bar(bpm, tums, singers, seed):
    """The same in a group's voices (espeak-ng, in pink noise at 20 dB, the "kar" 0.3
    of a beat after "Drak"): no last Tum was located before. At 99 BPM a faint rise
    at 0.6 of the beat locked first, the table's early "kar"s then counted as stray
    sounds, and the lock was dropped: the early "kar" sung twice now wins over a
    faint rise."""
    gen = generator()
    spec = gen.Spec(f"early_kar_{bpm}bpm", bpm, [tums] * 6, singers=singers, snr_db=20,
                    noise="pink", seed=seed, kar_at=0.3)
    audio, t = gen.render(spec)
    result = analyze(audio, tums=tums, follow=False)  # as the host hears it
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0
    assert events_of(result, WrongSong) == []


def test_a_lock_at_twice_the_period_is_dropped():
    """A room's echo swallowed the first bar's "kar" and first Tum, and left the other
    "kar"s faint rises: "Drak, Tum, Tum, Drak" locked as "Tum, Drak-kar, Tum" at
    twice the period and held the tracker there: no bar at all (in the real room
    below, a wrong song announced at every bar). No song has three "Drak-kar"s in
    a row, each half beat in the middle of its beat: that lock is dropped."""
    period = 0.594
    onsets = [Onset(o.t, 3.0, FAINT, o.detected_t) if k % 5 == 1 else o  # "kar"s under the echo
              for k, o in enumerate(sung(0.6, period, 6, tums=3))]
    del onsets[1:3]  # the first bar's "kar" and first Tum
    tr = track(onsets, tums=3, follow=False, end_t=20.0)
    assert not any(isinstance(e, WrongSong) for e in tr.events)
    assert_last_tums_on(tr, [0.6 + (4 * b + 3) * period for b in range(6)], at_least=4)


def test_a_chant_in_an_echoing_room_is_not_followed_at_twice_its_period():
    """That chant (held-out seed 3, chant 10: five singers, three Tums at 101 BPM in
    pink noise at 20 dB, sung in a room whose echo dies in half a second): no last
    Tum of five was located, four were put on the wrong beat and a wrong song was
    announced at every bar."""
    gen = generator()
    spec = replace(gen.held_out_specs(3)[10], rt60=0.5, drr_db=0.0)
    assert spec.bpm == 101 and spec.bars == [3] * 5
    audio, t = gen.render(spec)
    result = analyze(audio, tums=3, follow=False)  # as the host hears it
    found, wrong = _bars_found(result, t)
    assert found >= 3 and wrong == 0
    assert events_of(result, WrongSong) == []


@pytest.mark.parametrize("seed, k, snr, found_at_least, misplaced",
                         [(7, 5, 10, 3, 0), (7, 2, 10, 3, 0), (8, 0, None, 3, 1)])
def test_chatter_just_before_the_beats_does_not_keep_a_lock_off(seed, k, snr, found_at_least,
                                                                misplaced):
    """Held-out chants in babble 10 dB under the singing. A lock is sought on three
    beats a period apart, and an onset between them that the pattern does not explain
    kept it off (a pattern at twice the table's period skips real beats, which fall on
    its half beats). But chatter said just before the table's "Drak" or "Tum" is as
    strong, and it kept every right pattern off: seed 7, chant 5 (one Tum at 107 BPM,
    every syllable heard) had no bar at all; chant 2 (three Tums at 80 BPM) locked at
    half the table's period instead, 3 last Tums heard where none was sung; seed 8,
    chant 0 found its first bars late (1 of 5 last Tums heard, 3 now; a last Tum on
    chatter at its end stays). An onset within a quarter beat of one of the pattern's
    beats is let pass; such a lock is confirmed with one stray sound fewer until it kept
    time for two bars (people talking: no false bar more, seeds 100 to 700)."""
    spec = generator().held_out_specs(seed)[k]
    if snr is not None:
        spec = replace(spec, snr_db=snr)
    assert spec.noise == "babble"
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= found_at_least and wrong <= misplaced


def test_a_lock_that_left_beats_unheard_is_not_kept_when_the_song_stops():
    """Unseen held-out seed 14, chant 3 (two Tums at 70 BPM, babble 15 dB under the
    singing). Once chatter before a beat no longer keeps a lock off, a lock at twice
    the table's period was made on it: the table's syllables were its beats, every
    Tum's half beat a beat unheard. Never confirmed for ten seconds, it was kept
    when the song stopped, as a short song is (four last Tums misplaced, none found).
    A song kept as it stopped heard something on every beat before the stop."""
    spec = generator().held_out_specs(14)[3]
    assert spec.noise == "babble" and spec.bars == [2] * 5
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 4 and wrong == 0
    assert all(abs(b.beats[1] - b.beats[0] - 60 / spec.bpm) < 0.1 for b in result.tracker.bars)


def _long_one_tum(seed, k, **room):
    """Held-out spec ``k`` of ``seed`` sung as a one-Tum song sixteen bars long."""
    spec = generator().held_out_specs(seed)[k]
    return replace(spec, name=f"long_{seed}_{k}", bars=[1] * 16, reversed_from=None, **room)


def test_a_one_tum_song_followed_at_twice_its_tempo_is_followed_at_its_own():
    """Held-out seed 11, chant 0, sung as sixteen bars of one Tum at 80 BPM in babble
    10 dB under it: "Drak, kar, Tum" and a rest on half beats, the rest filled with
    chatter. The lock came on every half beat, and every other bar its last Tum fell
    where no Tum was sung (14 of them; 3 now, before the check below). Once confirmed,
    a lock that hears nothing on the same one beat in four twice running, everything
    on the other six and no "Drak-kar" of its own, is at twice the table's tempo: the
    song is followed at half that tempo from the table's next beat, and without a
    tempo change (the host would tell the table it sang slower)."""
    spec = _long_one_tum(11, 0)
    assert spec.noise == "babble" and spec.snr_db == 10 and spec.bpm == 80
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 15 and wrong <= 4
    assert events_of(result, TempoChanged) == []
    late = [b for b in result.tracker.bars if b.start > t["bars"][8]["start"]]
    assert late and all(abs(b.beats[1] - b.beats[0] - 60 / spec.bpm) < 0.08 for b in late)


def test_a_right_lock_that_an_echo_deafens_on_one_beat_keeps_its_tempo():
    """The same check on a one-Tum song at 128 BPM in a quiet echoing room (held-out seed
    7, chant 3, RT60 0.5 s): the echo swallowed the same beat twice running, and the
    lock, right, was halved (last Tums heard 10 -> 5, and 3 where none was sung). It
    heard its "Drak-kar"s: it stays."""
    spec = _long_one_tum(7, 3, rt60=0.5, noise="white", snr_db=80)
    result, t = as_the_host_hears(spec)
    found, wrong = _bars_found(result, t)
    assert found >= 10 and wrong == 0


@pytest.mark.parametrize("seed, k, bpm", [(4, 14, 200), (3, 9, 190)])
def test_a_fast_song_stamped_late_in_noise_is_followed(seed, k, bpm):
    """Held-out chants sung at 190 and 200 BPM (``bench onsets --bpm``): two Tums in
    white noise 15 dB under the singing, whose onsets all matched; one Tum in pink
    noise 10 dB under. A "T" stamped 40 to 45 ms late under hiss is 15 % of a 300 ms
    beat, past the 12 % a beat in time may stray before a lock is confirmed: neither
    chant was followed at all (0 of 5 last Tums). The lock's tolerances stop
    shrinking with the beat at 150 BPM's."""
    spec = replace(generator().held_out_specs(seed)[k], bpm=bpm)
    assert spec.noise in ("white", "pink") and spec.snr_db <= 15
    result, t = as_the_host_hears(spec)
    located = result.last_tums  # the bars' last Tums, as the benchmark counts them
    assert len(located) == 5
    assert all(min(abs(x - b["last_tum"]) for x in located) < 0.05 for b in t["bars"])


@pytest.mark.parametrize("seed, k", [(4, 2), (4, 5), (12, 12)])
def test_a_lock_that_first_heard_the_tempo_wrong_is_not_told_as_a_tempo_change(seed, k):
    """Held-out chants (``bench onsets --held-out 4,12 --snr 10``: babble at 124 and
    94 BPM, white noise at 128 BPM) sung at one tempo: each lock took its period from a syllable stamped off
    (chatter just before it, a "T" buried in hiss), 8 % off the table's, and the
    loop's correction over the next bars was told as the table drifting ("134 then
    124"). The reference is the line through the beats heard until the lock was
    confirmed now."""
    spec = replace(generator().held_out_specs(seed)[k], snr_db=10)
    assert spec.drift == 0
    result, t = as_the_host_hears(spec)
    assert events_of(result, TempoChanged) == []
    assert _bars_found(result, t)[0] >= 3


def _table_unsteady(onsets: list[Onset], t: dict, sd: float, seed: int) -> list[Onset]:
    """The onsets of a chant whose table keeps no metronome's time: each beat's syllables
    (its "kar" with its "Drak") moved together by a normal draw of ``sd`` seconds."""
    rng = np.random.default_rng(seed)
    syl = t["syllables"]
    at = np.array([s["t"] for s in syl])
    moves = {(s["bar"], s["beat"]): rng.normal(0, sd) for s in syl}
    out = []
    for o in onsets:
        j = int(np.argmin(np.abs(at - o.t)))
        if abs(at[j] - o.t) < 0.08:
            d = moves[(syl[j]["bar"], syl[j]["beat"])]
            o = replace(o, t=o.t + d, detected_t=o.detected_t + d)
        out.append(o)
    return sorted(out, key=lambda o: o.detected_t)


@pytest.fixture(scope="module")
def steady_chants() -> list[tuple[str, list[Onset], dict, float]]:
    out = []
    for p in sorted(CHANT.glob("*.json")):
        t = json.loads(p.read_text())
        if t.get("drift"):
            continue
        x = read_audio(wav(p.stem))
        out.append((p.stem, detect_onsets(x, faint=True), t, len(x) / 16000))
    return out


def test_a_table_less_steady_than_a_metronome_is_not_told_it_drifts(steady_chants):
    """The committed chants that keep one tempo, each beat moved by 20 ms (standard
    deviation; espeak-ng's table keeps a metronome's time, people do not), twenty
    draws each: the loop's period, compared with the lock's first guess, told a
    tempo change in four of these 300 (two chants at 120 and 150 BPM, the whirlpool
    song)."""
    told = []
    for name, onsets, t, end in steady_chants:
        for seed in range(20):
            tr = track(_table_unsteady(onsets, t, 0.02, seed), t["expected_tums"], follow=False,
                       end_t=end)
            if any(isinstance(e, TempoChanged) for e in tr.events):
                told.append((name, seed))
    assert len(steady_chants) == 15
    assert told == []


def test_a_drift_is_told_however_unsteady_the_table():
    """The committed chant that speeds up 12 % from its first bar to its last, each
    beat moved by 15 ms as above: told faster in every draw (12 of 20 before, when the
    loop's lagging period was the tempo now)."""
    name = "g3_100bpm_drift_snr15"
    t, x = truth(name), read_audio(wav(name))
    onsets = detect_onsets(x, faint=True)
    told = 0
    for seed in range(20):
        tr = track(_table_unsteady(onsets, t, 0.015, seed), 3, follow=False, end_t=len(x) / 16000)
        changes = [e for e in tr.events if isinstance(e, TempoChanged)]
        told += len(changes) == 1 and changes[0].new_bpm > changes[0].old_bpm * 1.08
    assert told == 20


def _masked(name: str, start: float, end: float, tracker_told: bool):
    """``name`` through detector and tracker with its onsets masked from ``start`` to
    ``end``, as while the host speaks (half duplex); the tracker told of it or not."""
    from voicehost.audio import analysis
    from voicehost.audio.analysis import analyze_blocks
    from voicehost.audio.mute import MuteWindows
    from voicehost.audio.sources import FileSource

    mute = MuteWindows(tail=0.0)
    mute.add(start, end)
    src = FileSource(wav(name))
    if tracker_told:
        return analyze_blocks(src.blocks(), src.duration, tums=3, follow=False, mute=mute)
    told = analysis.ChantTracker
    try:  # as before the tracker knew: only the detector was deaf
        analysis.ChantTracker = lambda *a, deaf=None, **k: told(*a, **k)
        return analyze_blocks(src.blocks(), src.duration, tums=3, follow=False, mute=mute)
    finally:
        analysis.ChantTracker = told


@pytest.mark.parametrize("name,start,end", [("g3_100bpm_3tums_clean", 5.0, 7.6),
                                            ("g3_80bpm_3tums_snr5", 5.5, 7.8)])
def test_the_song_goes_on_while_the_host_speaks_over_it(name, start, end):
    """A line said mid-song ("Kraken! Now Drakkar Tum Tum.") masks the onsets for
    longer than a bar. Counted as silence, the song stopped and its next last Tums
    were lost until a lock was made and confirmed anew: a play under the voice was
    judged on no last Tum. The tracker goes on at the song's tempo instead."""
    t = truth(name)
    lost = _masked(name, start, end, tracker_told=False)
    assert [e.t for e in events_of(lost, SongStopped)][:1] == [pytest.approx(start, abs=0.5)]
    result = _masked(name, start, end, tracker_told=True)
    # No stop but the recording's end, and every bar's last Tum where the table sang it.
    assert all(e.t > t["bars"][-1]["last_tum"] for e in events_of(result, SongStopped))
    got = [e.t for e in events_of(result, LastTum)]
    want = [b["last_tum"] for b in t["bars"]]
    assert len(got) == len(want) and len(events_of(lost, LastTum)) < len(want)
    for g, w in zip(got, want):
        assert abs(g - w) <= 0.02
    masked = [e for e in events_of(result, Beat) if start <= e.t <= end]
    assert masked and not any(e.heard for e in masked)  # the bars went on, unheard


def test_a_table_that_stops_while_the_host_speaks_is_heard_stopped_after():
    """The table stopped at 4.6 s, under the host's voice (4.3 to 5.5 s): the stop is
    heard at the first beat the tracker could hear, and the song after it is followed."""
    t = truth("g3_120bpm_stop_snr20")
    result = _masked("g3_120bpm_stop_snr20", 4.3, 5.5, tracker_told=True)
    stops = [e.t for e in events_of(result, SongStopped)]
    assert stops[0] == pytest.approx(5.6, abs=0.06)  # the first beat after the voice
    got = [e.t for e in events_of(result, LastTum)]
    for w in (b["last_tum"] for b in t["bars"]):
        assert min(abs(g - w) for g in got) <= 0.02


def _stopped_by_the_game(name: str, start: float, end: float, stop: float | None) -> ChantTracker:
    """``name`` heard with its onsets masked from ``start`` to ``end`` (the host's voice),
    fed as live to a tracker told of it, and told the game stopped the song at ``stop``."""
    from voicehost.audio.mute import MuteWindows

    mute = MuteWindows(tail=0.0)
    mute.add(start, end)
    onsets = detect_onsets(read_audio(wav(name)), mute=mute, faint=True)
    tr = ChantTracker(3, deaf=mute)
    if stop is not None:
        tr.expect_stop(stop)
    last = 0.0
    for o in sorted(onsets, key=lambda o: o.detected_t or o.t):
        last = max(last, o.detected_t or o.t)
        tr.process([o], last)
    tr.finish(truth(name)["duration"])
    return tr


def test_a_song_the_game_stopped_does_not_go_on_under_the_voice():
    """A mistake or an island stops the song, and the host's "Stop!" masks the table
    falling silent: no bar goes on unheard after the game stopped it (bars gone on
    there counted as warm-up songs nobody sang, and a play was judged on them)."""
    stopped = []
    for told in (False, True):
        tr = _stopped_by_the_game("g3_120bpm_stop_snr20", 4.3, 5.5, 4.35 if told else None)
        stopped.append([e.t for e in tr.events if isinstance(e, SongStopped)])
        unheard = [e for e in tr.events if isinstance(e, Beat) and not e.heard and 4.3 < e.t < 5.5]
        assert bool(unheard) != told
    assert stopped[0][0] == pytest.approx(5.6, abs=0.06)  # heard stopped after the voice
    assert stopped[1][0] == pytest.approx(4.6, abs=0.06)  # where the table stopped


def test_a_song_begun_again_under_the_voice_on_a_beat_of_its_own_is_heard_stopped():
    """The committed loss game: the table stops after the Kraken (16.8 s) and sings the
    one-Tum song again from 19.3 s, on a beat of its own, while the host speaks (15.4
    to 20.64 s). The bars gone on under the voice fall between the table's, and the
    onsets after it stray off them: the song is heard stopped at the first beat after
    the voice, and the last Tums are not laid on the old bars any more."""
    from voicehost.audio.analysis import analyze_blocks
    from voicehost.audio.mute import MuteWindows
    from voicehost.audio.sources import FileSource

    mute = MuteWindows(tail=0.0)
    mute.add(15.41, 20.64)
    src = FileSource(Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"
                     / "drakkar_loss.wav")
    result = analyze_blocks(src.blocks(), src.duration, tums=3, follow=False, mute=mute,
                            songs=[(6.7, 2, False), (16.45, 1, False)])
    stops = [e.t for e in events_of(result, SongStopped)]
    assert any(20.64 < s < 21.1 for s in stops)
    # The table's own beats after the voice (21.14 "Drak", 21.60 "Tum") are no last
    # Tums of the old bars.
    assert not [e.t for e in events_of(result, LastTum) if 20.64 < e.t < 21.9]


def test_a_table_that_sings_on_after_the_game_stopped_it_is_sung_under_again():
    """The game stopped the song at 2.5 s, and the table sang on (it warms up again
    with the bars it sings): a line said over it later is sung under as ever."""
    tr = _stopped_by_the_game("g3_100bpm_3tums_clean", 7.3, 9.75, 2.5)
    assert not [e for e in tr.events if isinstance(e, SongStopped) and e.t < 9.7]
    assert any(abs(e.t - 9.6) <= 0.02 for e in tr.events if isinstance(e, LastTum))
