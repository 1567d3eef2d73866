"""The append-only journal: every game event on disk before the host acts on it.

A journal is a JSON Lines file. Its first line is a header that states the
game's setup (the same fields as a game record: players, deck, islands ...);
every later line is one event. Each line is written, flushed and fsync'd
before :meth:`Journal.append` returns, so a crash (or a pulled plug) at any
moment loses at most the event that was being written, never one the host
already acted on. A torn last line (the crash came mid-write) is ignored on
reading.

A journal and a game record carry the same information:
:func:`journal_to_record` turns one into the other, which is how ``replay``
and ``resume`` rebuild a game.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from voicehost.errors import RecordError, VoicehostError

FORMAT = "voicehost-journal"
VERSION = 1


class JournalError(VoicehostError):
    """The journal cannot be written: the game must not go on without it."""


@dataclass
class Journal:
    """An open journal, appended to one event at a time.

    Use :meth:`create` for a new game and :meth:`open_existing` to continue one.
    """

    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    _fd: int | None = None

    @classmethod
    def create(cls, path: str | Path, game: str, setup: dict[str, Any]) -> "Journal":
        """Start a new journal at ``path`` (which must not exist yet)."""
        path = Path(path)
        header = {"format": FORMAT, "version": VERSION, "game": game, **setup}
        journal = cls(path, header)
        journal._open(exclusive=True)
        journal._write(header)
        return journal

    @classmethod
    def open_existing(cls, path: str | Path) -> "Journal":
        """Reopen a journal to continue its game, after a crash or a pause."""
        header, events, torn = read_journal(path)
        journal = cls(Path(path), header, events)
        journal._open(exclusive=False)
        if torn:
            # Cut the torn tail so the next event starts on a line of its own.
            os.ftruncate(journal._fd, torn)
        return journal

    def append(self, event: dict[str, Any]) -> None:
        """Write one event durably; only then may the host act on it."""
        self._write(event)
        self.events.append(event)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def to_record(self) -> dict[str, Any]:
        return journal_to_record(self.header, self.events)

    def _open(self, exclusive: bool) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        if exclusive:
            flags |= os.O_EXCL
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise JournalError(
                f"{self.path} already exists; continue it with 'voicehost resume {self.path}' "
                "or choose another --journal path."
            ) from None
        except OSError as exc:
            raise JournalError(_os_reason(self.path, exc)) from None

    def _write(self, obj: dict[str, Any]) -> None:
        if self._fd is None:
            raise JournalError(f"{self.path} is closed; the game cannot be recorded.")
        data = (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, "short write")
            os.fsync(self._fd)
        except OSError as exc:
            raise JournalError(_os_reason(self.path, exc)) from None


def read_journal(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    """Read a journal: its header, its events, and where a torn last line starts.

    The third value is the byte offset of a torn last line (to cut before
    appending again), or ``None`` when the file ends cleanly.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RecordError(f"{path}: no such journal; check the path.") from None
    except OSError as exc:
        raise RecordError(_os_reason(path, exc)) from None
    return parse_journal(raw, str(path))


def parse_journal(raw: bytes, name: str) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    """:func:`read_journal` on bytes already read (a pipe can be read only once); ``name`` is for messages."""
    lines = raw.split(b"\n")
    torn_at: int | None = None
    objs: list[dict[str, Any]] = []
    offset = 0
    for i, line in enumerate(lines):
        start = offset
        offset += len(line) + 1
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if i == len(lines) - 1:  # no newline after it: the crash came mid-write
                torn_at = start
                break
            raise RecordError(f"{name}: line {i + 1} is not valid JSON; the journal is damaged.") from None
        if not isinstance(obj, dict):
            raise RecordError(f"{name}: line {i + 1} is not a JSON object; the journal is damaged.")
        objs.append(obj)
    if not objs or objs[0].get("format") != FORMAT:
        raise RecordError(f"{name} is not a voicehost journal (its first line has no header).")
    return objs[0], objs[1:], torn_at


def journal_to_record(header: dict[str, Any], events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The game record a journal describes (setup from the header, events after it)."""
    record = {k: v for k, v in header.items() if k not in ("format", "version")}
    events = list(events)
    if record.get("game") == "sailor":
        record["rounds"] = [e["round"] for e in events if e.get("type") == "round"]
    else:
        record["events"] = events
    return record


def is_journal_start(text: str) -> bool:
    """Whether ``text`` (a file's beginning) opens with a journal's header line.

    A record is one JSON object and a journal one per line; only a journal's
    first object names the format, near its start.
    """
    first = text.lstrip()[:200]
    return first.startswith("{") and f'"format":"{FORMAT}"' in first.replace(" ", "")


def load_record(path: str | Path) -> dict[str, Any]:
    """Load a game record from a JSON file or a journal (JSON Lines)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record; check the path.") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file; give a JSON game record.") from None
    except OSError as exc:
        raise RecordError(_os_reason(path, exc)) from None
    if is_journal_start(text[:4096]):
        header, events, _ = parse_journal(raw, str(path))  # the bytes read once
        return journal_to_record(header, events)
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from None
    if not isinstance(record, dict):
        raise RecordError(f"{path}: a game record is a JSON object with a \"game\" field.")
    return record


def _os_reason(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return f"the disk holding {path} is full; free some space so the game can be recorded."
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"cannot write {path} (read-only or no permission); choose another --journal path."
    return f"cannot use {path}: {exc.strerror or exc}."
