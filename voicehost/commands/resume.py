"""``voicehost resume JOURNAL``: continue a game after a crash, with nothing lost."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "continue a Drakkar Tum Tum game or a Sunken Sailor match from its journal after a crash"
ORDER = 22


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", type=Path, metavar="JOURNAL",
                        help="the journal written with --journal")
    parser.add_argument("--quiet", action="store_true", help="print what the host says, do not speak")
    parser.add_argument("--large", action="store_true", help="large terminal view")
    parser.add_argument("--input-device", metavar="NAME|INDEX",
                        help="microphone for a live game (default: the one it was started with)")
    parser.add_argument("--output-device", metavar="NAME|INDEX",
                        help="where the host's voice plays")
    parser.add_argument("--json", action="store_true", help="print the result as JSON at the end")


def run(args: argparse.Namespace) -> int:
    from voicehost.errors import RecordError
    from voicehost.journal import read_journal

    header, _, _ = read_journal(args.journal)
    game = header.get("game")
    if game == "drakkar":
        from voicehost.hosts.drakkar_run import resume_drakkar

        return resume_drakkar(args.journal, args)
    if game == "sailor":
        from voicehost.hosts.sailor_run import resume_sailor

        return resume_sailor(args.journal, args)
    raise RecordError(
        f"{args.journal} is a {game!r} journal; resuming it is not supported yet "
        "(replay it with 'voicehost replay')."
    )
