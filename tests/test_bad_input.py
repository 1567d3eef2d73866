"""Bad input: every odd file, record, plays file, device or model gets a right answer or one clear line.

For each entry of the matrix the ``voicehost`` command either gives a
correct result (for audio: the same bars as the original recording) or
prints exactly one error line and exits 2; never a traceback, never a
wrong answer given with confidence. The files are made in a temporary
folder from a bundled chant; the hour-long one is written in chunks and
analysed in a subprocess whose peak memory is read back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from voicehost.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHANT = ROOT / "audio_fixtures" / "chant" / "g3_100bpm_3tums_clean.wav"
GAMES = ROOT / "audio_fixtures" / "games"
RATE = 16000


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(code: int, err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("voicehost: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w.lower() in lines[0].lower(), (w, lines[0])


@pytest.fixture(scope="module")
def chant() -> np.ndarray:
    from voicehost.audio.sources import read_audio

    return read_audio(CHANT)


@pytest.fixture(scope="module")
def reference(chant) -> list[float]:
    from voicehost.audio.analysis import analyze

    tums = [b.last_tum for b in analyze(chant).tracker.bars if b.last_tum is not None]
    assert len(tums) >= 3
    return tums


def _resample(x: np.ndarray, rate: int) -> np.ndarray:
    import soxr

    return soxr.resample(x, RATE, rate).astype(np.float32)


# name -> (writer(path, chant), tolerance for the last Tums in ms)
def _write(path: Path, x: np.ndarray, rate: int = RATE, subtype: str | None = None,
           fmt: str | None = None, channels: int = 1) -> None:
    data = np.stack([x] * channels, axis=1) if channels > 1 else x
    sf.write(path, data, rate, subtype=subtype, format=fmt)


GOOD_AUDIO = {
    "stereo.wav": (lambda p, x: _write(p, x, channels=2), 5),
    "pcm8.wav": (lambda p, x: _write(p, x, subtype="PCM_U8"), 20),
    "pcm16.wav": (lambda p, x: _write(p, x, subtype="PCM_16"), 5),
    "pcm24.wav": (lambda p, x: _write(p, x, subtype="PCM_24"), 5),
    "float.wav": (lambda p, x: _write(p, x, subtype="FLOAT"), 5),
    # At 8 kHz a card slapped 30 ms before the last Tum loses its click (4 to 8
    # kHz) and passes for the syllable it hid: taken as the Tum, where the full
    # band puts that Tum halfway between the slap and the beat predicted (37 ms).
    "rate8000.wav": (lambda p, x: _write(p, _resample(x, 8000), 8000), 40),
    # Resampled twice (to the file's rate, back to 16 kHz): the onset refinement
    # moves by up to ~25 ms on one bar, inside the hard window (60 ms).
    "rate22050.wav": (lambda p, x: _write(p, _resample(x, 22050), 22050), 30),
    "rate44100.wav": (lambda p, x: _write(p, _resample(x, 44100), 44100), 30),
    "rate48000_stereo24.wav": (lambda p, x: _write(p, _resample(x, 48000), 48000, "PCM_24",
                                                   channels=2), 30),
    "chant.flac": (lambda p, x: _write(p, x, fmt="FLAC", subtype="PCM_16"), 5),
    "clipping.wav": (lambda p, x: _write(p, np.clip(x * 8, -1, 1), subtype="PCM_16"), 20),
    "dc_offset.wav": (lambda p, x: _write(p, np.clip(x + 0.25, -1, 1), subtype="PCM_16"), 10),
}


# Ogg Vorbis is lossy: it adds a faint hiss that follows the signal, and its
# pre-echo spreads each attack up to one short block (16 ms at 16 kHz) into the
# silence before it. Under a room's noise neither shows, and a copy gives the
# recording's bars. The clean chant, sung in digital silence, is another
# matter: the detector's floor settles on that silence, and the hiss and the
# pre-echo between its syllables rise above it (a first onset 23 ms early, an
# extra one at 0.81 s). A slap that hid its Tum may also pass for that Tum in
# the copy: the clean chant's last card, taken in the original as the slap
# (its Tum placed halfway to the beat predicted), is the syllable in the copy,
# 29 ms after where the original puts it; reported a quarter of the way to the
# beat predicted, as every syllable is, 20 ms (until then this case failed).
@pytest.mark.parametrize("fixture", [
    "g2_150bpm_3tums_snr10", "g3_120bpm_stop_snr20", "g3_100bpm_3tums_clean"])
def test_ogg_vorbis_gives_the_same_bars(fixture, tmp_path, capsys):
    from voicehost.audio.analysis import analyze
    from voicehost.audio.sources import read_audio

    x = read_audio(ROOT / "audio_fixtures" / "chant" / f"{fixture}.wav")
    reference = [b.last_tum for b in analyze(x).tracker.bars if b.last_tum is not None]
    path = tmp_path / "chant.ogg"
    _write(path, x, fmt="OGG", subtype="VORBIS")
    code, out, err = run_cli(capsys, "analyze", str(path), "--json")
    assert code == 0, err
    tums = [b["last_tum"] for b in json.loads(out)["bars"] if b["last_tum"] is not None]
    assert len(tums) == len(reference), (tums, reference)
    assert np.max(np.abs(np.array(tums) - reference)) * 1000 <= 25, (tums, reference)


def test_ogg_and_flac_are_read(chant, tmp_path, capsys):
    """Whatever the detector makes of them, both containers are read whole."""
    for name, fmt, subtype in (("c.ogg", "OGG", "VORBIS"), ("c.flac", "FLAC", "PCM_16")):
        path = tmp_path / name
        _write(path, chant, fmt=fmt, subtype=subtype)
        code, out, err = run_cli(capsys, "analyze", str(path), "--json")
        assert code == 0, err
        result = json.loads(out)
        assert result["duration"] == pytest.approx(len(chant) / RATE, abs=0.02)
        assert len(result["bars"]) >= 3


@pytest.mark.parametrize("name", sorted(GOOD_AUDIO))
def test_odd_but_valid_audio_gives_the_same_bars(name, chant, reference, tmp_path, capsys):
    writer, tol_ms = GOOD_AUDIO[name]
    path = tmp_path / name
    writer(path, chant)
    code, out, err = run_cli(capsys, "analyze", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["duration"] == pytest.approx(len(chant) / RATE, abs=0.02)
    tums = [b["last_tum"] for b in result["bars"] if b["last_tum"] is not None]
    assert len(tums) == len(reference), (tums, reference)
    assert np.max(np.abs(np.array(tums) - reference)) * 1000 <= tol_ms, (tums, reference)
    # Only a recording under 16 kHz lacks bands the detector listens to, and says so.
    notes = [line for line in err.splitlines() if line.startswith("voicehost: note: ")]
    assert len(notes) == (name == "rate8000.wav") and len(notes) == len(err.splitlines()), err
    assert all("recorded at 8000 Hz" in n and "16 kHz or more" in n for n in notes), notes


def _nan_wav(path: Path, x: np.ndarray) -> None:
    y = x.copy()
    y[5000:5010] = np.nan
    _write(path, y, subtype="FLOAT")


def _truncated_header(path: Path, x: np.ndarray) -> None:
    full = path.with_suffix(".full.wav")
    _write(full, x, subtype="PCM_16")
    path.write_bytes(full.read_bytes()[:30])


def _truncated_data(path: Path, x: np.ndarray) -> None:
    full = path.with_suffix(".full.wav")
    _write(full, x, subtype="PCM_16")
    path.write_bytes(full.read_bytes()[: 44 + 2 * 16000 * 3])  # header claims more than there is


BAD_AUDIO = {
    "nan_samples.wav": (_nan_wav, ("invalid samples",)),
    "truncated_header.wav": (_truncated_header, ("cannot read it as audio",)),
    "not_audio.wav": (lambda p, x: p.write_text("these are not the samples you are looking for\n"),
                      ("cannot read it as audio",)),
    "random_bytes.ogg": (lambda p, x: p.write_bytes(np.random.default_rng(0).bytes(5000)),
                         ("cannot read it as audio",)),
    "folder.wav": (lambda p, x: p.mkdir(), ("folder",)),
    "missing.wav": (lambda p, x: None, ("no such file",)),
}


@pytest.mark.parametrize("name", sorted(BAD_AUDIO))
def test_broken_audio_is_one_clear_line_and_exit_2(name, chant, tmp_path, capsys):
    writer, words = BAD_AUDIO[name]
    path = tmp_path / name
    writer(path, chant)
    for command in (["analyze", str(path), "--json"],
                    ["judge", str(path), "--plays", str(_plays(tmp_path)), "--json"],
                    ["hear", str(path), "--choices", "red,blue", "--json"],
                    ["drakkar", "--input", str(path), "--players", "ann,bo", "--quiet"]):
        code, out, err = run_cli(capsys, *command)
        assert_one_error_line(code, err, *words)
        if command[0] != "drakkar":  # the host may have greeted the table before the damage
            assert out == ""


def test_a_recording_cut_short_is_read_as_far_as_it_goes(chant, tmp_path, capsys):
    """A WAV whose header promises more data than the file holds: its 3 s are analysed.

    libsndfile reads it without a word; the user is told it was cut off, and
    how long it was meant to be, on one line beside the result.
    """
    path = tmp_path / "cut.wav"
    _truncated_data(path, chant)
    meant = f"{len(chant) / RATE:.1f} s"
    for command in (["analyze", str(path), "--json"],
                    ["judge", str(path), "--plays", str(_plays(tmp_path)), "--json"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 0, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("voicehost: note: "), err
        assert "ends 3.0 s in" in lines[0] and meant in lines[0] and "cut off" in lines[0]
        if command[0] == "analyze":
            assert json.loads(out)["duration"] == pytest.approx(3.0, abs=0.01)
    # The hosts and ``hear`` say it too, whatever else they say.
    for command in (["hear", str(path), "--choices", "red,blue", "--json"],
                    ["drakkar", "--input", str(path), "--players", "ann,bo", "--quiet"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 0, err
        assert sum("cut off" in line for line in err.splitlines()) == 1, err
    # The whole file says nothing.
    full = path.with_suffix(".full.wav")
    code, out, err = run_cli(capsys, "analyze", str(full), "--json")
    assert code == 0 and err == ""


@pytest.mark.parametrize("name, samples", [
    ("empty.wav", np.zeros(0, np.float32)),
    ("50ms.wav", np.full(800, 0.1, np.float32)),
    ("silence.wav", np.zeros(RATE * 5, np.float32)),
    ("faint_noise.wav", (1e-4 * np.random.default_rng(0).standard_normal(RATE * 5)).astype(np.float32)),
])
def test_nothing_to_hear_gives_no_bars_and_no_song_verdicts(name, samples, tmp_path, capsys):
    path = tmp_path / name
    _write(path, samples, subtype="PCM_16")
    code, out, err = run_cli(capsys, "analyze", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["bars"] == [] and result["tempo_bpm"] is None
    assert result["duration"] == pytest.approx(len(samples) / RATE, abs=1e-3)
    code, out, err = run_cli(capsys, "judge", str(path), "--plays", str(_plays(tmp_path)), "--json")
    assert code == 0, err
    assert [p["verdict"] for p in json.loads(out)["plays"]] == ["no_song"]


# A lead-in of digital silence before the song (what a sound card's monitor
# gives before anything plays, a trimmed file) must not change which bars are
# found, whatever follows it: the room's noise (the two noisy fixtures) or a
# syllable straight out of silence (the clean one). The lead-ins are off the
# detector's 10 ms grid too. Found by the loopback tests: the noise floor used
# to settle on the silence, and the step up to the room hid the first bars.
@pytest.mark.parametrize("lead", [1.0, 0.7371])
@pytest.mark.parametrize("fixture", ["g2_150bpm_3tums_snr10", "g3_120bpm_stop_snr20",
                                     "g3_100bpm_3tums_clean"])
def test_silence_before_the_song_changes_no_bar(fixture, lead):
    from voicehost.audio.analysis import analyze
    from voicehost.audio.sources import read_audio

    x = read_audio(ROOT / "audio_fixtures" / "chant" / f"{fixture}.wav")
    truth = json.loads((ROOT / "audio_fixtures" / "chant" / f"{fixture}.json").read_text())
    plain = analyze(x)
    plain_tums = [b.last_tum for b in plain.tracker.bars if b.last_tum is not None]
    n = int(round(lead * RATE))
    led = analyze(np.concatenate([np.zeros(n, np.float32), x]))
    shifted = [b.last_tum - n / RATE for b in led.tracker.bars if b.last_tum is not None]
    assert len(plain_tums) == len(truth["bars"])
    assert len(shifted) == len(plain_tums), (shifted, plain_tums)
    assert np.max(np.abs(np.array(shifted) - plain_tums)) < 0.012
    assert len(led.onsets) == len(plain.onsets)


def _plays(folder: Path) -> Path:
    path = folder / "plays.json"
    path.write_text(json.dumps([{"t": 2.0, "player": "ann", "card": "rower", "slot": 1}]))
    return path


# -- an hour long: memory stays bounded ------------------------------------------------
def _write_hour(path: Path, chant: np.ndarray, minutes: float = 60.0) -> None:
    """Chant, then 20 s of a quiet room, over and over: written a piece at a time."""
    rng = np.random.default_rng(0)
    total = int(minutes * 60 * RATE)
    with sf.SoundFile(path, "w", RATE, 1, "PCM_16") as f:
        n = 0
        while n < total:
            room = (0.001 * rng.standard_normal(RATE * 20)).astype(np.float32)
            piece = np.concatenate([chant, room])[: total - n]
            f.write(piece)
            n += len(piece)


def test_an_hour_long_recording_is_analysed_in_bounded_memory(chant, tmp_path):
    path = tmp_path / "hour.wav"
    _write_hour(path, chant)
    assert sf.info(path).duration == pytest.approx(3600, abs=0.1)
    # A fresh parent whose only child is the CLI: its RUSAGE_CHILDREN peak is the CLI's.
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run([sys.executable, '-m', 'voicehost', 'analyze', sys.argv[1],"
               " '--json'], stdout=open(sys.argv[2], 'w'))\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.exit(done.returncode)\n")
    result_path = tmp_path / "hour.json"
    done = subprocess.run([sys.executable, "-c", measure, str(path), str(result_path)],
                          capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]
    peak_mb = int(done.stdout.strip()) / 1024
    result = json.loads(result_path.read_text())
    print(f"\nan hour of audio: peak RSS {peak_mb:.0f} MB, {len(result['bars'])} bars")
    # The file is 115 MB; reading it whole as float32 at 16 kHz would be 230 MB
    # more. A generous bound that only a leak or a whole-file read breaks.
    assert peak_mb < 400
    # Every repetition's chant was heard (about 3 bars per 30.7 s piece).
    pieces = 3600 / (len(chant) / RATE + 20)
    assert len(result["bars"]) >= 2.5 * int(pieces)


# -- records, plays files, devices, models ------------------------------------------------
BAD_RECORDS = {
    "not_json.json": "{ this is not json",
    "a_list.json": "[1, 2, 3]",
    "no_game.json": json.dumps({"players": ["a", "b"]}),
    "unknown_game.json": json.dumps({"game": "chess"}),
    "drakkar_no_players.json": json.dumps({"game": "drakkar", "events": []}),
    "drakkar_bad_event.json": None,  # made from the bundled record below
    "sailor_bad_votes.json": None,
    "binary.json": b"\x00\xff\xfe\x00garbage",
    "journal_damaged.jsonl": None,
    "empty.json": "",
}


def _bad_record(name: str, folder: Path) -> Path:
    path = folder / name
    content = BAD_RECORDS[name]
    if name == "drakkar_bad_event.json":
        rec = json.loads((ROOT / "audio_fixtures" / "records" / "drakkar_win.json").read_text())
        rec["events"][2] = {"type": "play", "player": "nobody", "card": "kraken", "slot": 9}
        content = json.dumps(rec)
    elif name == "sailor_bad_votes.json":
        rec = json.loads((ROOT / "audio_fixtures" / "records" / "sailor_match.json").read_text())
        rec["rounds"][0]["votes"] = "everyone"
        content = json.dumps(rec)
    elif name == "journal_damaged.jsonl":
        content = ('{"format":"voicehost-journal","version":1,"game":"drakkar"}\n'
                   "not json at all\n" '{"type":"play"}\n')
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.mark.parametrize("name", sorted(BAD_RECORDS))
def test_bad_records_are_one_clear_line(name, tmp_path, capsys):
    path = _bad_record(name, tmp_path)
    code, out, err = run_cli(capsys, "replay", str(path), "--json")
    assert_one_error_line(code, err)


BAD_PLAYS = {
    "not_json": "[{",
    "an_object": json.dumps({"t": 1.0}),
    "no_time": json.dumps([{"player": "ann"}]),
    "negative_time": json.dumps([{"t": -1}]),
    "text_time": json.dumps([{"t": "soon"}]),
    "bool_time": json.dumps([{"t": True}]),
    "bad_slot": json.dumps([{"t": 1.0, "slot": 7}]),
    "bool_slot": json.dumps([{"t": 1.0, "slot": True}]),
    "not_a_play": json.dumps([3]),
    "nan_time": '[{"t": NaN}]',
    "infinite_time": '[{"t": Infinity}]',
}
KNOWN_BAD_PLAYS: set[str] = set()  # plays files the judge still takes (none now)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="load_plays takes t=Infinity"))
    if n in KNOWN_BAD_PLAYS else n for n in sorted(BAD_PLAYS)])
def test_bad_plays_files_are_one_clear_line(name, tmp_path, capsys):
    plays = tmp_path / "plays.json"
    plays.write_text(BAD_PLAYS[name])
    code, out, err = run_cli(capsys, "judge", str(CHANT), "--plays", str(plays), "--json")
    assert_one_error_line(code, err, "plays")


def test_plays_after_the_recording_ends_are_judged_with_a_note(tmp_path, capsys):
    """Times in milliseconds (a common slip) put plays past the recording's
    end: each is judged "no song", as before, and one note now says why."""
    plays = tmp_path / "plays.json"
    plays.write_text(json.dumps([{"t": 2000.0}, {"t": 2.0}, {"t": 4500.0}]))
    code, out, err = run_cli(capsys, "judge", str(CHANT), "--plays", str(plays), "--json")
    assert code == 0, err
    verdicts = [p["verdict"] for p in json.loads(out)["plays"]]
    assert verdicts[0] == verdicts[2] == "no_song" and verdicts[1] != "no_song"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicehost: note: "), err
    assert "2 of 3 plays (play 1, 3)" in lines[0] and "seconds" in lines[0]
    plays.write_text(json.dumps([{"t": 2.0}]))
    code, out, err = run_cli(capsys, "judge", str(CHANT), "--plays", str(plays), "--json")
    assert code == 0 and err == ""


BAD_SONGS = {
    "missing": None,
    "not_json": "[{",
    "an_object": json.dumps({"t": 1.0, "tums": 2}),
    "no_time": json.dumps([{"tums": 2}]),
    "negative_time": json.dumps([{"t": -1, "tums": 2}]),
    "nan_time": '[{"t": NaN, "tums": 2}]',
    "no_tums": json.dumps([{"t": 3.0}]),
    "four_tums": json.dumps([{"t": 3.0, "tums": 4}]),
    "bool_tums": json.dumps([{"t": 3.0, "tums": True}]),
    "text_reversed": json.dumps([{"t": 3.0, "tums": 1, "reversed": "yes"}]),
    "not_a_song": json.dumps([2]),
}


@pytest.mark.parametrize("command", ["judge", "analyze"])
@pytest.mark.parametrize("name", sorted(BAD_SONGS))
def test_bad_songs_files_are_one_clear_line(name, command, tmp_path, capsys):
    songs = tmp_path / "songs.json"
    if BAD_SONGS[name] is not None:
        songs.write_text(BAD_SONGS[name])
    plays = tmp_path / "plays.json"
    plays.write_text(json.dumps([{"t": 1.0}]))
    args = ["--plays", str(plays)] if command == "judge" else []
    code, out, err = run_cli(capsys, command, str(CHANT), *args, "--songs", str(songs), "--json")
    assert_one_error_line(code, err, "song")


def test_unknown_devices_are_one_clear_line_naming_the_devices(pulse, capsys):
    code, out, err = run_cli(capsys, "calibrate", "--input-device", "bluetooth headset")
    assert_one_error_line(code, err, "bluetooth headset", "pulse")
    code, out, err = run_cli(capsys, "calibrate", "--input-device", "pulse",
                             "--output-device", "hdmi 7")
    assert_one_error_line(code, err, "hdmi 7", "output devices are")
    code, out, err = run_cli(capsys, "calibrate", "--input-device", "99")
    assert_one_error_line(code, err, "99")


@pytest.mark.parametrize("game, device", [
    (["drakkar", "--players", "ann,bo", "--quiet"], ["--input-device", "no such microphone"]),
    (["drakkar", "--players", "ann,bo"], ["--input-device", "pulse", "--output-device", "hdmi 7"]),
    (["sailor", "--players", "ann:red,bo:blue,cy:green"],
     ["--input-device", "pulse", "--output-device", "hdmi 7"]),
])
def test_unknown_device_for_a_live_game_is_one_clear_line(pulse, game, device):
    """In a terminal (``script`` gives it one), as a table would run it. A
    speaker misnamed is said before the game, not found missing at its first
    line (the host would then print to a table that cannot read it)."""
    import shlex
    import shutil

    assert shutil.which("script"), "util-linux's script is needed to give the host a terminal"
    cmd = shlex.join([sys.executable, "-m", "voicehost", *game, *device])
    done = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stdout
    lines = [l for l in done.stdout.replace("\r", "").splitlines() if l.strip()]
    assert len(lines) == 1 and device[-1] in lines[0], done.stdout
    assert "Traceback" not in done.stdout


def test_devices_says_so_when_there_are_none(monkeypatch, capsys):
    import sounddevice as sd

    monkeypatch.setattr(sd, "query_devices", lambda *a, **k: [])
    code, out, err = run_cli(capsys, "devices")
    assert code == 0
    assert out.count("none found") == 2


def test_devices_without_portaudio_is_one_clear_line(monkeypatch, capsys):
    import sounddevice as sd

    def broken(*a, **k):
        raise OSError("PortAudio library not found")

    monkeypatch.setattr(sd, "query_devices", broken)
    code, out, err = run_cli(capsys, "devices")
    assert_one_error_line(code, err, "libportaudio2")


def test_missing_speech_model_is_one_clear_line(tmp_path, capsys):
    code, out, err = run_cli(capsys, "hear", str(CHANT), "--choices", "red,blue",
                             "--backend", "vosk", "--model", str(tmp_path / "no-model"))
    assert_one_error_line(code, err)
    empty = tmp_path / "empty-model"
    empty.mkdir()
    code, out, err = run_cli(capsys, "hear", str(CHANT), "--choices", "red,blue",
                             "--model", str(empty))
    assert_one_error_line(code, err)


def test_a_quiet_room_after_digital_silence_keeps_the_song():
    """Silence, then a quiet room (-60 dBFS), then the song: the room is too near
    the silence to be learnt anew, and the song's bars are all found (the soak
    tape lost every bar after such a stretch when it was learnt anew)."""
    from voicehost.audio.analysis import analyze
    from voicehost.audio.sources import read_audio

    x = read_audio(ROOT / "audio_fixtures" / "chant" / "g4_70bpm_3tums_snr30.wav")
    room = (0.001 * np.random.default_rng(0).standard_normal(3 * RATE)).astype(np.float32)
    plain = [b.last_tum for b in analyze(np.concatenate([room, x])).tracker.bars if b.last_tum]
    led = analyze(np.concatenate([np.zeros(RATE, np.float32), room, x]))
    shifted = [b.last_tum - 1.0 for b in led.tracker.bars if b.last_tum]
    assert len(plain) >= 3 and len(shifted) == len(plain), (shifted, plain)
    assert np.max(np.abs(np.array(shifted) - plain)) < 0.012
