"""The streaming onset detector on the committed chant fixtures and a real recording."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.blocks import Block, blocks_from_array
from voicehost.audio.mute import MuteWindows
from voicehost.audio.onsets import FAINT, SLAP, VOICE, OnsetDetector, OnsetParams, detect_onsets
from voicehost.audio.sources import read_audio

ROOT = Path(__file__).resolve().parents[1]
CHANT = ROOT / "audio_fixtures" / "chant"
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"


def fixture(name: str) -> tuple[np.ndarray, dict]:
    return read_audio(CHANT / f"{name}.wav"), json.loads((CHANT / f"{name}.json").read_text())


def f_measure(ref, est, window=0.05):
    import mir_eval

    return mir_eval.onset.f_measure(np.asarray(ref), np.asarray(est), window=window)[0]


@pytest.fixture(scope="module")
def clean():
    return fixture("g3_100bpm_3tums_clean")


def test_any_block_size_gives_exactly_the_same_onsets(clean):
    x, _ = clean
    x = x[: 16000 * 4]
    whole = OnsetDetector().run([Block(0, x)])
    assert len(whole) >= 6
    for size in (1, 37, 160, 999, 4096):
        if size == 1:
            part = x[: 16000 * 2]
            ref = OnsetDetector().run([Block(0, part)])
            got = OnsetDetector().run(blocks_from_array(part, blocksize=1))
        else:
            ref = whole
            got = OnsetDetector().run(blocks_from_array(x, blocksize=size))
        assert got == ref, f"blocks of {size} samples changed the onsets"


def test_faint_rises_are_extra_and_do_not_depend_on_the_block_size():
    """``faint=True`` adds the faint rises (for the chant tracker) and changes no onset;
    they come out the same in any block size, as the onsets do."""
    x, _ = fixture("g2_140bpm_2tums_snr5_white")
    plain = OnsetDetector().run(blocks_from_array(x, blocksize=1600))
    both = OnsetDetector(faint=True).run(blocks_from_array(x, blocksize=1600))
    assert [o for o in both if o.kind != FAINT] == plain
    faint = [o for o in both if o.kind == FAINT]
    assert faint and all(o.detected_t >= o.t for o in faint)
    for size in (160, 999, 4096):
        assert OnsetDetector(faint=True).run(blocks_from_array(x, blocksize=size)) == both, size


def test_irregular_blocks_give_the_same_onsets(clean):
    x, _ = clean
    x = x[: 16000 * 3]
    rng = np.random.default_rng(0)
    det = OnsetDetector()
    got, i = [], 0
    while i < len(x):
        n = int(rng.integers(1, 3000))
        got += det.process(Block(i, x[i : i + n]))
        i += n
    got += det.flush()
    assert got == OnsetDetector().run([Block(0, x)])


def test_blocks_after_a_silent_lead_in_give_the_same_onsets():
    """Sound after digital silence is followed two ways for a few frames (the
    room coming in, or a syllable out of silence): that too is the same for any
    block size, and the host's mute windows stay the ones it keeps adding to."""
    x, _ = fixture("g2_150bpm_3tums_snr10")
    x = np.concatenate([np.zeros(11794, np.float32), x[: 16000 * 3]])
    mute = MuteWindows(tail=0.0)
    whole = OnsetDetector(mute=mute).run([Block(0, x)])
    assert len(whole) >= 6
    for size in (1, 37, 160, 999):
        det = OnsetDetector(mute=mute)
        part = x[: 16000] if size == 1 else x
        ref = whole if size != 1 else OnsetDetector(mute=mute).run([Block(0, part)])
        assert det.run(blocks_from_array(part, blocksize=size)) == ref, size
        assert det.mute is mute
    det = OnsetDetector(mute=mute)
    det.process(Block(0, x[: 16000 * 2]))
    mute.add(2.3, 3.0)  # the host starts speaking after the opening
    rest = det.process(Block(32000, x[16000 * 2 :])) + det.flush()
    assert rest and all(not (2.3 <= o.t < 3.0) for o in rest)


