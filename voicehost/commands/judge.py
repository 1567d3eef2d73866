"""``voicehost judge WAV --plays PLAYS.json``: was each declared play on the last Tum?"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from voicehost.errors import VoicehostError, print_notes

HELP = "judge declared card plays against the last Tum of a chant recording"
ORDER = 41
STDIN = "-"  # a plays or songs file given as "-" is read from standard input


class PlaysError(VoicehostError):
    """A plays file that cannot be read as a list of plays."""


class SongsError(VoicehostError):
    """A songs file that cannot be read as a list of song changes."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wav", metavar="WAV", help="a recording (WAV, FLAC, OGG; any rate)")
    parser.add_argument("--plays", required=True, metavar="PLAYS.json",
                        help='[{"t": s, "player": name, "card": kind, "slot": 1|2|3}, ...], '
                             "or the --journal of a game hosted with --record-input: its "
                             "plays, each song and the host's verdicts (- reads standard input)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--tums", type=int, default=3, choices=(1, 2, 3),
                        help="Tums the song has at the start (default 3)")
    parser.add_argument("--reversed", action="store_true",
                        help='the song after Whirlpool Island: "Tum Tum Tum Drakkar"')
    add_songs_argument(parser)
    parser.add_argument("--plot", metavar="PNG",
                        help="also draw the recording with its last Tums and each play's verdict")
    parser.add_argument("--windows", choices=("normal", "easy", "hard"), default=None,
                        help="on-beat window: normal +-120 ms (the default, or the journal's "
                             "game's), easy +-200, hard +-60")


def read_source(path: str | Path, key: str, error: type[VoicehostError]) -> tuple[str, bytes]:
    """A ``key`` file's name and bytes, read once: a file, a pipe (``<(...)``) or ``-`` for standard input.

    Read once because a pipe cannot be read twice: a journal is told from a
    plays file by its first line, then parsed from the same bytes.
    """
    if str(path) == STDIN:
        return "standard input", sys.stdin.buffer.read()
    p = Path(path)
    if p.is_dir():
        raise error(f"{p} is a folder; give a JSON list of {key}.")
    try:
        return str(p), p.read_bytes()
    except FileNotFoundError:
        raise error(f"{p}: no such {key} file; give a JSON list of {key}.") from None
    except OSError as exc:
        raise error(f"{p} cannot be read ({exc.strerror}); give a JSON list of {key}.") from None


