"""The onset benchmark measures the last Tums as the host would see them.

The host tells the tracker each new song when a play is declared; a
benchmark that told it only the first song would look for the wrong last Tum
after every change (a Whirlpool Island fixture lost half its bars that way).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.onsets import DECLARE_AFTER, _last_tum_errors, _song_changes  # noqa: E402

CHANT = ROOT / "audio_fixtures" / "chant"


def _truth(name: str) -> dict:
    return json.loads((CHANT / f"{name}.json").read_text())


def test_song_changes_follow_the_bars():
    whirl = _truth("g3_95bpm_whirlpool_snr20")
    bars = whirl["bars"]
    assert _song_changes(whirl) == [(pytest.approx(bars[1]["last_tum"] + DECLARE_AFTER), 3, True)]
    change = _truth("g4_105bpm_change_3_2_1_snr20")
    assert [(tums, rev) for _, tums, rev in _song_changes(change)] == [(2, False), (1, False)]
    assert _song_changes(_truth("g3_100bpm_3tums_clean")) == []


def test_whirlpool_island_bars_are_all_located():
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.audio.onsets import OnsetDetector
    from voicehost.audio.sources import read_audio

    name = "g3_95bpm_whirlpool_snr20"
    x = read_audio(CHANT / f"{name}.wav")
    onsets = OnsetDetector(rate=16000).run(blocks_from_array(x, 16000, 1600))
    errors, bars, judged = _last_tum_errors(onsets, _truth(name), len(x) / 16000)
    assert bars == 4
    # Every bar's last Tum, the reversed ones ("Tum Tum Tum Drakkar") included,
    # within the benchmark's 150 ms; told only the first song, 2 of 4.
    assert len(errors) == 4
    # Its two plays (cards slapped on the last Tum, declared 120 ms later) are
    # judged on the beat, as the judge scores them, at the normal and hard windows.
    none = {"no song": 0, "key press": 0, "card": 0}
    assert judged == {"normal": [2, 2, none], "hard": [2, 2, none]}


def test_aubio_runs_as_a_live_stream_would_feed_it():
    """aubio, the causal reference, hears the chant hop by hop: it hands each onset out
    after it sounds, on a hop's end, and what it said never depends on what came after."""
    import numpy as np

    from bench._metrics import f_measure
    from bench.onsets import AUBIO, _aubio
    from voicehost.audio.sources import read_audio

    name = "g3_100bpm_3tums_clean"
    x = read_audio(CHANT / f"{name}.wav")
    times, handed, cpu = _aubio(x)
    ref = np.array([o["t"] for o in _truth(name)["onsets"]])
    assert f_measure(ref, times)[2] == 1.0  # every syllable of a clean chant (and some twice)
    hop = AUBIO[2] / 16000
    assert np.all(handed > times) and np.allclose(np.round(handed / hop) * hop, handed)
    assert 0.02 < np.median(handed - times) < 0.1 and cpu > 0
    half = len(x) // 2
    t_half, h_half, _ = _aubio(x[:half])
    assert len(t_half) == int(np.sum(handed <= half / 16000)) > 5
    assert np.allclose(t_half, times[: len(t_half)]) and np.allclose(h_half, handed[: len(h_half)])


def test_held_out_chants_are_new_varied_and_repeatable(tmp_path):
    """``bench onsets --held-out SEED``: chants the detector was never tuned on, the same for a seed."""
    from bench._metrics import held_out_fixtures

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = held_out_fixtures(7, tmp_path / "a")
    b = held_out_fixtures(7, tmp_path / "b")
    assert [f.name for f in a] == [f.name for f in b]
    assert all((f.onsets == g.onsets).all() for f, g in zip(a, b))
    committed = {p.stem for p in CHANT.glob("*.json")}
    assert not committed & {f.name for f in a}
    assert {f.truth["noise"] for f in a} == {"babble", "pink", "white"}
    assert len({f.truth["bpm"] for f in a}) >= 8
    assert any(f.truth["reversed_from_bar"] is not None for f in a)
    for f in a:
        assert f.wav.is_file() and len(f.truth["bars"]) == 5 and len(f.onsets) > 10
        assert [s["bar"] for s in f.truth["slaps"]] == sorted({s["bar"] for s in f.truth["slaps"]})


def test_a_room_goes_with_a_rendered_set(capsys):
    """``--room`` reverberates chants rendered now; the committed fixtures stay dry."""
    from bench.onsets import main

    assert main(["--room", "0.5"]) == 2
    assert "--held-out" in capsys.readouterr().err
    assert main(["--held-out", "1", "--room", "40"]) == 2
    assert main(["--held-out", "1", "--drr", "6"]) == 2  # a tail needs a room
    assert main(["--snr", "40"]) == 2  # the committed fixtures keep their own noise
    assert main(["--real-voices", "1", "--snr", "300"]) == 2
    assert main(["--bpm", "180"]) == 2  # the committed fixtures keep their own tempo
    assert main(["--held-out", "1", "--bpm", "240"]) == 2  # beyond the tracker's range
    assert main(["--committed", "--held-out", "1", "--bpm", "180"]) == 2