def test_onsets_are_handed_out_when_decided_after_the_room_is_learnt_again():
    """Silence, a room, a chant, three times over, fed live in 100 ms blocks:
    each onset comes out in the block that holds its ``detected_t``. (When the
    room was learnt anew, the kept copy had missed the samples counted during
    its opening: every later onset came out that much later than decided, a
    tenth of a second more at each silence, until the tracker lost the song.)"""
    x, _ = fixture("g4_70bpm_3tums_snr30")
    rng = np.random.default_rng(4)
    parts = []
    for _ in range(3):
        parts += [np.zeros(16700, np.float32),  # off the block grid
                  (0.003 * rng.standard_normal(3 * 16000)).astype(np.float32), x[: 16000 * 6]]
    tape = np.concatenate(parts)
    det = OnsetDetector()
    late = []
    count = 0
    for b in blocks_from_array(tape, blocksize=1600):
        for o in det.process(b):
            count += 1
            if not o.detected_t <= b.end / 16000 < o.detected_t + 0.1 + 1e-9:
                late.append((round(o.t, 3), round(o.detected_t, 3), b.end / 16000))
    assert count >= 3 * 8
    assert late == []


def test_a_group_syllable_is_one_onset_at_its_start(clean):
    x, truth = clean
    onsets = detect_onsets(x)
    est = np.array([o.t for o in onsets])
    for ref in truth["onsets"]:  # a syllable, or a slap with the syllable it hides
        near = est[np.abs(est - ref["t"]) < 0.08]
        assert len(near) == 1, f"the onset at {ref['t']:.3f} s gave {len(near)} onsets"
        assert abs(near[0] - ref["t"]) < 0.01
    assert f_measure([o["t"] for o in truth["onsets"]], est) >= 0.95


def test_onsets_are_stamped_to_the_millisecond_on_a_clean_chant(clean):
    x, truth = clean
    est = np.array([o.t for o in detect_onsets(x)])
    errors = [est[np.argmin(np.abs(est - s["t"]))] - s["t"] for s in truth["onsets"]]
    assert np.median(np.abs(errors)) <= 0.005


def syllable_errors_ms(name: str) -> np.ndarray:
    """Each sung syllable's nearest onset less its true time (ms), for the 90% or more found within 50 ms."""
    x, truth = fixture(name)
    est = np.array([o.t for o in detect_onsets(x)])
    errors = np.array([est[np.argmin(np.abs(est - s["t"]))] - s["t"] for s in truth["syllables"]])
    errors = errors[np.abs(errors) < 0.05] * 1000
    assert len(errors) >= 0.9 * len(truth["syllables"])
    return errors


@pytest.mark.parametrize("name,stat,most_ms", [
    ("g3_110bpm_reversed_snr15", "median", 12.0),  # white noise, 15 dB: 16 ms late at the 4 dB crossing
    ("g4_85bpm_slaps_near_snr15", "p90 abs", 15.0),  # white noise, 15 dB: 21 ms
])
def test_in_steady_noise_a_syllable_is_stamped_where_its_rise_leaves_the_noise(name, stat, most_ms):
    """The knee of a slow rise, not its crossing 4 dB over the noise."""
    errors = syllable_errors_ms(name)
    value = np.median(errors) if stat == "median" else np.percentile(np.abs(errors), 90)
    assert value <= most_ms


