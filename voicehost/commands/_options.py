"""Options shared by the commands that host a game at the table.

Both hosts listen to a microphone (or a recording), speak through a speaker
and can show the large view; keeping those options here makes the two
commands say the same thing the same way.
"""

from __future__ import annotations

import argparse


def add_table_arguments(parser: argparse.ArgumentParser, view: str) -> None:
    """``--quiet``, ``--large``, the devices and ``--pace``; ``view`` says what the large view shows."""
    parser.add_argument("--quiet", action="store_true", help="print what the host says, do not speak")
    parser.add_argument("--large", action="store_true", help=f"large terminal view ({view})")
    parser.add_argument("--input-device", metavar="NAME|INDEX",
                        help="microphone to listen to (live play), by name or index")
    parser.add_argument("--output-device", metavar="NAME|INDEX",
                        help="where the host's voice plays, by name or index")
    parser.add_argument("--pace", type=float, default=None, metavar="X",
                        help="with --input: play the recording at X times real time "
                             "(1 = as the table played it; default: as fast as possible)")
    parser.add_argument("--record-input", metavar="WAV", default=None,
                        help="live: keep what the microphone heard in this WAV, on the "
                             "host's clock (host it again with --input to see what was heard)")