def test_a_rendered_set_in_another_room_says_so(tmp_path):
    """``--snr`` and ``--drr`` change every chant, and its name tells the noise it is in now."""
    from bench._metrics import held_out_fixtures

    fx = held_out_fixtures(3, tmp_path, snr_db=40, rt60=0.4, drr_db=6)
    assert len(fx) == 16
    for f in fx:
        assert f.truth["snr_db"] == 40 and f.truth["rt60"] == 0.4 and f.truth["drr_db"] == 6
        assert f"{f.truth['noise']}40_" in f.name


def test_a_rendered_set_in_music_says_so(tmp_path):
    """``--noise music``: every chant over a drum kit and a bass line, which keep
    a steady tempo of their own (90 to 140 BPM), and the name says so."""
    from bench._metrics import fixture_generator, held_out_fixtures
    from bench.onsets import main
    from voicehost.audio.onsets import detect_onsets

    assert main(["--noise", "music"]) == 2  # the committed fixtures keep their own noise
    assert main(["--committed", "--held-out", "1", "--noise", "music"]) == 2
    fx = held_out_fixtures(5, tmp_path, noise="music", snr_db=20)
    assert len(fx) == 16
    for f in fx:
        assert f.truth["noise"] == "music" and f.truth["snr_db"] == 20 and "_music20_" in f.name
    music = fixture_generator().music(16000 * 8, np.random.default_rng(1))
    hits = np.array([o.t for o in detect_onsets((0.3 * music / np.abs(music).max()).astype(np.float32))])
    gaps = np.diff(hits)
    half_beat = np.median(gaps)  # a hi-hat on every half beat
    assert 60 / 140 / 2 - 0.01 < half_beat < 60 / 90 / 2 + 0.01
    assert np.mean(np.abs(gaps - half_beat) < 0.02) > 0.8, np.round(gaps, 3)


def test_a_drifting_set_counts_the_tempo_changes_told(tmp_path):
    """``--drift``: every chant speeds up from its first bar to its last, and the
    benchmark's last line says in how many the host told the table so."""
    from bench._metrics import held_out_fixtures
    from bench.onsets import _tempo_line, _tempo_told, heard_by_the_host, main
    from voicehost.audio.onsets import detect_onsets
    from voicehost.audio.sources import read_audio

    assert main(["--drift", "0.15"]) == 2  # the committed fixtures keep their own tempo
    assert main(["--held-out", "1", "--drift", "0.5"]) == 2
    assert main(["--committed", "--held-out", "1", "--drift", "0.1"]) == 2
    fx = held_out_fixtures(2, tmp_path, drift=-0.15)
    assert all(f.truth["drift"] == -0.15 for f in fx)
    rows = []
    for f in fx[:6]:
        x = read_audio(f.wav)
        told = _tempo_told(heard_by_the_host(detect_onsets(x, faint=True), f.truth, len(x) / 16000))
        assert all(new < old for old, new in told)  # slower, as sung
        rows.append({"drift": f.truth["drift"], "ours": {"tempo_told": told}})
    assert sum(bool(r["ours"]["tempo_told"]) for r in rows) >= 2
    rows.append({"drift": 0.0, "ours": {"tempo_told": []}})
    n = sum(bool(r["ours"]["tempo_told"]) for r in rows)
    line = _tempo_line(rows)
    assert f"in {n} of the 6 chants that drift (each time the right way in {n})" in line
    assert "in 0 of the 1 chants that keep one tempo" in line


def test_a_rendered_set_at_another_tempo_says_so(tmp_path):
    """``--bpm`` sings every chant at one tempo (beats that far apart, as the first
    singer starts them) and names it so; their own tempos are 70 to 130."""
    from bench._metrics import held_out_fixtures

    fx = held_out_fixtures(2, tmp_path, real_voices=True, bpm=190)
    assert len(fx) == 8
    for f in fx:
        assert f.truth["bpm"] == 190 and "_190bpm_" in f.name
        beats = np.concatenate([np.diff(b["beats"]) for b in f.truth["bars"]])
        assert abs(np.median(beats) - 60 / 190) < 0.005


def test_talk_counts_the_bars_followed_where_no_one_sings(capsys):
    """``--talk``: real spoken digits, no song; every bar the tracker follows is counted
    as false, for each song the host may expect, ours, librosa's and aubio's onsets alike."""
    from bench.onsets import main, print_talk, talk

    r = talk(701, n=1)  # talk with a steady pace: a one-Tum song is followed for bars
    assert r["seeds"] == [701, 701] and 0.2 < r["minutes"] < 0.5
    for who in ("ours", "librosa", "aubio"):
        assert set(r[who]["bars"]) == {1, 2, 3}
        assert r[who]["sequences"] == (sum(r[who]["bars"].values()) > 0)
    assert r["ours"]["bars"][1] > 0
    print_talk(r)
    out = capsys.readouterr().out
    assert "50 real spoken digits (seed 701)" in out and "voicehost" in out and "librosa" in out
    assert "\naubio " in out and "not installed" not in out
    assert main(["--talk", "700", "--held-out", "1"]) == 2  # talk sings no chant


