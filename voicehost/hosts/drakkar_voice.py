"""Declaring Drakkar plays by voice: said right after the slap, checked in the quiet after it.

A table with only a microphone and a speaker declares each play aloud: the
player slaps the card on the last Tum and says it with its section ("red
rower one", "Kraken two"). Everyone then stops singing; the host repeats what
it heard as a question ("Ann: red rower on one?") and the player answers
"yes", or says the card again, or "no" (then the host asks which card). Once
confirmed, the play is judged by its slap against the last Tum, exactly as a
key press or a phone tap is, and the table warms up again.

Why the song stops at every play: over the table's singing, PocketSphinx
misheard a third of the declarations, even with a grammar of only the
player's hand (measured on the chant fixtures: 15 of 22 right with the
declaration as loud as the singing, 19 of 22 when 6 dB louder; "Drakkar",
"Tum" and "Kraken", "two" sound alike), and the wrong ones came with the
same confidence as the right ones. A misheard card would change the ship.
In the quiet after the song the same recogniser hears the declaration as
it hears any answer, and a yes/no check catches the rest. The rhythm is
still judged: the slap times the play.

The grammar is the player's hand times the three sections, so an answer is
always a card the player holds. The slap is the turn's player's, except
when that player holds no card that fits the ship (the rules have no pass:
another player must play out of turn); then the others' hands are asked
for, each declaration led by the player's name ("Bo red rower one").

Answers are endpointed above a 150 Hz high-pass: the table sings again soon
after its "yes", and in a room's rumble the raw level never let the answer
end before the singing (see ``EndpointConfig.highpass``).

All listening is on the sample clock (:class:`~voicehost.hosts.sailor_listen.Tape`):
every block the ears read goes through the host first, so the song, the
stop and the slap are heard exactly as without the ears, and a recording
hosted twice hears the same answers (resume).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from voicehost.games import drakkar
from voicehost.hosts.drakkar_declarations import Declaration
from voicehost.hosts.drakkar_song import WORDS, _cap, song_words
from voicehost.speech import parsing
from voicehost.speech.grammar import Question

#: Seconds after the slap within which the declaration said right after it starts.
SAY_WITHIN = 2.5
#: Seconds after the slap by which the table has stopped singing (the host then asks).
STOP_WAIT = 4.0
#: Seconds to answer each question.
ANSWER_WAIT = 8.0
#: Unheard or refused answers before the host gives up on a declaration.
TRIES = 3
#: Seconds the host hears ahead of the ears while the song goes on: when the
#: ears reach a slap, the tracker has confirmed the last Tum near it (with
#: the onset it heard, some way into the next beat), so the ears can listen
#: from the slap on for its declaration.
AHEAD = 1.2
#: Frames read between looks at the host (20 ms at 16 kHz).
FRAME = 320

INSTRUCTIONS = ("Declare by voice: right after your slap, say your card and its section, "
                "like red rower one. Then everyone stops singing and I check it with you.")


@dataclass(frozen=True)
class Choice:
    """One declaration that may be said: a card of a player's hand on a section."""

    player: str
    card: str  # record name ("rower:red")
    slot: int
    phrase: str  # as said ("red rower one"; "bo red rower one" out of turn)
    named: bool = False  # the phrase starts with the player's name

    @property
    def spoken(self) -> str:
        """How the host repeats it ("red rower on one")."""
        card = drakkar.Card.parse(self.card).spoken
        return f"{card} on {WORDS[self.slot]}"

    @property
    def said_forms(self) -> list[str]:
        """Other ways to say it: "red rower on one", "red rower section one"."""
        lead = f"{parsing.normalise(self.player)} " if self.named else ""
        card = drakkar.Card.parse(self.card).spoken.lower()
        return [f"{lead}{card} on {WORDS[self.slot]}", f"{lead}{card} section {WORDS[self.slot]}"]


