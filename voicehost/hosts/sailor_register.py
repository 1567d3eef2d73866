"""Registration by voice: how many players, then each seat's pencil colour.

Kept to questions with a handful of answers each (a number, a colour still
free, yes or no), because those are what a small grammar recognises well;
free names would not be. A player is then named after the seat ("Player 2")
and called by colour, as the host always does. Each colour is confirmed, so
a misheard one is simply asked again.
"""

from __future__ import annotations

from typing import Any, Callable

from voicehost.errors import VoicehostError
from voicehost.games import sailor

NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
           8: "eight"}


class RegistrationError(VoicehostError):
    """Nobody answered the registration questions."""


def register_by_voice(ears: Any, say: Callable[[str], None], tries: int = 3,
                      listen_seconds: float = 10.0) -> list[sailor.Player]:
    """Ask the table for its players; returns them in seat order."""
    from voicehost.speech.grammar import Question

    def ask(prompt: str, question: Any, label: str) -> str:
        for attempt in range(tries):
            say(prompt if attempt == 0 else f"Sorry, I did not catch that. {prompt}")
            answer = ears.hear(question, ears.clock + listen_seconds, label)
            if answer is not None and answer.choice is not None:
                return answer.choice
            if ears.ended:
                break
        raise RegistrationError("nobody answered the registration questions; give the players "
                                "with --players name:colour,... instead.")

    counts = [NUMBERS[n] for n in range(sailor.MIN_PLAYERS, sailor.MAX_PLAYERS + 1)]
    words = {v: k for k, v in NUMBERS.items()}
    while True:
        said = ask(f"How many players? {sailor.MIN_PLAYERS} to {sailor.MAX_PLAYERS}.",
                   Question.build(counts, name="count"), "count")
        if ask(f"{said.capitalize()} players. Right?", Question.yes_no(), "confirm:count") == "yes":
            break
    players: list[sailor.Player] = []
    free = list(sailor.COLOURS)
    seat = 1
    while seat <= words[said]:
        colour = ask(f"Seat {NUMBERS[seat]}, what is your pencil colour?",
                     Question.build(free, name="colour"), f"colour:{seat}")
        if ask(f"Seat {NUMBERS[seat]} is {colour}. Right?", Question.yes_no(),
               f"confirm:colour:{seat}") != "yes":
            continue
        players.append(sailor.Player(f"Player {seat}", colour))
        free.remove(colour)
        seat += 1
    say("Welcome aboard, " + ", ".join(p.label for p in players) + ".")
    return players