def _json_list(name: str, raw: bytes, key: str, error: type[VoicehostError],
               example: str) -> list:
    """The JSON list of ``key`` (or ``{key: [...]}``) in ``raw``; every mistake is one sentence."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{name} is not valid JSON ({exc}); fix the file.") from None
    if isinstance(data, dict) and isinstance(data.get(key), list):
        data = data[key]
    if not isinstance(data, list):
        raise error(f"{name} must hold a JSON list of {key} like {example}.")
    return data


def _is_time(t: object) -> bool:
    """Seconds into the recording: a finite number >= 0 (not a bool, which JSON keeps apart)."""
    return not isinstance(t, bool) and isinstance(t, (int, float)) and math.isfinite(t) and t >= 0


def load_plays(path: str | Path) -> list[dict]:
    """Read and check a plays file (``-``: standard input); every mistake is one sentence saying what to fix."""
    return parse_plays(*read_source(path, "plays", PlaysError))


def parse_plays(p: str, raw: bytes) -> list[dict]:
    """Check the plays in ``raw``, read from ``p``."""
    data = _json_list(p, raw, "plays", PlaysError,
                      '[{"t": 3.2, "player": "Ann", "card": "rower", "slot": 2}]')
    for i, play in enumerate(data):
        if not _is_time(play.get("t") if isinstance(play, dict) else None):
            raise PlaysError(f'{p}: play {i + 1} needs a time "t" in seconds (a number >= 0).')
        slot = play.get("slot")
        if slot is not None and (isinstance(slot, bool) or slot not in (1, 2, 3)):
            raise PlaysError(f"{p}: play {i + 1} has slot {slot!r}; a slot is 1, 2 or 3.")
    return data


def add_songs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--songs", metavar="SONGS.json",
        help='the song the game told from each moment on, as the host tells it after a play: '
             '[{"t": s, "tums": 1|2|3, "reversed": false}, ...]; without it the song heard '
             "is followed from --tums on")


def load_songs(path: str | Path | None) -> list[tuple[float, int, bool]]:
    """Read and check a songs file: ``(t, tums, reversed)`` in time order ([] without one).

    A one-Tum song turned round by Whirlpool Island ("Tum, Drak-kar") sounds
    exactly as the plain one: only the game knows the play falls on "Drak".
    Told the songs, the tracker is the host's (it does not follow the song
    heard) and looks for each bar's last Tum where the game's song has it.
    """
    if path is None:
        return []
    p, raw = read_source(path, "songs", SongsError)
    data = _json_list(p, raw, "songs", SongsError,
                      '[{"t": 12.4, "tums": 2}, {"t": 30.1, "tums": 3, "reversed": true}]')
    out = []
    for i, song in enumerate(data):
        song = song if isinstance(song, dict) else {}
        t, tums, rev = song.get("t"), song.get("tums"), song.get("reversed", False)
        if not _is_time(t):
            raise SongsError(f'{p}: song {i + 1} needs a time "t" in seconds (a number >= 0).')
        if isinstance(tums, bool) or tums not in (1, 2, 3):
            raise SongsError(f'{p}: song {i + 1} needs "tums": 1, 2 or 3 (it has {tums!r}).')
        if not isinstance(rev, bool):
            raise SongsError(f'{p}: song {i + 1} has "reversed": {rev!r}; it is true or false.')
        out.append((float(t), int(tums), rev))
    return sorted(out)


def run(args: argparse.Namespace) -> int:
    from voicehost.hosts.drakkar_review import journal_plays
    from voicehost.journal import is_journal_start

    if args.plays == STDIN and getattr(args, "songs", None) == STDIN:
        raise SongsError("only one of --plays and --songs can be read from standard input.")
    songs = load_songs(getattr(args, "songs", None))
    windows, resumed = args.windows, 0
    name, raw = read_source(args.plays, "plays", PlaysError)
    if is_journal_start(raw[:4096].decode("utf-8", "replace")):
        game = journal_plays(name, raw)
        plays, songs, resumed = game.plays, songs or game.songs, game.resumed
        windows = windows or game.windows
    else:
        plays = parse_plays(name, raw)
    windows = windows or "normal"
    from voicehost.audio.analysis import analyze, judge_plays

    result = analyze(args.wav, tums=args.tums, reversed=args.reversed,
                     record=bool(getattr(args, "plot", None)), follow=not songs, songs=songs)
    print_notes(result.notes + _past_the_end(plays, result.duration))
    verdicts = judge_plays(result, plays, windows)
    if getattr(args, "plot", None):
        from voicehost.audio.plot import plot_analysis

        plot_analysis(result, args.plot, title=f"{args.wav}: plays", verdicts=verdicts)
    rows = []
    for play, v in zip(plays, verdicts):
        row = v.as_dict()
        for key in ("player", "card", "slot", "host"):
            if key in play:
                row[key] = play[key]
        row["t"] = round(float(play["t"]), 4)  # the declaration, as given
        row["play_t"] = round(v.t, 4)  # when the play happened (slap or declaration)
        rows.append(row)
    left = (f"{resumed} play(s) after the game was resumed are left out: a resumed game "
            "has a new clock and was not recorded." if resumed else None)
    if args.json:
        out: dict = {"windows": windows, "plays": rows}
        if resumed:
            out["left_out_after_resume"] = resumed
        print(json.dumps(out, indent=1))
    else:
        for i, r in enumerate(rows, 1):
            # How it was timed: what to look at when a verdict surprises.
            how = (f"timed by the card at {r['play_t']:.3f} s" if r["timed_by"] == "slap"
                   else "timed by the declaration: no card heard")
            off = "" if r["offset_ms"] is None else f"{r['offset_ms']:+.0f} ms, "
            who = f"{r.get('player', '')} {r.get('card', '')}".strip() or f"play {i}"
            print(f"{r['t']:.3f} s {who}: {r['verdict'].replace('_', ' ')} ({off}{how})"
                  + _host_said(r.get("host")))
        if left:
            print(left)
    return 0


def _past_the_end(plays: list[dict], duration: float) -> list[str]:
    """A note for plays declared after the recording ends: most likely milliseconds, or another file.

    Judged as they are (no song was heard then), but a whole plays file
    judged "no song" for want of a unit would otherwise say nothing of why.
    """
    late = [i for i, play in enumerate(plays, 1) if float(play["t"]) > duration]
    if not late:
        return []
    which = ", ".join(str(i) for i in late[:5]) + (", ..." if len(late) > 5 else "")
    return [f"{len(late)} of {len(plays)} plays (play {which}) come after the recording "
            f"ends ({duration:.1f} s) and have no song: the plays' times are seconds from "
            "the start of this recording."]


def _host_said(host: dict | None) -> str:
    """The verdict the host gave live, from a journal: what the new one is compared with."""
    if not host or not host.get("verdict"):
        return ""
    off = host.get("offset_ms")
    return f"; the host said {host['verdict'].replace('_', ' ')}" + (
        "" if off is None else f" ({off:+.0f} ms)")
