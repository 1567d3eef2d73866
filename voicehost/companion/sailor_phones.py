"""Sunken Sailor with phones: the host deals, each role goes to its player's page only.

The round's secrets never touch the voice (design.md 4.4): the host says
only that the roles are on the phones, and waits, naming who is missing,
until every player's page is open, so nobody draws without their card.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Sequence

from voicehost.companion.hub import Companion
from voicehost.companion.launch import open_companion, wait_for_phones
from voicehost.companion.payloads import sailor_secret


def open_sailor_phones(args: argparse.Namespace, players: Sequence[Any],
                       clock: Callable[[], float], say: Callable[[str], None],
                       enabled: bool | None = None) -> Companion | None:
    """With ``--cards phones`` (or ``enabled``): serve the pages for ``players`` (name and
    colour each) and wait until every one is seated."""
    seats = {p.name: p.colour for p in players}
    companion = open_companion(args, "sailor", seats, clock, say, enabled=enabled)
    if companion is not None:
        try:
            wait_for_phones(companion, list(seats), say)
        except BaseException:
            companion.stop()
            raise
    return companion


def deal_to_phones(companion: Companion, roles: Sequence[Any], word: str,
                   say: Callable[[str], None], round_number: int | None = None) -> None:
    """Send each ``RoleDealt`` to its player's phone; say only that they are there."""
    names = [role.player.name for role in roles]
    for role in roles:
        secret_word = None if role.drunken_sailor else word
        companion.publish_private(role.player.name, sailor_secret(
            role.drunken_sailor, secret_word, role.line, round_number))
    wait_for_phones(companion, names, say)
    say("Your roles are on your phones. Hide your screen, then hold the button to read yours.")