def test_a_vowel_rising_slowly_out_of_loud_noise_is_stamped_at_its_knee():
    """In loud white noise a Tum's "T" is buried and its vowel rises slowly:
    it never stood 4 dB over the 10 ms before it, so no crossing was found
    and the onset kept the time of the frame that decided it. The knee of
    that rise is still where it began.

    Committed white noise at 15 dB: the median error was 8.5 ms (the
    Tums 16 to 31 ms late). Held-out seed 1, chants 12 and 13 (white noise
    at 10 dB): a Tum stamped 51 and 57 ms after its first singer, past the
    50 ms within which an onset is matched; 42 and 40 ms now (the vowel's
    own start: the "T" under it is no more than 1 dB over the noise).
    """
    from tests.chant_onsets import generator

    assert np.median(syllable_errors_ms("g3_110bpm_reversed_snr15")) <= 5.0
    gen = generator()
    for k, tum in ((12, 1.411), (13, 1.035)):
        spec = gen.held_out_specs(1)[k]
        assert spec.noise == "white" and spec.snr_db == 10
        audio, truth = gen.render(spec)
        sung = min((s["t"] for s in truth["syllables"] if s["text"] == "Tum"), key=lambda t: abs(t - tum))
        est = np.array([o.t for o in detect_onsets(audio)])
        nearest = est[np.argmin(np.abs(est - sung))]
        assert 0.0 <= nearest - sung < 0.045, (k, nearest - sung)


def test_a_stop_consonant_rising_a_few_times_its_noise_is_the_syllables_start():
    """Over pink noise at 10 dB the "T" of a Tum and the "D" of a Drak lift
    the consonant bands 3 to 4.5 times their noise level 30 to 55 ms before
    the vowel. Asked for 5 times, the look back over the closure passed them
    by and the syllable was stamped on its vowel (committed pink noise at 10
    dB: the first Tum 45 ms late, a Drak 57 ms, past the 50 ms an onset is
    matched in).
    """
    x, truth = fixture("g3_90bpm_1tum_snr10")
    assert truth["noise"] == "pink" and truth["snr_db"] == 10

    def error_ms(t_true: float, **params: float) -> float:
        est = np.array([o.t for o in detect_onsets(x, params=OnsetParams(**params))])
        return 1000 * (est[np.argmin(np.abs(est - t_true))] - t_true)

    tum, drak = truth["syllables"][2], truth["syllables"][12]
    assert (tum["text"], drak["text"]) == ("Tum", "Drak")
    assert abs(error_ms(tum["t"])) <= 20 and abs(error_ms(drak["t"])) <= 10
    assert error_ms(tum["t"], burst_mult=5.0) > 40 and error_ms(drak["t"], burst_mult=5.0) > 50


def test_a_burst_60_ms_before_its_vowel_starts_the_syllable_when_it_rises_clear_of_the_noise():
    """Real voices (seed 5, chant 0, clean): a spoken "t" or "k" comes up to 60 ms
    before its vowel. The look back over the closure stopped at 50 ms, so the vowel
    was stamped on its own, and as it came 100 ms after the syllable's first onset
    it was a second one: 8 Tums heard twice. A burst 60 ms back counts when it rises
    5 times its noise level (3.5 within 50 ms): at 3.5 there, the hiss 5 dB under the
    committed white-noise chant was taken for a Tum's burst, 54 ms early."""
    from tests.chant_onsets import generator

    gen = generator()
    spec = gen.real_voice_specs(5)[0]
    assert spec.snr_db is None  # clean
    audio, truth = gen.render(spec)

    def heard_twice(**params) -> int:
        voices = [o.t for o in detect_onsets(audio, params=OnsetParams(**params)) if o.kind == VOICE]
        return sum(sum(-0.01 <= t - s["t"] < 0.15 for t in voices) > 1 for s in truth["syllables"])

    assert heard_twice(burst_gap=5) >= 8  # the fault
    assert heard_twice() <= heard_twice(burst_gap=5) // 2

    x, white = fixture("g2_140bpm_2tums_snr5_white")

    def earliest_ms(**params) -> float:
        est = np.array([o.t for o in detect_onsets(x, params=OnsetParams(**params))])
        return min(1000 * (est[np.argmin(np.abs(est - s["t"]))] - s["t"]) for s in white["syllables"])

    assert earliest_ms() > -20
    assert earliest_ms(burst_far_mult=3.5) < -40  # what the higher level keeps out


