"""Players by voice, before a live Drakkar game: how many are at the table.

Free names are what a small grammar recognises worst, so the host asks only
the number of players (two to four, as printed) and confirms it; players
are then called by seat ("Player 1", "Player 2" ...), clockwise from the
one who starts. The listening is the speech package's, through the Sunken
Sailor host's ears (endpointing, then the recogniser on each utterance),
on the same microphone blocks the game then goes on reading.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from voicehost.errors import VoicehostError

NUMBERS = {2: "two", 3: "three", 4: "four"}


class RegistrationError(VoicehostError):
    """Nobody answered the registration question."""


def seat_names(count: int) -> list[str]:
    return [f"Player {k}" for k in range(1, count + 1)]


def register_by_voice(blocks: Iterable[Any], say: Callable[[str, float], None],
                      recognizer: Any, mute: Any = None, tries: int = 3,
                      listen_seconds: float = 8.0) -> tuple[list[str], Iterator[Any]]:
    """Ask how many play; returns the players and the blocks after the answers.

    ``say(text, t)`` speaks at sample-clock time ``t``. Raises
    :class:`RegistrationError` when nobody answers after ``tries`` attempts.
    """
    from voicehost.audio.blocks import Block
    from voicehost.hosts.sailor_listen import Ears, Tape
    from voicehost.speech.grammar import Question

    tape = Tape.of(blocks)
    ears = Ears(tape, recognizer, mute)
    ears.prime()  # the microphone records before the first question is asked

    def ask(prompt: str, question: Any, label: str) -> str:
        for attempt in range(tries):
            say(prompt if attempt == 0 else f"Sorry, I did not catch that. {prompt}", ears.clock)
            answer = ears.hear(question, ears.clock + listen_seconds, label)
            if answer is not None and answer.choice is not None:
                return answer.choice
            if ears.ended:
                break
        raise RegistrationError("nobody said how many players there are; give them with "
                                "--players ann,bo instead.")

    words = {v: k for k, v in NUMBERS.items()}
    count_q = Question.build(list(NUMBERS.values()), name="count")
    while True:
        said = ask("How many players? Two to four.", count_q, "count")
        if ask(f"{said.capitalize()} players. Right?", Question.yes_no(), "confirm") == "yes":
            break
    players = seat_names(words[said])
    say(f"Welcome aboard, {', '.join(players)}. Player 1 starts.", ears.clock)

    def rest() -> Iterator[Any]:
        while True:
            start = tape.position
            samples = tape.read(1600)
            if samples is None or not len(samples):
                return
            yield Block(start, samples, tape.rate)

    return players, rest()