def choices_for(state: drakkar.DrakkarState, player: str) -> dict[str, Choice]:
    """Every declaration that may follow a slap on ``player``'s turn, by phrase.

    The player's hand times the sections; when no card of it fits the ship,
    the other players' hands instead, each phrase led by the player's name.
    """
    named = not drakkar.legal_plays(state, player) and not state.pending_discards
    who = [p for p in state.players if p != player] if named else [player]
    out: dict[str, Choice] = {}
    for p in who:
        lead = f"{parsing.normalise(p)} " if named else ""
        for card in state.hands.get(p, ()):
            words = card.spoken.lower()
            for slot in (1, 2, 3):
                phrase = f"{lead}{words} {WORDS[slot]}"
                out.setdefault(phrase, Choice(p, str(card), slot, phrase, named))
    return out


def declaration_question(choices: dict[str, Choice]) -> Question:
    """The declaration alone ("red rower one", "red rower on one")."""
    aliases = {p: c.said_forms for p, c in choices.items()}
    return Question.build(list(choices), aliases=aliases, carriers=(), name="declaration")


def check_question(choices: dict[str, Choice]) -> Question:
    """The answer to "red rower on one?": yes, no, or the declaration said again."""
    aliases: dict[str, list[str]] = {"yes": list(parsing.YES_WORDS), "no": list(parsing.NO_WORDS)}
    for p, c in choices.items():
        aliases[p] = c.said_forms[:1]
    return Question.build(["yes", "no", *choices], aliases=aliases, carriers=(),
                          name="declaration_check")


