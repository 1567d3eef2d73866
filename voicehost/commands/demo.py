"""``voicehost demo``: the host runs whole games from the bundled recordings.

The recordings in ``audio_fixtures/games/`` are a table singing Drakkar Tum Tum
with card slaps (a game that ends in a win, one that ends in a loss, one on
Whirlpool Island), each with the players' declarations beside it, and a table
answering the host's questions in a Sunken Sailor match. They go through the
same pipeline as a live microphone: blocks on the sample clock, the onset
detector, the chant tracker, the judge, the speech recogniser and the rules.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "host whole Drakkar Tum Tum and Sunken Sailor games from the bundled recordings"
ORDER = 10


def fixtures_dir() -> Path:
    """audio_fixtures/ of this checkout (the demo runs from the source tree)."""
    return Path(__file__).resolve().parents[2] / "audio_fixtures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true",
                        help="print what the host says instead of speaking it")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the host's random choices (the same seed gives the same demo)")
    parser.add_argument("--output-device", default=None, metavar="NAME_OR_INDEX",
                        help="speak through this output device (a part of its name is enough)")
    parser.add_argument("--speak-all", action="store_true",
                        help="speak every line (the demo otherwise speaks the highlights and "
                             "prints the rest, to stay under two minutes)")
    parser.add_argument("--games", type=Path, default=None, metavar="DIR",
                        help="folder of game recordings (default: audio_fixtures/games)")


def run(args: argparse.Namespace) -> int:
    from voicehost.errors import AudioFileError
    from voicehost.hosts.drakkar_run import host_recorded_games
    from voicehost.hosts.sailor_run import host_recorded_matches

    folder = args.games or fixtures_dir() / "games"
    if not (folder / "sailor_match.truth.json").exists() or not any(folder.glob("drakkar_*.wav")):
        raise AudioFileError(
            f"the demo's recordings are missing from {folder}; run the demo from a "
            "voicehost checkout (or pass --games DIR)."
        )
    device = _device(args.output_device)
    summary: list[str] = []

    def header(text: str) -> None:
        print(f"\n{text}", flush=True)

    drakkar = host_recorded_games(folder, quiet=args.quiet, output_device=device,
                                  seed=args.seed, header=header, speak_routine=args.speak_all,
                                  speak=None if args.speak_all else _highlight)
    for name, result in drakkar:
        summary.append(f"Drakkar Tum Tum, {name.replace('_', ' ')}: {_drakkar_outcome(result)}")
    for name, result in host_recorded_matches(folder, quiet=args.quiet, output_device=device,
                                              header=header,
                                              speak=None if args.speak_all else _highlight):
        summary.append(f"Sunken Sailor, {name.replace('_', ' ')}: {_sailor_outcome(result)}")
    print("\n== summary ==")
    for line in summary:
        print(line)
    return 0


#: Kinds of line the demo speaks; the rest (each play, each drawing turn, each
#: vote) is printed, so that the spoken demo stays under two minutes.
HIGHLIGHTS = frozenset({"end", "timing", "score"})


def _highlight(line) -> bool:
    return line.kind in HIGHLIGHTS


def _device(spec: str | None):
    if spec is None:
        return None
    return int(spec) if spec.isdigit() else spec


def _drakkar_outcome(result) -> str:
    state = result.state
    text = f"{state.result}, {len(state.islands_found)} island(s) found"
    return text + (f" ({state.reason})" if state.reason else "")


def _sailor_outcome(result) -> str:
    match = result.match
    scores = ", ".join(f"{p.label} {n}" for p, n in match.standings())
    winners = " and ".join(p.label for p in match.winners) or "nobody yet"
    return f"winner {winners}; scores {scores}"