def test_seeds_are_one_a_range_or_a_list():
    import argparse

    from bench.onsets import _seeds

    assert _seeds("7") == [7] and _seeds("1-4") == [1, 2, 3, 4] and _seeds("1,3,5-6") == [1, 3, 5, 6]
    for bad in ("x", "1-", "", "4-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            _seeds(bad)


def test_committed_goes_with_a_rendered_set(capsys):
    from bench.onsets import main

    assert main(["--committed"]) == 2
    assert "--held-out" in capsys.readouterr().err
    assert main(["--committed", "--held-out", "1", "--snr", "10"]) == 2
    assert main(["--talk", "100", "--committed"]) == 2


def test_several_sets_are_scored_as_one_pool(tmp_path, capsys):
    """The README's pooled figures come from one run over several sets; every chant
    is scored once, named with its set (held-out chants are named alike in every seed)."""
    from bench.onsets import main

    out = tmp_path / "rows.json"
    assert main(["--held-out", "3,4", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    chants = [r for r in rows if "bars" in r]
    assert [r["set"] for r in chants] == ["held-out 3"] * 16 + ["held-out 4"] * 16
    assert len({(r["set"], r["name"]) for r in chants}) == 32
    assert {r["name"] for r in chants if r["set"] == "held-out 3"} != \
        {r["name"] for r in chants if r["set"] == "held-out 4"}  # new tempos, new chants
    table = capsys.readouterr().out
    bars = sum(r["bars"] for r in chants)
    found = sum(len(r["ours"]["last_tum"]) for r in chants)
    assert f"{found}/{bars}" in table.split("chant: all")[1].splitlines()[0]
    # aubio's row beside ours, its onsets through the same tracker and judge.
    assert all({"F", "latency_ms", "last_tum", "judged"} <= set(r["aubio"]) for r in chants)
    aubio = table.split("chant: all")[1].splitlines()[1].split()
    found = sum(len(r["aubio"]["last_tum"]) for r in chants)
    assert aubio[0] == "aubio" and f"{found}/{bars}" in aubio and "offline" not in aubio
    assert "aubio's onsets" in table and "not installed" not in table


def test_a_narrowband_copy_keeps_the_chant_and_loses_everything_above_4_khz():
    """``--narrowband``: every detector reads an 8 kHz copy of the recording, its truth the same."""
    import numpy as np
    import soundfile as sf

    from bench._metrics import chant_fixtures
    from bench.onsets import NARROWBAND_RATE, narrowband_copy
    from voicehost.audio.sources import FileSource

    fx = next(f for f in chant_fixtures() if f.name == "g3_100bpm_3tums_clean")
    copy = narrowband_copy(fx)
    assert copy.truth is fx.truth and copy.name == fx.name and copy.wav != fx.wav
    info = sf.info(str(copy.wav))
    assert info.samplerate == NARROWBAND_RATE == 8000
    assert info.duration == pytest.approx(sf.info(str(fx.wav)).duration, abs=1e-3)
    # Read as the host reads it: at 16 kHz, with nothing left above 4 kHz.
    src = FileSource(copy.wav)
    x, y = FileSource(fx.wav).read(), src.read()
    assert any("recorded at 8000 Hz" in n for n in src.notes)

    def upper_share(v: np.ndarray) -> float:
        p = np.abs(np.fft.rfft(v)) ** 2
        f = np.fft.rfftfreq(len(v), 1 / 16000)
        return p[f > 4500].sum() / p.sum()

    assert upper_share(x) > 1e-3 and upper_share(y) < 1e-6


def test_the_last_tums_under_the_hosts_voice_are_counted():
    """``--voice-over``: a committed chant masked 2.6 s from just after its third bar,
    as the host's own voice masks it. With the tracker told it was deaf, the last Tum
    under the voice is located where the table sang it; not told, the song "stopped"."""
    from bench.onsets import _ours, _under_the_voice, _voice_line, heard_by_the_host
    from voicehost.audio.sources import read_audio

    name = "g3_100bpm_3tums_clean"
    x = read_audio(CHANT / f"{name}.wav")
    heard, _ = _ours(x, repeat=1)
    unmasked = heard_by_the_host(heard, _truth(name), len(x) / 16000).tracker
    got = _under_the_voice(x, heard, unmasked, _truth(name), 2.6)
    assert got["under"] == 1 and got["located"] == 1 and got["not_told"] == 0
    assert abs(got["told"][0]) <= 0.02 and got["stops"] == [0, 1]
    line = _voice_line([{"ours": {"voice_over": got}}], 2.6)
    assert "1 of 1 last Tums located (0 with the tracker not told" in line
    # A chant whose song changes is left out, as one whose song was not yet followed.
    change = "g4_105bpm_change_3_2_1_snr20"
    assert _under_the_voice(x, heard, unmasked, _truth(change), 2.6) is None


def test_voice_over_goes_with_chants(capsys):
    from bench.onsets import main

    assert main(["--talk", "100", "--voice-over", "2"]) == 2
    assert main(["--voice-over", "9"]) == 2
    assert "--voice-over" in capsys.readouterr().err
