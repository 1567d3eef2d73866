"""``--cards phones`` for the game commands: options, start-up, waiting for phones.

The commands call three functions and nothing else of this package, so their
edits stay a few lines: :func:`add_arguments` on their parser,
:func:`open_companion` once the host's clock exists, :func:`wait_for_phones`
before the first deal.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Mapping, Sequence, TextIO

from voicehost.companion.hub import Companion


def add_arguments(parser: argparse.ArgumentParser, cards: bool = True) -> None:
    """``--cards table|phones``, ``--bind``, ``--port``; ``cards=False`` when the
    command has its own ``--cards`` (it then adds "phones" to its choices)."""
    group = parser.add_argument_group("phones (private roles and hands)")
    if cards:
        group.add_argument("--cards", choices=("table", "phones"), default="table",
                           help="'phones': each player gets their secret role or hand on "
                                "their own phone's browser (local network only)")
    group.add_argument("--bind", metavar="ADDRESS", default=None,
                       help="with --cards phones: the address to serve on (default: this "
                            "machine's address on the local network)")
    group.add_argument("--port", type=int, default=0, metavar="N",
                       help="with --cards phones: the port (default: any free port)")


def wants_phones(args: argparse.Namespace) -> bool:
    return getattr(args, "cards", "table") == "phones"


def check_phone_args(args: argparse.Namespace) -> None:
    """``--cards phones`` is for a live table: refuse it with a recording."""
    from voicehost.companion.errors import CompanionError

    if wants_phones(args) and getattr(args, "input", None) is not None:
        raise CompanionError("--cards phones is for live play; a recording's plays come "
                             "from its files, so drop --cards phones or --input.")


def open_companion(args: argparse.Namespace, game: str,
                   players: Sequence[str] | Mapping[str, str] | None,
                   clock: Callable[[], float], say: Callable[[str], None],
                   stream: TextIO | None = None, enabled: bool | None = None) -> Companion | None:
    """Start the pages when ``--cards phones`` (or ``enabled``, e.g. a resumed match);
    print the address, code and QR; say the code."""
    if not (wants_phones(args) if enabled is None else enabled):
        return None
    from voicehost.companion.qr import print_qr

    stream = stream or sys.stdout
    companion = Companion(game, players=players, clock=clock)
    companion.start(bind=getattr(args, "bind", None), port=getattr(args, "port", 0) or 0)
    print(f"Phones: open {companion.url} and enter the join code {companion.code}",
          file=stream)
    print_qr(companion.join_url, stream)
    say(companion.announcement())
    return companion


def wait_for_phones(companion: Companion, names: Sequence[str], say: Callable[[str], None],
                    every: float = 20.0, give_up: int | None = None) -> list[str]:
    """Wait until every named player's page is open, saying who is missing now and then.

    Returns the players still missing after ``give_up`` reminders (never,
    when None): a host may then go on with them told aloud to rejoin.
    """
    reminders = 0
    while True:
        missing = companion.wait_for_players(names, timeout=every)
        if not missing:
            return []
        if give_up is not None and reminders >= give_up:
            return missing
        who = " and ".join([", ".join(missing[:-1]), missing[-1]] if len(missing) > 1
                           else missing)
        say(f"Waiting for {who}: open the page on your phone and take your seat.")
        reminders += 1
