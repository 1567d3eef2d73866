"""A card slapped near the last Tum is heard apart from the syllable, and times its play.

Players slap a little before or after the last Tum. Until this was fixed, a
slap 30 to 100 ms after the Tum's onset fell inside the syllable's
refractory interval and was never heard, so the play was timed by its later
declaration and judged late; a slap 60 to 100 ms before the Tum, far louder
than the Tum heard over its tail, was taken for the last Tum itself, and
every such play was judged exactly on the beat.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.analysis import analyze, judge_plays
from voicehost.audio.chant import PREDICTED_SHARE
from voicehost.audio.judge import EARLY, LATE, ON_BEAT
from voicehost.audio.onsets import SLAP, detect_onsets
from voicehost.audio.sources import read_audio

from chant_onsets import generator

ROOT = Path(__file__).resolve().parents[1]
CHANT = ROOT / "audio_fixtures" / "chant"
NEAR = ["g3_100bpm_slaps_near_snr20", "g4_85bpm_slaps_near_snr15"]
RATE = 16000


def _slap_sound(seed: int) -> np.ndarray:
    """The fixture generator's own slap (tools/make_fixtures.py), so tests and fixtures agree."""
    return generator().slap_sound(np.random.default_rng(seed))


def _want(offset_ms: float, window_ms: float) -> str:
    return ON_BEAT if abs(offset_ms) <= window_ms else (EARLY if offset_ms < 0 else LATE)


@pytest.fixture(scope="module")
def clean():
    truth = json.loads((CHANT / "g3_100bpm_3tums_clean.json").read_text())
    return read_audio(CHANT / "g3_100bpm_3tums_clean.wav"), truth["bars"][1]["last_tum"]


@pytest.mark.parametrize("offset_ms", [30, 40, 50, 80, 100])
def test_a_slap_inside_the_last_tum_is_heard_and_times_the_play(clean, offset_ms):
    x, last_tum = clean
    x = x.copy()
    at = last_tum + offset_ms / 1000
    s = 0.8 * _slap_sound(offset_ms)
    x[int(at * RATE) : int(at * RATE) + len(s)] += s
    result = analyze(x)
    (v,) = judge_plays(result, [{"t": at + 0.15}], "hard")
    assert v.timed_by == "slap"
    assert abs(v.t - at) <= 0.005
    assert abs(v.last_tum - last_tum) <= 0.005  # the Tum is still the sung syllable
    assert v.verdict == _want(offset_ms, 60)


@pytest.mark.parametrize("offset_ms", [-60, -80, -100])
def test_a_slap_before_the_last_tum_does_not_become_it(clean, offset_ms):
    x, last_tum = clean
    x = x.copy()
    at = last_tum + offset_ms / 1000
    s = 0.8 * _slap_sound(-offset_ms)
    x[int(at * RATE) : int(at * RATE) + len(s)] += s
    result = analyze(x)
    (v,) = judge_plays(result, [{"t": at + 0.15}], "hard")
    assert v.timed_by == "slap" and abs(v.t - at) <= 0.005
    assert abs(v.last_tum - last_tum) <= 0.005
    assert v.verdict == EARLY  # hard window: 60 ms; the slap starts 1 to 2 ms before ``at``


@pytest.mark.parametrize("name", NEAR)
def test_slaps_near_the_last_tum_in_a_group_chant(name):
    """Group chants in noise: slaps 30-60 ms after and 60-100 ms before the last Tum.

    Seen and left alone: a slap 70 to 100 ms after the Tum under three or four
    singers is sometimes too quiet above 2.5 kHz to pass as a slap (one per
    fixture here); its play is then timed by the declaration.
    """
    truth = json.loads((CHANT / f"{name}.json").read_text())
    result = analyze(CHANT / f"{name}.wav", tums=truth["expected_tums"])
    checked = 0
    for window in ("hard", "normal"):
        width = {"hard": 60, "normal": 120}[window]
        for play, v in zip(truth["plays"], judge_plays(result, truth["plays"], window)):
            off = play["offset_ms"]
            if not (30 <= off <= 60 or -100 <= off <= -60):
                continue
            checked += 1
            assert v.timed_by == "slap", (play, v)
            assert abs(v.offset_ms - off) <= 20, (play, v)
            if abs(abs(off) - width) > 5:  # a verdict on the window's very edge may go either way
                assert v.verdict == _want(off, width), (play, v)
    assert checked >= 4