def test_a_bump_of_chatter_before_a_syllable_is_not_its_start():
    """Babble under the chant: a rise that falls back before the syllable is heard is not its start.

    Taken for it, it stamped a tenth of the syllables 27 ms or more off
    (most of them early); the first rise that lasts, 19 ms.
    """
    errors = syllable_errors_ms("g3_95bpm_whirlpool_snr20")
    assert np.percentile(np.abs(errors), 90) <= 22.0


def test_the_knee_of_a_rise_is_found_only_in_a_slow_rise():
    rng = np.random.default_rng(3)
    flat = -1.5 + 0.05 * rng.standard_normal(80)  # bels, 1 ms apart
    slow = flat.copy()
    slow[40:] += 0.04 * np.arange(40)  # 0.4 dB per ms from 40 ms
    k0 = 40 + int(np.ceil(0.4 / 0.04))  # where it is 4 dB over the floor
    knee = OnsetDetector._knee(slow, k0, 20, 0.1)
    assert 37 <= knee <= 43
    steep = flat.copy()
    steep[40:] += np.minimum(1.5 * np.arange(40), 6.0)  # 15 dB per ms
    assert OnsetDetector._knee(steep, 41, 20, 0.1) == 41


@pytest.mark.parametrize("name,floor", [
    ("g4_70bpm_3tums_snr30", 0.95),
    ("g4_105bpm_change_3_2_1_snr20", 0.9),
    ("g3_100bpm_drift_snr15", 0.9),
    ("g3_80bpm_3tums_snr5", 0.85),
])
def test_noisy_group_chants_are_found(name, floor):
    x, truth = fixture(name)
    est = [o.t for o in detect_onsets(x)]
    assert f_measure([o["t"] for o in truth["onsets"]], est) >= floor


def test_better_than_librosa_on_a_group_chant():
    import librosa

    x, truth = fixture("g4_105bpm_change_3_2_1_snr20")
    ref = [o["t"] for o in truth["onsets"]]
    ours = f_measure(ref, [o.t for o in detect_onsets(x)])
    theirs = f_measure(ref, librosa.onset.onset_detect(y=x, sr=16000, units="time"))
    assert ours > theirs + 0.2


def test_slaps_are_told_from_voices():
    x, truth = fixture("g4_130bpm_slaps_snr10")
    onsets = detect_onsets(x)
    slaps = [s["t"] for s in truth["slaps"]]
    found = [o for o in onsets if o.kind == SLAP]
    hits = sum(any(abs(o.t - s) < 0.05 for o in found) for s in slaps)
    assert hits >= len(slaps) - 1
    assert len(found) <= len(slaps) + 1
    voices = [o for o in onsets if o.kind == VOICE]
    assert len(voices) > 4 * len(found)


def test_mute_windows_drop_the_hosts_own_voice(clean):
    x, _ = clean
    all_onsets = detect_onsets(x)
    mute = MuteWindows(tail=0.0)
    mute.add(2.0, 5.0)
    kept = detect_onsets(x, mute=mute)
    assert all(not (2.0 <= o.t < 5.0) for o in kept)
    # The same onsets outside the window (their strength may differ: the
    # muted stretch does not teach the detector how loud the room is).
    assert [(o.t, o.kind) for o in all_onsets if not (2.0 <= o.t < 5.0)] == [(o.t, o.kind) for o in kept]
    assert len(kept) < len(all_onsets)


