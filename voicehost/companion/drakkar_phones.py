"""Drakkar with phones: hands out to each player's page, taps in as declarations.

The live loop calls :meth:`DrakkarPhones.step` once per audio block, on its
own thread: declarations are taken from the companion's queue there (never
on the server's thread), hands are republished when they change, and a phone
that left is named aloud, once, so the table knows whose taps will not come.
"""

from __future__ import annotations

import argparse
import queue
from dataclasses import dataclass, field
from typing import Any, Callable

from voicehost.companion.hub import Companion, PhoneDeclaration
from voicehost.companion.launch import open_companion, wait_for_phones
from voicehost.companion.payloads import HandSync


@dataclass
class GatedClock:
    """The sample clock, or None until the first block: a sound card that has not
    started reads 0, and a phone measured against that would map its taps wrongly."""

    clock: Callable[[], float]
    running: bool = False

    def __call__(self) -> float | None:
        return self.clock() if self.running else None


@dataclass
class DrakkarPhones:
    companion: Companion
    say: Callable[[str], None]
    gate: GatedClock | None = None
    hands: HandSync = field(init=False)
    _presence: "queue.Queue[tuple[str, bool]]" = field(default_factory=queue.Queue)
    _clock_started: bool = False

    def __post_init__(self) -> None:
        self.hands = HandSync(self.companion)
        self.companion.on_presence(lambda name, up: self._presence.put((name, up)))

    def step(self, state: Any, declare: Callable[[PhoneDeclaration], None]) -> None:
        """Call once per block: taps to ``declare``, new hands to the phones."""
        if not self._clock_started:
            # The sample clock runs from the first block: measure the phones against it.
            if self.gate is not None:
                self.gate.running = True
            self.companion.reset_clocks()
            self._clock_started = True
        for decl in self.companion.take_declarations():
            declare(decl)
        self.hands.sync(state)
        while True:
            try:
                name, up = self._presence.get_nowait()
            except queue.Empty:
                break
            self.say(f"{name}'s phone is back." if up else
                     f"{name}'s phone left: open the page again to get your hand back.")

    def forget_presence(self) -> None:
        """Drop the comings and goings noted so far (not to be said)."""
        while True:
            try:
                self._presence.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        print(self.companion.clock_summary())
        self.companion.stop()


def open_drakkar_phones(args: argparse.Namespace, state: Any, clock: Callable[[], float],
                        say: Callable[[str], None]) -> DrakkarPhones | None:
    """With ``--cards phones``: serve the pages, wait for every player, deal the hands."""
    players = [str(p) for p in state.players]
    gate = GatedClock(clock)
    companion = open_companion(args, "drakkar", players, gate, say)
    if companion is None:
        return None
    try:
        phones = DrakkarPhones(companion, say, gate)
        phones.hands.sync(state)
        wait_for_phones(companion, players, say)
        phones.forget_presence()  # arrivals before the game are not news
    except BaseException:
        companion.stop()
        raise
    say("Every hand is on its phone. Choose a card, and tap its section on the last Tum.")
    return phones