@pytest.mark.parametrize("name", sorted(p.stem for p in CHANT.glob("*.wav")))
def test_onsets_leave_in_time_order(name):
    """A slap heard inside a syllable waits until no earlier-begun onset can still come."""
    onsets = detect_onsets(read_audio(CHANT / f"{name}.wav"))
    times = [o.t for o in onsets]
    assert times == sorted(times) and len(set(times)) == len(times)
    truth = json.loads((CHANT / f"{name}.json").read_text())
    if name in NEAR:
        slaps = [o.t for o in onsets if o.kind == SLAP]
        found = sum(any(abs(s - t["t"]) <= 0.01 for s in slaps) for t in truth["slaps"])
        assert found >= len(truth["slaps"]) - 1


@pytest.mark.parametrize("delay", [0.0804, 0.1096])
def test_a_slap_on_the_beat_keeps_it_from_the_vowel_after_it(delay):
    # A card slapped right on a Tum: at some frame alignments (the recording
    # started 80 or 110 ms later) the Tum's vowel is heard 60 ms after the
    # slap as an onset of its own, and took the beat: the last Tum 58 ms late.
    truth = json.loads((CHANT / "g3_120bpm_stop_snr20.json").read_text())
    from voicehost.audio.sources import read_audio

    x = read_audio(CHANT / "g3_120bpm_stop_snr20.wav")
    a = analyze(np.concatenate([np.zeros(int(delay * 16000), np.float32), x]), tums=3)
    heard = [b.last_tum - delay for b in a.tracker.bars if b.last_tum is not None]
    for bar in truth["bars"]:
        assert min(abs(t - bar["last_tum"]) for t in heard) < 0.03


def test_a_later_singers_real_t_is_no_slap():
    """Two real people say "two" 26 to 50 ms apart: the second one's "T" clicks
    like a card inside the first one's syllable, but runs on into its vowel.
    Before the click had to die away, 10 such pairs in 15 reported a slap
    (chants in real voices: a third of their onsets called slaps were these)."""
    gen = generator()
    rng = np.random.default_rng(0)
    false, caught = 0, 0
    for trial in range(30):
        x = np.zeros(3 * RATE)
        t0 = 0.8
        for speaker, late in (("nicolas", 0.0), ("theo", float(rng.uniform(0.026, 0.05)))):
            word = gen.recorded_syllable("Tum", speaker, int(rng.integers(10)), 0.5)
            i = int((t0 + late) * RATE)
            x[i : i + len(word)] += word * rng.uniform(0.6, 1.0)
        slapped = trial % 2 == 0
        if slapped:  # a card 60 ms into the syllable: still heard
            s = gen.slap_sound(rng) * 0.8
            i = int((t0 + 0.06) * RATE)
            x[i : i + len(s)] += s
        x += 0.003 * rng.standard_normal(len(x))
        slaps = [o for o in detect_onsets(x.astype(np.float32), RATE) if o.kind == SLAP]
        if slapped:
            caught += any(abs(o.t - (t0 + 0.06)) < 0.015 for o in slaps)
        else:
            false += len(slaps)
    assert false == 0
    assert caught >= 8  # of 15 (9 before this change, and after)


def _heard_slaps(seed: int, index: int, **changes) -> tuple[list[float], list[float], dict]:
    """A held-out chant rendered with ``changes``: the slaps heard, the true ones, its truth."""
    from dataclasses import replace

    gen = generator()
    x, truth = gen.render(replace(gen.held_out_specs(seed)[index], **changes))
    heard = [o.t for o in detect_onsets(x.astype(np.float32), RATE) if o.kind == SLAP]
    return heard, [s["t"] for s in truth["slaps"]], truth


