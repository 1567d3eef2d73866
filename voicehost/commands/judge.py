"""``voicehost judge WAV --plays PLAYS.json``: was each declared play on the last Tum?"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from voicehost.errors import VoicehostError

HELP = "judge declared card plays against the last Tum of a chant recording"
ORDER = 41


class PlaysError(VoicehostError):
    """A plays file that cannot be read as a list of plays."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wav", metavar="WAV", help="a recording (WAV, FLAC, OGG; any rate)")
    parser.add_argument("--plays", required=True, metavar="PLAYS.json",
                        help='[{"t": s, "player": name, "card": kind, "slot": 1|2|3}, ...]')
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--tums", type=int, default=3, choices=(1, 2, 3),
                        help="Tums the song has at the start (default 3)")
    parser.add_argument("--reversed", action="store_true",
                        help='the song after Whirlpool Island: "Tum Tum Tum Drakkar"')
    parser.add_argument("--plot", metavar="PNG",
                        help="also draw the recording with its last Tums and each play's verdict")
    parser.add_argument("--windows", choices=("normal", "easy", "hard"), default="normal",
                        help="on-beat window: normal +-120 ms, easy +-200, hard +-60")


def load_plays(path: str | Path) -> list[dict]:
    """Read and check a plays file; every mistake is one sentence saying what to fix."""
    p = Path(path)
    if not p.is_file():
        raise PlaysError(f"{p}: no such plays file; give a JSON list of plays.")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlaysError(f"{p} is not valid JSON ({exc}); fix the file.") from None
    if isinstance(data, dict) and isinstance(data.get("plays"), list):
        data = data["plays"]
    if not isinstance(data, list):
        raise PlaysError(f'{p} must hold a JSON list of plays like [{{"t": 3.2, "player": "Ann", '
                         '"card": "rower", "slot": 2}].')
    for i, play in enumerate(data):
        t = play.get("t") if isinstance(play, dict) else None
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise PlaysError(f'{p}: play {i + 1} needs a time "t" in seconds (a number >= 0).')
        slot = play.get("slot")
        if slot is not None and slot not in (1, 2, 3):
            raise PlaysError(f"{p}: play {i + 1} has slot {slot!r}; a slot is 1, 2 or 3.")
    return data


def run(args: argparse.Namespace) -> int:
    plays = load_plays(args.plays)
    from voicehost.audio.analysis import analyze, judge_plays

    result = analyze(args.wav, tums=args.tums, reversed=args.reversed,
                     record=bool(getattr(args, "plot", None)))
    verdicts = judge_plays(result, plays, args.windows)
    if getattr(args, "plot", None):
        from voicehost.audio.plot import plot_analysis

        plot_analysis(result, args.plot, title=f"{args.wav}: plays", verdicts=verdicts)
    rows = []
    for play, v in zip(plays, verdicts):
        row = v.as_dict()
        for key in ("player", "card", "slot"):
            if key in play:
                row[key] = play[key]
        row["t"] = round(float(play["t"]), 4)  # the declaration, as given
        row["play_t"] = round(v.t, 4)  # when the play happened (slap or declaration)
        rows.append(row)
    if args.json:
        print(json.dumps({"windows": args.windows, "plays": rows}, indent=1))
    else:
        for i, r in enumerate(rows, 1):
            # How it was timed: what to look at when a verdict surprises.
            how = (f"timed by the card at {r['play_t']:.3f} s" if r["timed_by"] == "slap"
                   else "timed by the declaration: no card heard")
            off = "" if r["offset_ms"] is None else f"{r['offset_ms']:+.0f} ms, "
            who = f"{r.get('player', '')} {r.get('card', '')}".strip() or f"play {i}"
            print(f"{r['t']:.3f} s {who}: {r['verdict'].replace('_', ' ')} ({off}{how})")
    return 0
