"""Private delivery of the secret roles: pass-and-peek in the terminal.

With ``--cards private`` the host deals, so it knows every secret; it must
never say one aloud (design.md 4.4). Each player in turn comes to the
screen, presses Enter to see their card, and presses Enter again to clear
it before passing on. Only the call to come to the screen is spoken. The
input and output streams are parameters so a test can drive the keys.
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence, TextIO

from voicehost.errors import VoicehostError
from voicehost.games import sailor

#: Clears the visible screen and the scroll-back, then homes the cursor.
CLEAR = "\033[2J\033[3J\033[H"


class DealError(VoicehostError):
    """The private cards could not be shown (no keyboard to press Enter on)."""


def card_text(role: sailor.RoleDealt) -> str:
    """What the player reads on the screen (the role's own sentence)."""
    return role.say()


def pass_and_peek(roles: Sequence[sailor.RoleDealt], say: Callable[[str], None],
                  keys: TextIO | None = None, screen: TextIO | None = None) -> None:
    """Show each player their card in seat order; the screen is cleared after each one."""
    keys = keys or sys.stdin
    screen = screen or sys.stdout
    for role in roles:
        who = role.player
        say(f"{who.label}, come to the screen and press Enter to see your card.")
        screen.write(f"{who.label} ({who.name}): press Enter to see your card, "
                     "with nobody else looking. ")
        screen.flush()
        _enter(keys)
        screen.write("\n" + card_text(role) + "\n\nPress Enter to hide it. ")
        screen.flush()
        _enter(keys)
        screen.write(CLEAR)
        screen.flush()
    say("Everyone has seen their card.")


def _enter(keys: TextIO) -> None:
    line = keys.readline()
    if line == "":
        raise DealError("private cards need a keyboard: each player presses Enter at the "
                        "screen; run in a terminal, or use --cards printed.")
