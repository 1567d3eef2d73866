"""The journal: durable, append-only, readable after a crash mid-write."""

import errno
import json
import os

import pytest

from voicehost import journal as journal_mod
from voicehost.errors import RecordError
from voicehost.journal import Journal, JournalError, load_record, read_journal

SETUP = {"players": ["ann", "bo"], "deck": ["goblin"], "islands": ["calm"], "variant": None}


def test_events_are_on_disk_when_append_returns(tmp_path):
    path = tmp_path / "game.jsonl"
    j = Journal.create(path, "drakkar", SETUP)
    j.append({"type": "play", "player": "ann", "card": "goblin", "slot": 1, "timing": "on_beat"})
    # read with a fresh file handle while the journal is still open
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["game"] == "drakkar"
    assert json.loads(lines[1])["card"] == "goblin"
    j.close()


def test_every_append_is_fsynced(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(journal_mod.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    j = Journal.create(tmp_path / "g.jsonl", "drakkar", SETUP)
    j.append({"type": "play"})
    j.append({"type": "play"})
    assert len(synced) == 3  # header and two events


def test_torn_last_line_is_ignored_and_cut_on_resume(tmp_path):
    path = tmp_path / "g.jsonl"
    with Journal.create(path, "drakkar", SETUP) as j:
        j.append({"type": "play", "n": 1})
    with open(path, "ab") as f:
        f.write(b'{"type": "play", "n": 2')  # the crash came mid-write
    header, events, torn = read_journal(path)
    assert [e["n"] for e in events] == [1] and torn is not None
    with Journal.open_existing(path) as j:
        j.append({"type": "play", "n": 3})
    _, events, torn = read_journal(path)
    assert [e["n"] for e in events] == [1, 3] and torn is None


def test_damaged_middle_line_is_an_error(tmp_path):
    path = tmp_path / "g.jsonl"
    with Journal.create(path, "drakkar", SETUP) as j:
        j.append({"type": "play"})
    text = path.read_text().splitlines()
    path.write_text(text[0] + "\n{oops\n" + text[1] + "\n")
    with pytest.raises(RecordError, match="line 2 is not valid JSON"):
        read_journal(path)


def test_a_new_journal_never_overwrites_a_game(tmp_path):
    path = tmp_path / "g.jsonl"
    Journal.create(path, "drakkar", SETUP).close()
    with pytest.raises(JournalError, match="voicehost resume"):
        Journal.create(path, "drakkar", SETUP)


def test_disk_full_is_a_clear_error(tmp_path, monkeypatch):
    j = Journal.create(tmp_path / "g.jsonl", "drakkar", SETUP)

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "write", full)
    with pytest.raises(JournalError, match="disk .* is full"):
        j.append({"type": "play"})
    assert j.events == []  # the event the host was about to act on is not counted


def test_unwritable_place_is_a_clear_error():
    with pytest.raises(JournalError, match="cannot"):
        Journal.create("/proc/voicehost-test/game.jsonl", "drakkar", SETUP)


def test_load_record_reads_json_and_journals(tmp_path):
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps({"game": "drakkar", **SETUP, "events": []}))
    assert load_record(rec)["game"] == "drakkar"
    jpath = tmp_path / "g.jsonl"
    with Journal.create(jpath, "drakkar", SETUP) as j:
        j.append({"type": "play", "player": "ann"})
    record = load_record(jpath)
    assert record["players"] == ["ann", "bo"] and record["events"][0]["player"] == "ann"
    assert "format" not in record


def test_load_record_bad_json_names_the_place(tmp_path):
    rec = tmp_path / "r.json"
    rec.write_text('{"game": "drakkar",\n "players": [}')
    with pytest.raises(RecordError, match=r"line 2, column"):
        load_record(rec)
