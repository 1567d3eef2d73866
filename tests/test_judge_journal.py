"""``voicehost judge WAV --plays JOURNAL.jsonl``: a hosted game's plays judged again from its recording."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"


def vh(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost", *args],
                          capture_output=True, text=True, timeout=180)


def hosted(tmp_path: Path, game: str, *extra: str) -> Path:
    """Host a committed game recording with a journal, as a table would with --journal."""
    journal = tmp_path / f"{game}.jsonl"
    out = vh("drakkar", "--input", str(GAMES / f"{game}.wav"), "--declarations",
             str(GAMES / f"{game}.declarations.json"), "--journal", str(journal), "--quiet",
             *extra)
    assert out.returncode == 0, out.stderr
    return journal


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def whirlpool(tmp_path_factory) -> Path:
    return hosted(tmp_path_factory.mktemp("whirlpool"), "drakkar_whirlpool")


def test_a_journal_gives_the_plays_and_songs_and_the_verdicts_match_the_hosts(whirlpool):
    """The whirlpool game turns the song round ("Tum Tum Tum Drakkar"): its last
    plays fall on "Drakkar". Told the songs by the journal, the judge finds every
    verdict the host gave; from the plays alone, following the song heard from
    three Tums, it judged the plays after Whirlpool Island some 390 ms late."""
    played = [e for e in lines(whirlpool)[1:] if e["type"] == "play"]
    out = vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(whirlpool), "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["windows"] == "normal" and "left_out_after_resume" not in got
    assert len(got["plays"]) == len(played) >= 6
    for row, event in zip(got["plays"], played):
        assert (row["player"], row["card"], row["slot"]) == (event["player"], event["card"],
                                                            event["slot"])
        assert row["t"] == event["declared_t"]
        assert row["host"] == {"verdict": event["verdict"], "offset_ms": event["offset_ms"]}
        assert row["verdict"] == event["verdict"] == "on_beat"
        assert abs(row["offset_ms"] - event["offset_ms"]) <= 1.0
    # The same plays as a plays file: no songs, so the song heard is followed.
    plain = whirlpool.with_name("plays.json")
    plain.write_text(json.dumps([{k: e[k] for k in ("player", "card", "slot")}
                                 | {"t": e["declared_t"]} for e in played]))
    alone = json.loads(vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(plain),
                          "--json").stdout)["plays"]
    assert [r["verdict"] for r in alone].count("late") >= 2


def test_the_text_sets_each_verdict_beside_the_hosts(whirlpool):
    out = vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(whirlpool))
    assert out.returncode == 0, out.stderr
    rows = out.stdout.strip().splitlines()
    assert rows and all("; the host said on beat (" in r for r in rows)
    assert rows[0].startswith("5.980 s ann rower:yellow: on beat (")


def test_plays_after_a_live_resume_are_left_out_and_counted(whirlpool, tmp_path):
    """A resumed live game starts a new clock and is not recorded: its plays,
    paired with this recording, would be judged against the wrong moments."""
    events = lines(whirlpool)
    plays = [e for e in events if e.get("type") == "play"]
    for k, e in enumerate(plays[-2:]):  # the game resumed before its last two plays
        e["clock"] = e["declared_t"] = 3.0 + k
    resumed = tmp_path / "resumed.jsonl"
    resumed.write_text("".join(json.dumps(e) + "\n" for e in events))
    got = json.loads(vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(resumed),
                        "--json").stdout)
    assert len(got["plays"]) == len(plays) - 2 and got["left_out_after_resume"] == 2
    assert all(r["verdict"] == "on_beat" for r in got["plays"])
    text = vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(resumed)).stdout
    assert "2 play(s) after the game was resumed are left out" in text


def test_the_windows_are_the_games_unless_asked(tmp_path):
    journal = hosted(tmp_path, "drakkar_win", "--windows", "hard")
    wav = str(GAMES / "drakkar_win.wav")
    assert json.loads(vh("judge", wav, "--plays", str(journal), "--json").stdout)["windows"] == "hard"
    easy = json.loads(vh("judge", wav, "--plays", str(journal), "--json", "--windows", "easy").stdout)
    assert easy["windows"] == "easy" and all(r["window_ms"] == 200 for r in easy["plays"])


def _journal(path: Path, header: dict, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *events]))
    return path


@pytest.mark.parametrize("case,word", [
    ("sailor", "only a Drakkar Tum Tum game"),
    ("untimed", "no play timed"),
    ("damaged", "damaged"),
])
def test_a_journal_with_nothing_to_judge_is_one_clear_line(whirlpool, tmp_path, case, word):
    events = lines(whirlpool)
    header, body = events[0], events[1:]
    if case == "sailor":
        path = _journal(tmp_path / "s.jsonl", {"format": "voicehost-journal", "version": 1,
                                                "game": "sailor", "players": ["a", "b", "c"]}, [])
    elif case == "untimed":  # plays written by hand: nothing says when on the recording
        path = _journal(tmp_path / "u.jsonl", header,
                        [{k: e[k] for k in ("type", "player", "card", "slot", "timing")}
                         for e in body if e["type"] == "play"])
    else:
        path = tmp_path / "d.jsonl"
        path.write_text(json.dumps(header) + "\n{torn in the middle\n" + json.dumps(body[0]) + "\n")
    out = vh("judge", str(GAMES / "drakkar_whirlpool.wav"), "--plays", str(path), "--json")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert word in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_journal_or_a_plays_file_can_come_down_a_pipe(whirlpool, tmp_path):
    """``--plays -`` reads standard input, and a pipe (``<(...)``) is read as a
    file is: once, since a pipe cannot be read twice (the journal's first line
    tells it from a plays file, then the same bytes are parsed). A pipe was
    refused as "no such plays file"."""
    wav = str(GAMES / "drakkar_whirlpool.wav")
    from_file = json.loads(vh("judge", wav, "--plays", str(whirlpool), "--json").stdout)
    piped = subprocess.run([sys.executable, "-m", "voicehost", "judge", wav, "--plays", "-",
                            "--json"], input=whirlpool.read_text(), capture_output=True,
                           text=True, timeout=180)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == from_file
    played = [e for e in lines(whirlpool)[1:] if e["type"] == "play"]
    plays = json.dumps([{"t": e["declared_t"], "player": e["player"]} for e in played])
    bash = subprocess.run(["bash", "-c", f"{sys.executable} -m voicehost judge {wav} --json "
                           f"--plays <(printf '%s' '{plays}')"],
                          capture_output=True, text=True, timeout=180)
    assert bash.returncode == 0, bash.stderr
    assert [r["t"] for r in json.loads(bash.stdout)["plays"]] == [e["declared_t"] for e in played]
    # Both from standard input cannot be: one clear line.
    both = vh("judge", wav, "--plays", "-", "--songs", "-")
    assert both.returncode != 0 and "standard input" in both.stderr
    assert "Traceback" not in both.stderr and len(both.stderr.strip().splitlines()) == 1
    folder = vh("judge", wav, "--plays", str(tmp_path))
    assert folder.returncode != 0 and "is a folder" in folder.stderr