def test_the_hosts_loud_voice_does_not_deafen_the_detector(clean):
    """The host's speaker by the microphone is 26 dB louder than a quiet table.

    Muted, the voice must not set what counts as loud in the room (the
    chant's rises under it would not count): every syllable of the chant
    that follows it is found, as without the voice.
    """
    from voicehost.speech.voice import synthesize

    x, truth = clean
    x = x * 0.1
    voice = synthesize("Warm up twice, then play on the last Tum.", rate=16000)
    voice = voice / np.max(np.abs(voice))
    lead = len(voice) + 1600
    noise = np.random.default_rng(0).normal(0, 1e-4, lead + len(x))
    table = np.concatenate([np.zeros(lead), x]) + noise
    with_voice = table.copy()
    with_voice[: len(voice)] += voice
    mute = MuteWindows()
    mute.add(0.0, len(voice) / 16000)
    ref = np.array([o["t"] for o in truth["onsets"]]) + lead / 16000
    alone = [o.t for o in detect_onsets(table)]
    heard = [o.t for o in detect_onsets(with_voice, mute=mute)]
    assert f_measure(ref, alone) == 1.0
    assert f_measure(ref, heard) == 1.0
    assert np.allclose(heard, alone, atol=0.002)


def test_decisions_come_within_the_look_ahead(clean):
    x, _ = clean
    for o in detect_onsets(x):
        assert o.detected_t >= o.t
        if o.kind == VOICE:  # slaps wait a little longer to see their decay
            assert o.detected_t - o.t <= 0.12


def test_real_recording_onsets():
    wav = REAL / "madmom" / "sample.wav"
    ann = REAL / "madmom" / "sample.onsets"
    assert wav.exists(), f"the real recordings are missing: {REAL}"
    ref = [float(line) for line in ann.read_text().split() if not line.startswith("#")
           and line.replace(".", "").isdigit()]
    est = [o.t for o in detect_onsets(read_audio(wav))]
    assert f_measure(ref, est) >= 0.7


def test_silence_and_steady_noise_give_no_onsets():
    """Steady noise may give one onset, in its first 100 ms: a stream's first
    windows hold the zeros before it, and its level rises as they fill (9 of 80
    two-second pink and white noises). A longer warm-up at a stream's start
    removes it (1 of 80) but moved the tracker on a talk sequence (stop 34's
    note)."""
    rng = np.random.default_rng(1)
    assert detect_onsets(np.zeros(16000 * 2, dtype=np.float32)) == []
    noise = (0.05 * rng.standard_normal(16000 * 4)).astype(np.float32)
    got = detect_onsets(noise)
    assert len(got) <= 1 and all(o.t < 0.1 for o in got)


@pytest.mark.parametrize("blocksize", [1600, 37])
def test_a_recording_that_stops_in_a_sound_has_no_onset_after_its_end(blocksize):
    """The end of the stream is padded with zeros to decide its last frames: a
    tone cut off by the end of its file dropped to them at once, a click, and
    was given an onset at 2.002 s, after the file's last sample."""
    t = np.arange(16000 * 2) / 16000
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    got = detect_onsets(tone, blocksize=blocksize)
    assert all(o.t < 2.0 and o.detected_t <= 2.1 for o in got), got


def test_a_new_note_soon_after_another_is_its_own_onset():
    """Two notes 40 ms apart in the real recording (0.763 and 0.8025 s) are two onsets.

    The refractory interval that makes a group's syllable one onset must not
    merge a new note that comes after the first one's attack died away.
    """
    est = [o.t for o in detect_onsets(read_audio(REAL / "madmom" / "sample.wav"))]
    for ref in (0.7630, 0.8025):
        assert min(abs(t - ref) for t in est) < 0.02
    ann = REAL / "madmom" / "sample.onsets"
    ref = [float(line) for line in ann.read_text().split() if not line.startswith("#")
           and line.replace(".", "").isdigit()]
    assert f_measure(ref, est) >= 0.97


def test_a_click_in_digital_silence_is_an_onset():
    """A short sound between stretches of digital silence is heard, not taken
    for the room coming in (which would be learnt as the new noise floor)."""
    rate = 16000
    x = np.zeros(rate * 3, dtype=np.float32)
    rng = np.random.default_rng(0)
    for t in (1.0, 2.0):
        i = int(t * rate)
        x[i : i + 80] = 0.8 * rng.standard_normal(80) * np.exp(-np.arange(80) / 20)
    got = detect_onsets(x)
    assert [round(o.t, 2) for o in got] == [1.0, 2.0]


