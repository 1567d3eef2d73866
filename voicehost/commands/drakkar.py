"""``voicehost drakkar``: host a Drakkar Tum Tum game, live or from a recording."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.commands._options import add_table_arguments

HELP = "host a Drakkar Tum Tum game (microphone, or --input WAV with --declarations or --declare voice)"
ORDER = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", type=Path, metavar="WAV",
                        help="host a recorded game from this audio file instead of the microphone")
    parser.add_argument("--declarations", type=Path, metavar="JSON",
                        help="the recording's declarations sidecar (who played what, when)")
    parser.add_argument("--players", metavar="NAMES",
                        help="comma-separated player names, first player first (ann,bo,cy); "
                             "live without it, the host asks how many play (by voice); "
                             "not needed when the declarations give the setup")
    parser.add_argument("--setup", type=Path, metavar="RECORD",
                        help="live: play the table's printed deck, in this order (a game record "
                             "or journal: players, deck top first, islands) instead of dealing")
    parser.add_argument("--first", metavar="NAME|random",
                        help="who starts (default: the first of --players); turns go on "
                             "in the order given")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the digital deck's shuffle (default 0)")
    parser.add_argument("--variant", default=None, metavar="percussionist:red|yellow",
                        help="play the percussionist variant")
    parser.add_argument("--declare", default="keyboard", choices=("keyboard", "voice"),
                        help="how plays are declared: keyboard (one key for the card, one for "
                             "the section), or voice: say the card and section right after the "
                             "slap (\"red rower one\"), everyone stops singing and the host "
                             "checks it with yes or no; with --input, the recording's own voices")
    parser.add_argument("--backend", choices=("auto", "pocketsphinx", "vosk"), default="auto",
                        help="speech recogniser for voice declarations and registration "
                             "(auto: Vosk when a model is installed)")
    parser.add_argument("--windows", default="normal", choices=("easy", "normal", "hard"),
                        help="timing windows: easy 200 ms, normal 120 ms, hard 60 ms")
    parser.add_argument("--journal", type=Path, metavar="PATH",
                        help="journal every event here (continue a crashed game with "
                             "'voicehost resume PATH')")
    add_table_arguments(parser, "song, beat, ship, turn, hands")
    from voicehost.companion.launch import add_arguments as phone_arguments

    phone_arguments(parser)  # --cards table|phones: hands on each player's phone, taps in
    parser.add_argument("--json", action="store_true",
                        help="print the result (final state, plays, timing) as JSON at the end")


def run(args: argparse.Namespace) -> int:
    from voicehost.hosts.drakkar_run import host_from_args

    return host_from_args(args)
