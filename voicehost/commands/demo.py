"""``voicehost demo``: the host narrating the bundled games, no microphone needed."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "narrate the bundled Drakkar Tum Tum and Sunken Sailor games (no microphone needed)"
ORDER = 10

#: The bundled records, in the order the demo plays them.
RECORDS = ("drakkar_win.json", "drakkar_loss.json", "sailor_match.json")


def fixtures_dir() -> Path:
    """audio_fixtures/ of this checkout (the demo runs from the source tree)."""
    return Path(__file__).resolve().parents[2] / "audio_fixtures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--records", type=Path, default=None, metavar="DIR",
        help="folder of game records to narrate (default: audio_fixtures/records)",
    )


def run(args: argparse.Namespace) -> int:
    from voicehost.errors import RecordError
    from voicehost.hosts.narration import narrate
    from voicehost.journal import load_record

    folder = args.records or fixtures_dir() / "records"
    paths = [folder / name for name in RECORDS] if args.records is None else sorted(folder.glob("*.json"))
    missing = [p for p in paths if not p.exists()]
    if missing or not paths:
        raise RecordError(
            f"the demo's game records are missing from {folder}; run the demo from a "
            "voicehost checkout (or pass --records DIR)."
        )
    for path in paths:
        print(f"== {path.stem.replace('_', ' ')} ==")
        for line in narrate(load_record(path)):
            print(line)
        print()
    return 0