def _early(audio: np.ndarray, truth: dict, **params) -> int:
    """Syllables with no onset near them but one 30 to 120 ms before: stamped on the sound before."""
    from voicehost.audio.onsets import OnsetParams

    det = OnsetDetector(params=OnsetParams(**params))
    est = np.array([o.t for o in det.run(blocks_from_array(audio, 16000, 1600))])
    return sum(1 for o in truth["onsets"]
               if not np.any(np.abs(est - o["t"]) < 0.03)
               and np.any((est - o["t"] > -0.12) & (est - o["t"] < -0.03)))


def test_a_formant_gliding_in_the_last_vowel_is_no_burst():
    """Clean held-out chants (seed 1, noise left out): the vowel of "kar" glides
    into its /r/, lifting the upper bands a formant moves into while lowering
    those it leaves. Taken for the burst of the next syllable's consonant,
    that syllable was stamped 60 to 100 ms early, on the sound before it. (A rise
    that is itself a burst now has no burst looked for before it either, which
    spares most of these syllables too: the glide guard is measured without it.)"""
    from dataclasses import replace

    from tests.chant_onsets import generator

    gen = generator()
    rendered = [gen.render(replace(gen.held_out_specs(1)[k], snr_db=None)) for k in (2, 7, 9)]
    # Measured at the burst level the guard was made for (5 times the noise;
    # at 3.5 the glide fools the look 7 times, the guard leaves 4).
    was = {"burst_itself": 2.0, "burst_mult": 5.0}
    before = sum(_early(a, t, burst_net=float("-inf"), **was) for a, t in rendered)
    guarded = sum(_early(a, t, burst_net=0.0, **was) for a, t in rendered)
    now = sum(_early(a, t) for a, t in rendered)
    # What the glide did, so the test shows the fault it guards: 7 with the
    # energy floor fixed at 1e-7, 4 with it relative to the chant (these
    # renders are not at the committed chants' level).
    assert before >= 4
    assert guarded < before and guarded <= 3, (before, guarded)  # 3: other faults, left for now
    assert now <= guarded, (guarded, now)


def _strays_and_found(x: np.ndarray, truth: dict, **params) -> tuple[int, int]:
    """Onsets during or after the chant far (> 120 ms) from any sung syllable, and syllables found."""
    import mir_eval

    from voicehost.audio.onsets import OnsetParams

    ref = np.array([o["t"] for o in truth["onsets"]])
    est = np.array([o.t for o in detect_onsets(x, params=OnsetParams(**params))])
    strays = sum(1 for e in est if e > ref[0] - 0.05 and np.min(np.abs(ref - e)) > 0.12)
    return strays, len(mir_eval.util.match_events(ref, est, 0.05))


def test_chatter_under_the_chant_is_no_onset():
    """Held-out chants (seed 1) with people chatting 10 to 20 dB under the
    singing: their syllables rise well past the noise floor and, between
    the chant's, as strongly as a quiet "kar". Most of a sung syllable's
    rise comes within 8 dB of the chant's own loud level, the chatter's
    stays under it. Without that rule these three chants had 23 onsets
    between the sung syllables or after the song."""
    from chant_onsets import generator
    from voicehost.audio.onsets import OnsetParams

    gen = generator()
    specs = [gen.held_out_specs(1)[k] for k in (0, 1, 5)]
    assert all(spec.noise == "babble" for spec in specs)
    rendered = [gen.render(spec) for spec in specs]
    before = [_strays_and_found(x, t, chant_share=0.0) for x, t in rendered]
    after = [_strays_and_found(x, t) for x, t in rendered]
    assert sum(s for s, _ in before) >= 18  # the fault this guards (23)
    assert sum(s for s, _ in after) <= 12, (before, after)  # 9 now
    assert sum(f for _, f in after) >= sum(f for _, f in before) - 2  # the chant is still heard
    # Clean real voices (real_voice_specs, seeds 2 and 3): a syllable rises
    # out of near silence, its first frames far under the chant's level.
    # Asked there too, the rule lost "Drak"s and, with them, every bar.
    for seed in (2, 3):
        spec = gen.real_voice_specs(seed)[0]
        assert spec.snr_db is None  # clean
        x, t = gen.render(spec)
        off, on = (detect_onsets(x, params=OnsetParams(**kw)) for kw in ({"chant_share": 0.0}, {}))
        assert [o.t for o in on] == [o.t for o in off], seed