@pytest.mark.parametrize("seed,index", [(2, 2), (2, 10), (1, 6)])
def test_a_sung_d_or_t_in_a_quiet_room_is_no_slap(seed, index):
    """Out of a quiet room, the /d/ of "Drak" and the /t/ of "Tum" jump across
    the upper bands and die there as fast as a card; only the vowel rising
    after them tells them apart. Before it counted, these chants (pink noise
    40 dB under the singing) had 5, 4 and 5 voices called slaps, 3, 0 and 1
    of them on a last Tum: with voice declarations each of those stops the
    song for a play nobody made. Cards slapped on the last Tum, or a little
    after it as most players do, are still heard."""
    spec = generator().held_out_specs(seed)[index]
    bars = [b for b, _ in spec.slaps]
    for slaps in (spec.slaps, [(bars[0], 0.0), (bars[1], 0.02)]):
        heard, true, truth = _heard_slaps(seed, index, snr_db=40, noise="pink", slaps=slaps)
        assert all(any(abs(h - t) < 0.03 for h in heard) for t in true), (true, heard)
        false = [h for h in heard if all(abs(h - t) >= 0.03 for t in true)]
        assert len(false) <= 1, false
        assert not [h for h in false if any(abs(h - b["last_tum"]) < 0.1 for b in truth["bars"])]


@pytest.mark.parametrize("seed,index", [(1, 2), (1, 6), (1, 8), (2, 8)])
def test_a_slap_in_a_reverberant_room_is_heard(seed, index):
    """In a living room (RT60 0.5 s) a card's upper bands die only 0.3 to 0.8
    bels in the frames the detector watches, as every sound's there: with the
    dry room's 0.8 bels asked of it, one slap of each of these clean chants
    was heard as a voice (its play then timed by the declaration, and with
    voice declarations not asked about at all). The decay asked now follows
    how fast sound dies in the room."""
    heard, true, _ = _heard_slaps(seed, index, snr_db=None, rt60=0.5)
    assert all(any(abs(h - t) < 0.03 for h in heard) for t in true), (true, heard)
    assert all(any(abs(h - t) < 0.03 for t in true) for h in heard), (true, heard)


@pytest.mark.parametrize("seed,index,most", [(2, 4, 0), (2, 14, 1)])
def test_a_drak_leaning_to_a_voice_is_no_slap(seed, index, most):
    """A "Drak" whose vowel rises only a little after its /d/ (0.4 to 0.6 bels)
    passed as a card, its spectrum leaning to a voice's (more energy in
    400-2000 Hz than above 2.5 kHz) notwithstanding: these chants in a quiet
    room kept 1 and 3 of them. A card's spectrum is flat; one that leans may
    rise only 0.35 bels there now. After Whirlpool Island the play falls on
    "Drak", so such a "slap" stops a voice game for a play nobody made."""
    heard, true, truth = _heard_slaps(seed, index, snr_db=40, noise="pink")
    assert all(any(abs(h - t) < 0.03 for h in heard) for t in true), (true, heard)
    draks = [s["t"] for s in truth["syllables"] if s["text"] == "Drak"]
    false = [h for h in heard if all(abs(h - t) >= 0.03 for t in true)]
    assert len([h for h in false if min(abs(h - d) for d in draks) < 0.03]) <= most, false


def test_a_slap_20_ms_into_the_tum_is_a_slap_at_every_frame_alignment():
    """The Tum sung under a card slapped 20 ms after it rises in 400-2000 Hz by
    0.31 to 0.65 bels, depending on where the frames fall: with 0.6 bels
    allowed, 3 of 16 alignments called it a voice, and the play it times was
    timed by its declaration instead (through the sound card, the judge then
    disagreed with the file by 105 ms)."""
    x = read_audio(CHANT / "g3_120bpm_stop_snr20.wav")
    truth = json.loads((CHANT / "g3_120bpm_stop_snr20.json").read_text())
    (slap,) = [s["t"] for s in truth["slaps"] if s["offset_ms"] == 20.0]
    for lead in range(3000, 3160, 10):
        shift = lead / RATE
        onsets = detect_onsets(np.concatenate([np.zeros(lead, np.float32), x]), RATE)
        near = [o for o in onsets if abs(o.t - shift - slap) < 0.03]
        assert any(o.kind == SLAP for o in near), (lead, near)


