"""``voicehost sailor``: host a Sunken Sailor match, live or from a recording."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.commands._options import add_table_arguments

HELP = "host a Sunken Sailor match by voice (microphone, or --input WAV of the table's answers)"
ORDER = 21


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", metavar="NAME:COLOUR,...",
                        help="players in seat order, e.g. ann:red,bo:blue,cy:green "
                             "(live play without it registers the players by voice)")
    parser.add_argument("--input", type=Path, metavar="WAV",
                        help="host a recording of the table's answers instead of the microphone")
    parser.add_argument("--cards", choices=("printed", "private", "phones"), default="printed",
                        help="printed: the table deals its own envelope cards (default); "
                             "private: the host deals and shows each card on this screen; "
                             "phones: the host deals to each player's phone (live play)")
    parser.add_argument("--target", type=int, default=4, metavar="N",
                        help="points that win the match (default 4)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the starter and, with --cards private, the deal (default 0)")
    parser.add_argument("--turn-seconds", type=float, default=30.0, metavar="S",
                        help="a drawing turn ends after this long if nobody says done (default 30)")
    parser.add_argument("--accuse-seconds", type=float, default=60.0, metavar="S",
                        help="length of the accusation discussion (default 60)")
    parser.add_argument("--listen-seconds", type=float, default=10.0, metavar="S",
                        help="how long to wait for an answer before asking again (default 10)")
    parser.add_argument("--backend", choices=("auto", "pocketsphinx", "vosk"), default="auto",
                        help="speech recogniser (auto: Vosk when a model is installed)")
    parser.add_argument("--journal", type=Path, metavar="PATH",
                        help="journal every decision here (continue after a crash with "
                             "'voicehost resume PATH')")
    add_table_arguments(parser, "round, phase, turn, timer, scores")
    from voicehost.companion.launch import add_arguments as phone_arguments

    phone_arguments(parser, cards=False)  # --bind, --port for --cards phones
    parser.add_argument("--json", action="store_true",
                        help="print the result (scores, record, what was heard) as JSON at the end")


def run(args: argparse.Namespace) -> int:
    from voicehost.hosts.sailor_run import host_from_args

    return host_from_args(args)