def test_a_card_slapped_in_chatter_is_stamped_at_its_click():
    """Held-out seed 7, chant 5 (five singers, one Tum at 107 BPM, babble at 20 dB): a
    card slapped on the fourth last Tum triggered an onset whose start was looked for
    as a stop consonant's, 20 to 50 ms back: a consonant of chatter was there, and the
    slap went out as a sung onset 91 ms early (the last Tum with it). A rise that is
    itself a burst or a click (mostly in the upper bands) has no burst before it."""
    from tests.chant_onsets import generator

    gen = generator()
    spec = gen.held_out_specs(7)[5]
    assert spec.noise == "babble" and spec.slaps == [(1, 0.0), (4, 0.0)]
    audio, truth = gen.render(spec)
    onsets = [o for o in detect_onsets(audio, faint=True) if o.kind != FAINT]
    slap = [o["t"] for o in truth["onsets"] if o["kind"] == "slap"][-1]
    nearest = min(onsets, key=lambda o: abs(o.t - slap))
    assert abs(nearest.t - slap) < 0.015, (nearest, slap)
    assert not [o for o in onsets if 0.03 < slap - o.t < 0.15]


def _quiet_echoing_room(chant: int):
    """Held-out seed 1's chant sung in a quiet living room (echo dying 60 dB in half
    a second, noise 80 dB under it): its samples, and what the detector hears.

    ``heard(**params)`` gives the indices of the truth onsets the detector with
    those ``OnsetParams`` matched (mir_eval, 50 ms).
    """
    import mir_eval
    from dataclasses import replace

    from chant_onsets import generator

    gen = generator()
    x, truth = gen.render(replace(gen.held_out_specs(1)[chant], rt60=0.5, snr_db=80))
    ref = np.array([o["t"] for o in truth["onsets"]])

    def heard(**params: float) -> set[int]:
        est = np.array([o.t for o in detect_onsets(x.astype(np.float32), 16000,
                                                   params=OnsetParams(**params))])
        return {i for i, _ in mir_eval.util.match_events(ref, est, 0.05)}

    return ref, heard


def test_a_quiet_echoing_room_is_heard_from_the_first_bar():
    """A quiet living room: the chant in an echo dying 60 dB in half a second,
    its noise 80 dB under it (held-out seed 1, chant 0). The near-silent room
    before the song sets the energy floor that far down, and each band's
    fluctuation was learnt on its faint noise: the Tum that rises over the echo
    of "kar" went unheard in the first two bars (1.156 and 2.829 s) until the
    fluctuation faded. Learnt anew when the floor jumps with the song, both
    are heard."""
    ref, heard = _quiet_echoing_room(0)
    tums = [i for i, t in enumerate(ref) if abs(t - 1.156) < 0.002 or abs(t - 2.829) < 0.002]
    assert len(tums) == 2
    assert set(tums) <= heard()
    # The fluctuation kept: both lost (under the threshold of a noisy room; the
    # quiet room's lower one hears them even so, see the test below).
    assert not set(tums) & heard(dev_relearn=99.0, peak_cap_quiet=OnsetParams().peak_cap)