def test_a_tum_that_might_be_a_card_goes_out_once_its_vowel_rises():
    # The "T" of a Tum out of a clean room jumps across the upper bands like a
    # card, so the Tum waits to see whether it dies away. Once its vowel has
    # risen in 400-2000 Hz past what any card may, the last look can only
    # call it a voice: it goes out then, not 40 ms after its decision (it
    # went out up to 72 ms after its stamp; the other voices 62). The first
    # syllable out of silence is left out: the room's noise is still learnt.
    x = read_audio(CHANT / "g3_100bpm_3tums_clean.wav")
    truth = json.loads((CHANT / "g3_100bpm_3tums_clean.json").read_text())
    onsets = detect_onsets(x)
    assert [o.kind for o in onsets] == [o["kind"] for o in truth["onsets"]]
    assert max(o.detected_t - o.t for o in onsets[1:] if o.kind == "voice") <= 0.065


@pytest.mark.parametrize("seed,index", [(2, 9), (1, 14), (4, 14)])
def test_a_last_tum_heard_with_a_card_in_it_lies_halfway_to_the_beat_predicted(seed, index):
    """A card slapped 30 ms before the Tum is heard as one sound with it (``struck``).

    That sound starts with the card: taken as the Tum, it put the last Tum
    31 ms early. It lies halfway to the beat predicted, as a slap that hid
    its syllable does, and the card's own time still times the play.
    """
    from voicehost.audio.chant import LastTum

    gen = generator()
    x, truth = gen.render(gen.held_out_specs(seed)[index])
    result = analyze(x.astype(np.float32), tums=truth["expected_tums"])
    struck = [e for e in result.events if isinstance(e, LastTum) and e.struck]
    assert len(struck) == 1, struck
    (e,) = struck
    true_tum = min((b["last_tum"] for b in truth["bars"]), key=lambda v: abs(v - e.t))
    (slap,) = [s["t"] for s in truth["slaps"] if abs(s["t"] - true_tum) < 0.15]
    assert slap - true_tum == pytest.approx(-0.030, abs=0.001)
    assert abs(e.card_t - slap) <= 0.003  # the sound heard is the card's
    assert e.t == pytest.approx(0.5 * (e.card_t + e.predicted_t), abs=1e-4)
    assert abs(e.t - true_tum) <= 0.015, (e.t - true_tum)
    assert any(abs(b.last_tum - e.t) < 1e-4 for b in result.tracker.bars if b.last_tum)
    assert result.struck == [e.card_t]
    (play,) = [p for p in truth["plays"] if p["slap_t"] == slap]
    (v,) = judge_plays(result, [play], "hard")
    assert v.timed_by == "slap" and v.t == e.card_t and v.last_tum == e.t
    assert v.verdict == ON_BEAT and -35 <= v.offset_ms <= -15


def test_a_struck_last_tum_heard_after_the_beat_predicted_is_not_moved_halfway():
    """A card slapped 50 ms after the Tum, heard apart only once that last Tum had
    gone out: the Tum's own sharp "T" marks it struck, but the sound began with
    the Tum, after the beat predicted. Moved halfway to a beat predicted 47 ms
    early, it turned the play, 34 ms after it, into one 65 ms late (hard: late)."""
    from voicehost.audio.chant import LastTum

    gen = generator()
    x, truth = gen.render(gen.held_out_specs(8)[0])  # babble at 10 dB, 128 BPM, one Tum
    result = analyze(x.astype(np.float32), tums=truth["expected_tums"])
    (e,) = [e for e in result.events if isinstance(e, LastTum) and e.struck]
    true_tum = min((b["last_tum"] for b in truth["bars"]), key=lambda v: abs(v - e.t))
    (slap,) = [s["t"] for s in truth["slaps"] if abs(s["t"] - true_tum) < 0.15]
    assert slap - true_tum == pytest.approx(0.050, abs=0.001)
    # Heard after the beat predicted: a syllable, a quarter of the way to the beat
    # predicted as any (PREDICTED_SHARE), not halfway as a card that hid its Tum.
    assert e.predicted_t < e.card_t
    assert e.t == pytest.approx(e.card_t + PREDICTED_SHARE * (e.predicted_t - e.card_t), abs=2e-5)
    assert abs(e.t - true_tum) <= 0.020
    (play,) = [p for p in truth["plays"] if p["slap_t"] == slap]
    (v,) = judge_plays(result, [play], "hard")
    assert v.verdict == _want(play["offset_ms"], 60) == ON_BEAT