@dataclass
class VoiceDeclarations:
    """Runs a :class:`~voicehost.hosts.drakkar.DrakkarHost` on a block source, taking plays by voice.

    Parameters
    ----------
    host
        The host; every block goes through it before the ears read it.
    recognizer
        A speech recogniser (:func:`voicehost.speech.recognizer.open_recognizer`).
    mute
        The live half-duplex windows (the host's own voice is never heard).
    """

    host: Any
    recognizer: Any
    mute: Any = None
    on_block: Callable[[Any], None] | None = None
    #: What was heard, question by question (to see why a declaration was missed).
    heard: list[dict[str, Any]] = field(default_factory=list)
    _taken: list[float] = field(default_factory=list)

    def run(self, blocks: Iterable[Any]):
        """Host until the game ends or the audio does; returns the host's result."""
        from voicehost.hosts.sailor_listen import Ears, Tape
        from voicehost.speech.listener import EndpointConfig

        host = self.host
        self.feed = _AheadOfEars(blocks, host, self.on_block)
        self.tape = Tape.of(self.feed, rate=host.rate)
        self.ears = Ears(self.tape, self.recognizer, self.mute, EndpointConfig(highpass=150.0))
        self.ears.heard = self.heard
        host.stops_at_plays = True
        host.say(INSTRUCTIONS, 0.0, "hint")
        while not host.done:
            if self.tape.read(FRAME) is None:
                break
            slap = self._play_slap()
            if slap is not None:
                self.feed.ahead = 0.0  # answers are wanted as soon as they are said
                self._take(slap)
                self.feed.ahead = AHEAD
        return host.finish()

    # -- the audio ------------------------------------------------------------------
    def _play_slap(self) -> float | None:
        """The next play slap (see the host's ``play_slaps``) once the ears have reached it."""
        host = self.host
        index = len(self._taken)
        while True:
            if index < len(host.play_slaps):
                s = host.play_slaps[index]
                if self.tape.clock < s + 0.1 and not self.feed.ended:
                    return None  # the ears listen for its declaration from here
                self._taken.append(s)
                return s
            # Slaps the host has not settled yet, which the ears have reached:
            # let the host hear on until it has.
            pending = host.slaps[host.slaps_settled:]
            if not pending or self.tape.clock < pending[0] + 0.1 or not self.feed.pump():
                return None

    # -- the questions --------------------------------------------------------------
    def _take(self, slap: float) -> None:
        """Hear the play of ``slap``, check it with its player, and declare it to the host."""
        host = self.host
        turn = host.state.turn
        choices = choices_for(host.state, turn)
        if not choices:
            return
        named = next(iter(choices.values())).named
        # Out of turn, the host asks the table; the check names the player heard.
        asked = "Who played" if named else _cap(turn)
        declare_q = declaration_question(choices)
        check_q = check_question(choices)
        self.tape.skip_to(slap + 0.1)
        first = self.ears.hear(declare_q, slap + SAY_WITHIN, "declaration")
        candidate = choices.get(first.choice) if first is not None and first.choice else None
        # Ask only once the table is quiet: the singing would be heard as the answer.
        while not host.stops or host.stops[-1] < slap:
            if self.tape.clock >= slap + STOP_WAIT or self.tape.read(FRAME) is None:
                break
        misses = 0
        while misses < TRIES and not self.ears.ended:
            sorry = "Sorry, I did not catch that. " if misses else ""
            if candidate is not None:
                host.say(f"{sorry}{_cap(candidate.player)}: {candidate.spoken}?", self.tape.clock,
                         "question")
                answer = self.ears.hear(check_q, self.tape.clock + ANSWER_WAIT, "check")
                said = answer.choice if answer is not None else None
                if said == "yes":
                    self._declare(slap, candidate)
                    return
                if said == "no":
                    candidate = None
                    continue
                if said in choices:
                    candidate = choices[said]
                    continue
            else:
                question = ("which card, and which section? Say your name first." if named
                            else "which card, and which section?")
                host.say(f"{sorry}{asked}, {question}", self.tape.clock, "question")
                answer = self.ears.hear(declare_q, self.tape.clock + ANSWER_WAIT, "declaration")
                if answer is not None and answer.choice in choices:
                    candidate = choices[answer.choice]
                    continue
            misses += 1
        song = host.state.song
        who = "" if named else f", {_cap(turn)}"
        host.say(f"I did not get the card{who}: take it back. Warm up twice: "
                 f"{song_words(song.tums, song.reversed)}. {_cap(turn)} plays.", self.tape.clock,
                 "stop")

    def _declare(self, slap: float, choice: Choice) -> None:
        host = self.host
        played = len(host.plays)
        host.declare(Declaration(slap + 0.01, choice.player, choice.card, choice.slot,
                                 source="voice"))
        host.settle()
        # A play that stopped the song (a mistake, an island) was announced
        # with its restart; any other, or one the rules refused, needs it said.
        restarted = len(host.plays) > played and host.plays[-1].stops_song
        if not host.done and not restarted:
            song = host.state.song
            host.say(f"Warm up twice: {song_words(song.tums, song.reversed)}. "
                     f"{_cap(host.state.turn)} plays.", self.tape.clock, "stop")


class _AheadOfEars:
    """The blocks for the ears' tape, each fed to the host first, ``ahead`` seconds in front.

    Every block goes through the host exactly once and in order, so the song
    is heard exactly as without the ears; only the ears lag behind.
    """

    def __init__(self, blocks: Iterable[Any], host: Any,
                 on_block: Callable[[Any], None] | None = None):
        self._src = iter(blocks)
        self.host = host
        self.on_block = on_block
        self.ahead = AHEAD
        self.ended = False
        self._queue: deque[Any] = deque()
        self._fed_end = 0.0

    def __iter__(self) -> "_AheadOfEars":
        return self

    def pump(self) -> bool:
        """Feed the host one more block (kept for the ears); False at the end of the audio."""
        try:
            block = next(self._src)
        except StopIteration:
            self.ended = True
            return False
        if not self.host.done:
            self.host.feed(block)
            if self.on_block is not None:
                self.on_block(self.host)
        self._fed_end = block.end / block.rate
        self._queue.append(block)
        return True

    def __next__(self) -> Any:
        while not self.ended and (not self._queue or self._fed_end
                                  < self._queue[0].end / self._queue[0].rate + self.ahead):
            if not self.pump():
                break
        if not self._queue:
            raise StopIteration
        return self._queue.popleft()