def test_a_syllable_rising_slowly_over_the_echo_of_a_quiet_room_is_heard():
    """A quiet living room (held-out seed 1, chant 2; echo dying 60 dB in half a
    second, noise 80 dB under the chant): the first "kar" (0.853 s) rises over the
    echo of "Drak", a Tum (5.518 s) over that of "kar", each a few frames of small
    rises. With the onset-share threshold capped at six times the absolute one,
    as in a noisy room, both went unheard."""
    ref, heard = _quiet_echoing_room(2)
    slow = [i for i, t in enumerate(ref) if abs(t - 0.853) < 0.002 or abs(t - 5.518) < 0.002]
    assert len(slow) == 2
    now = heard()
    assert set(slow) <= now and len(now) == len(ref)
    assert not set(slow) & heard(peak_cap_quiet=OnsetParams().peak_cap)


def test_the_quiet_rooms_threshold_leaves_a_noisy_room_alone():
    """Where the room's floor comes within 30 dB of the chant (babble 10 dB under it),
    the onset-share threshold keeps its cap: chatter's rises stay out."""
    x = read_audio(CHANT / "g4_130bpm_slaps_snr10.wav")
    assert json.loads((CHANT / "g4_130bpm_slaps_snr10.json").read_text())["noise"] == "babble"
    base = detect_onsets(x, 16000, faint=True)
    low = detect_onsets(x, 16000, faint=True, params=OnsetParams(peak_cap_quiet=1.0))
    assert [(o.t, o.kind) for o in low] == [(o.t, o.kind) for o in base]
    # Applied there, it changes what is heard: the rule is what keeps it out.
    everywhere = OnsetParams(peak_cap=1.0, peak_cap_quiet=1.0)
    assert [o.t for o in detect_onsets(x, 16000, faint=True, params=everywhere)] != \
        [o.t for o in base]


def test_onsets_leave_in_time_order_when_the_song_begins_in_a_near_silent_room(tmp_path):
    """A quiet echoing room (held-out seed 2, chant 5, noise 80 dB under the chant,
    written as 16-bit PCM): a faint rise of the room just before the first "Drak"
    left the detector disarmed, the "Drak"'s sharp start was heard as a card
    inside that sound (0.5991 s) and went out before the syllable's own onset
    (0.598 s), decided in the same frame: out of order, and the benchmark
    stopped on it. The syllable goes out, as a voice, and nothing before it."""
    from dataclasses import replace

    import soundfile as sf

    from chant_onsets import generator

    gen = generator()
    x, truth = gen.render(replace(gen.held_out_specs(2)[5], rt60=0.5, snr_db=80))
    sf.write(tmp_path / "room.wav", x, 16000, subtype="PCM_16")
    onsets = detect_onsets(read_audio(tmp_path / "room.wav"), 16000, faint=True)
    times = [o.t for o in onsets]
    assert times == sorted(times)
    first = truth["onsets"][0]["t"]
    near = [o for o in onsets if abs(o.t - first) < 0.05]
    assert [o.kind for o in near] == [VOICE] and abs(near[0].t - first) < 0.005


def test_a_quiet_microphone_hears_the_chant_as_a_loud_one():
    """The chants peak at -1 dBFS; a laptop's microphone across the table records
    them 30 dB quieter. With the energy floor fixed (1e-7 in each band), this babble
    chant gave 28 onsets instead of 22 and 9 of those 22 moved by 5 to 500 ms;
    relative to the chant, only rounding differs."""
    x, _ = fixture("g4_130bpm_slaps_snr10")
    loud = detect_onsets(x, 16000)
    quiet = detect_onsets(x * 10 ** (-30 / 20), 16000)
    assert abs(len(quiet) - len(loud)) <= 1
    same = [o for o in loud
            if any(abs(q.t - o.t) <= 0.0011 and q.kind == o.kind for q in quiet)]
    assert len(same) >= 0.95 * len(loud)
