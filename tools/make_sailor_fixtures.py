"""Generate a whole Sunken Sailor match as a recording of the table's spoken answers.

The match is a script: for every question the host will ask (each drawing
turn's "done", each vote and its confirmation, the Drunken Sailor's reveal,
the guess and the sailors' verdict) the answer a player says, placed in time
after the point where the host starts listening (the host's endpointer
closes an utterance ~0.4 s after it ends, and the accusation timer and a
turn time-out consume their length of audio). The answers are espeak-ng
voices over a faint pink-noise floor.

Each answer is checked through the host's own ears (endpointing and the
real PocketSphinx recogniser, with the question the host will ask); when a
voice is misheard another voice is tried, as a person would repeat
themselves more clearly. Deliberate trouble is part of the script: one
turn runs out of time, one voter says nothing at first (asked again after
the host's listening time), one answers outside the grammar (rejected by
the recogniser, asked again), one vote is corrected with "no". Finally the
whole WAV is hosted and the outcome checked against the intended record.

Writes ``audio_fixtures/games/sailor_match.wav`` (16 kHz mono PCM_16) and
``sailor_match.truth.json``. Run from the repository root::

    .venv/bin/python tools/make_sailor_fixtures.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from make_fixtures import RATE, _espeak, pink  # noqa: E402

from voicehost.audio.blocks import blocks_from_array  # noqa: E402
from voicehost.games import sailor  # noqa: E402
from voicehost.hosts.sailor import parse_players, round_rng, suspect_question  # noqa: E402
from voicehost.hosts.sailor_listen import Ears, Tape  # noqa: E402

OUT = ROOT / "audio_fixtures" / "games"
NAME = "sailor_match"
PLAYERS = "ann:red,bo:blue,cy:green"
TARGET = 3
SEED = 0
TURN_SECONDS = 2.5
ACCUSE_SECONDS = 2.0
BACKEND = "pocketsphinx"
#: Silence before each answer, after the host starts listening (s).
LEAD = 0.25
NOISE_STD = 0.0004
#: The host's wait for an answer (SailorSettings.listen_seconds).
LISTEN = 4.0
#: Later placements an answer must also be heard right at (s).
SHIFTS = (0.0, 0.013, 0.037, 0.061, 0.089)
SPEECH_PEAK = 0.5

#: espeak-ng voices tried in turn until the recogniser hears the answer as meant.
VARIANTS = (("en-us", 150, 50), ("en", 150, 45), ("en-gb-x-rp", 140, 40), ("en+m3", 140, 40),
            ("en+f2", 150, 55), ("en-us", 120, 40), ("en+m1", 130, 35), ("en+f4", 140, 60),
            ("en-029", 140, 45), ("en-gb-scotland", 140, 45))

#: A voter who says nothing: the host waits, then asks again.
SILENCE = "(silence)"
#: An answer outside the question's grammar, which the recogniser must reject.
OUT_OF_GRAMMAR = "pancake"

# The intended match (players in seat order red, blue, green).
ROUNDS = [
    {"sailor": "blue", "timeout_turn": 4,
     "votes": [("red", [SILENCE, "blue"]), ("blue", ["red"]), ("green", ["blue"])],
     "guess": ("anchor", False)},
    {"sailor": "red",
     "votes": [("red", ["green"]), ("blue", ["green!", "red"]), ("green", ["red"])],
     "guess": ("lantern", True)},
    {"sailor": "green",
     "votes": [("red", ["I accuse blue"]), ("blue", ["green"]),
               ("green", [OUT_OF_GRAMMAR, "seat one"])],
     "guess": None},
]
#: Other ways a player says an answer, tried when no voice of the first is heard right.
WORDINGS = {"done": ("done", "finished", "I am done"),
            OUT_OF_GRAMMAR: ("pancake", "I don't know", "maybe later", "banana bread")}
#: What a vote answer means (a "!" marks an answer the voter then corrects with "no").
MEANS = {"I accuse blue": "blue", "seat one": "red", OUT_OF_GRAMMAR: None}


def pcm16(x: np.ndarray) -> np.ndarray:
    """``x`` as the host will read it back from the 16-bit WAV."""
    import io

    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, np.clip(x, -1, 1), RATE, subtype="PCM_16", format="WAV")
    buf.seek(0)
    y, _ = sf.read(buf, dtype="float32")
    return y


class Script:
    """The recording, built answer by answer while following the host's ears exactly.

    ``p`` is where the host starts listening for the next question (a sample
    index). Each answer is tried on the real signal from ``p`` on, with the
    host's endpointer and recogniser and its frame grid, so the host will
    hear in the final WAV exactly what was checked here.
    """

    MAX_SECONDS = 140

    def __init__(self) -> None:
        from voicehost.speech.grammar import Question
        from voicehost.speech.recognizer import open_recognizer

        self.players = parse_players(PLAYERS)
        self.questions = {
            "done": Question.done(), "suspect": suspect_question(self.players),
            "yes_no": Question.yes_no(),
            "guess": Question.word_guess(sailor.words(sailor.load_envelopes())),
        }
        self.recognizer = open_recognizer(BACKEND)
        noise = pink(self.MAX_SECONDS * RATE, np.random.default_rng(7))
        self.signal = (noise * (NOISE_STD / np.std(noise))).astype(np.float32)
        self.p = int(0.6 * RATE)
        self.timeline: list[dict] = []
        self.first_try = 0
        self.answers = 0

    def _ears(self, signal: np.ndarray) -> Ears:
        end = min(len(signal), self.p + int((LISTEN + 8.0) * RATE))
        blocks = blocks_from_array(pcm16(signal[self.p:end]), RATE, 1600, start=self.p)
        tape = Tape(iter(blocks), RATE, position=self.p)
        tape._buf_start = self.p
        return Ears(tape, self.recognizer)

    def say(self, text: str, question: str, expect: str | None) -> object:
        """Add an answer said so that the host hears ``expect`` (None: heard and rejected).

        Tries each voice, then the answer's other wordings (:data:`WORDINGS`).
        """
        last = None
        tries = [(t, v) for t in WORDINGS.get(text, (text.rstrip("!"),)) for v in VARIANTS]
        at = self.p + int(LEAD * RATE)
        for n, (spoken, (voice, speed, pitch)) in enumerate(tries, start=1):
            x = (_espeak(spoken, voice, speed, pitch) * SPEECH_PEAK).astype(np.float32)
            # Heard right where it is placed, and also a little later (another frame
            # grid, another stretch of noise), so a small change in the recogniser
            # does not tip it over.
            for shift in SHIFTS:
                trial = self.signal.copy()
                start = at + int(shift * RATE)
                trial[start:start + len(x)] += x
                ears = self._ears(trial)
                answer = ears.hear(self._q(question), self.p / RATE + LISTEN)
                last = answer
                got = None if answer is None else answer.choice
                if answer is None or got != expect:
                    break
            if answer is not None and got == expect:
                self.answers += 1
                self.first_try += n == 1
                trial = self.signal.copy()
                trial[at:at + len(x)] += x
                ears = self._ears(trial)
                answer = ears.hear(self._q(question), self.p / RATE + LISTEN)
                self.signal = trial
                self.p = ears.tape.position
                self.timeline.append({"t": round(at / RATE, 3), "text": spoken,
                                      "question": getattr(question, "name", question), "expect": expect,
                                      "heard": answer.heard, "voice": [voice, speed, pitch],
                                      "tries": n})
                return answer
        raise SystemExit(f"no voice says {text!r} so that it is heard as {expect!r} "
                         f"(last heard {last})")

    def _q(self, question):
        return self.questions[question] if isinstance(question, str) else question

    def silence(self, question: str) -> None:
        """Nobody answers: the host waits its listening time, then asks again."""
        ears = self._ears(self.signal)
        if ears.hear(self.questions[question], self.p / RATE + LISTEN) is not None:
            raise SystemExit("the noise floor was heard as an answer")
        self.p = ears.tape.position
        self.timeline.append({"t": round(self.p / RATE, 3), "text": "(silence)",
                              "question": question, "expect": None, "heard": None})

    def wait(self, seconds: float) -> None:
        """The accusation timer: the host lets this much audio go by."""
        self.p = int(round((self.p / RATE + seconds) * RATE))

    def timeout(self, seconds: float) -> None:
        """A drawing turn nobody ends: the host listens for "done" until its time is up."""
        ears = self._ears(self.signal)
        deadline = self.p / RATE + seconds
        while True:
            answer = ears.hear(self.questions["done"], deadline)
            if answer is None:
                break
            if answer.choice == "done":
                raise SystemExit("the noise floor was heard as done")
        self.p = ears.tape.position

    def render(self) -> tuple[np.ndarray, list[dict]]:
        end = self.p + RATE
        return np.clip(self.signal[:end], -1, 1).astype(np.float32), self.timeline


#: A second, one-round match with the host's own deal (``--cards private``): everyone
#: accuses the dealt Drunken Sailor, who names the secret word with an article.
PRIVATE = {"name": "sailor_private", "target": 1, "seed": 3, "cards": "private",
           "rounds": [{"guess": ("RIGHT", True)}]}
PRINTED = {"name": NAME, "target": TARGET, "seed": SEED, "cards": "printed", "rounds": ROUNDS}


def dealt(players, seed: int, number: int = 1) -> tuple[sailor.Player, str]:
    """The Drunken Sailor and word the host deals in round ``number`` (private cards)."""
    rng = round_rng(seed, number)
    starter = rng.choice(players)
    probe = sailor.start_round(sailor.Match(tuple(players)), rng, starter)
    return probe.sailor, probe.word


def build(spec: dict = PRINTED) -> tuple[Script, dict]:
    s = Script()
    players = s.players
    colour = {p.colour: p for p in players}
    scores = {p: 0 for p in players}
    record_rounds = []
    private = spec["cards"] == "private"
    for number, plan in enumerate(spec["rounds"], start=1):
        starter = round_rng(spec["seed"], number).choice(players)
        word = None
        if private:
            drunk, word = dealt(players, spec["seed"], number)
            seat = players.index(drunk)
            plan = dict(plan, sailor=drunk.colour, votes=[
                (p.colour, [players[(seat + 1) % len(players)].colour if p == drunk
                            else drunk.colour]) for p in players])
        for turn in range(1, 2 * len(players) + 1):
            if plan.get("timeout_turn") == turn:
                s.timeout(TURN_SECONDS)
            else:
                s.say("done", "done", "done")
        s.wait(ACCUSE_SECONDS)
        votes = {}
        for voter, answers in plan["votes"]:
            for text in answers:
                if text == SILENCE:
                    s.silence("suspect")
                    continue
                meant = MEANS.get(text, text.rstrip("!"))
                s.say(text, "suspect", meant)
                if meant is None:
                    continue  # rejected: the host asks again
                if text.endswith("!"):
                    s.say("no", "yes_no", "no")
                    continue
                s.say("yes", "yes_no", "yes")
                votes[voter] = meant
        if not private:
            s.say(plan["sailor"], "suspect", plan["sailor"])
            s.say("yes", "yes_no", "yes")
        drunk = colour[plan["sailor"]]
        ballots = {colour[v]: colour[x] for v, x in votes.items()}
        tally = sailor.count_votes(players, drunk, ballots)
        guess_word, right = (None, None)
        if tally.unmasked:
            assert plan["guess"] is not None, f"round {number}: the sailor is unmasked"
            guess_word, right = plan["guess"]
            if private:
                guess_word = word if right else guess_word
                s.say(f"the {guess_word}", "guess", guess_word)
                s.say("yes", "yes_no", "yes")  # the guesser confirms what was heard
            else:
                s.say(guess_word, "guess", guess_word)
                s.say("yes" if right else "no", "yes_no", "yes" if right else "no")
        else:
            assert plan["guess"] is None, f"round {number}: the sailor escapes"
        points = sailor.round_points(players, tally, right)
        for p, n in points.items():
            scores[p] += n
        record_rounds.append({
            "starter": starter.name, "sailor": drunk.name, "word": word,
            "votes": {colour[v].name: colour[x].name for v, x in votes.items()},
            "unmasked": tally.unmasked, "guess": guess_word, "guess_right": right,
            "points": {p.name: n for p, n in points.items()},
        })
    winners = [p.name for p in players if scores[p] >= spec["target"]]
    assert winners, "the script must end the match"
    truth = {
        "game": "sailor", "players": PLAYERS, "target": spec["target"], "seed": spec["seed"],
        "cards": spec["cards"], "turn_seconds": TURN_SECONDS, "accuse_seconds": ACCUSE_SECONDS,
        "listen_seconds": LISTEN,
        "backend": BACKEND, "rounds": record_rounds,
        "outcome": {"scores": {p.name: scores[p] for p in players}, "winners": winners},
    }
    return s, truth


#: Registration by voice only (the recording ends before a match): three players, the
#: second colour misheard-or-changed and corrected with "no".
REGISTER = {"name": "sailor_register", "count": "three",
            "colours": [["red"], ["blue!", "purple"], ["green"]]}


def make_register(spec: dict = REGISTER) -> None:
    import soundfile as sf

    from voicehost.hosts.announce import Announcer
    from voicehost.hosts.sailor import SailorSettings, run_recording
    from voicehost.speech.grammar import Question

    s = Script()
    numbers = ["three", "four", "five", "six", "seven", "eight"]
    s.say(spec["count"], Question.build(numbers, name="count"), spec["count"])
    s.say("yes", "yes_no", "yes")
    free = list(sailor.COLOURS)
    players = []
    for seat, answers in enumerate(spec["colours"], start=1):
        for text in answers:
            colour = text.rstrip("!")
            s.say(colour, Question.build(free, name="colour"), colour)
            if text.endswith("!"):
                s.say("no", "yes_no", "no")
                continue
            s.say("yes", "yes_no", "yes")
            free.remove(colour)
            players.append([f"Player {seat}", colour])
    y, timeline = s.render()
    wav = OUT / f"{spec['name']}.wav"
    sf.write(str(wav), y, RATE, subtype="PCM_16")
    truth = {"game": "sailor", "registration": True, "players": players,
             "listen_seconds": LISTEN, "backend": BACKEND, "duration": round(len(y) / RATE, 2),
             "answers": timeline}
    result = run_recording(wav, SailorSettings(players=None, backend=BACKEND,
                                               listen_seconds=LISTEN),
                           Announcer(quiet=True, silent=True))
    got = [[p.name, p.colour] for p in result.match.players]
    if got != players:
        raise SystemExit(f"registering from {wav.name} gave {got}, not {players}")
    (OUT / f"{spec['name']}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(f"{wav.name}: {truth['duration']} s, players {got}")


def main(argv: list[str]) -> int:
    """Make every fixture, or only those named (sailor_match, sailor_private, sailor_register)."""
    for spec in (PRINTED, PRIVATE):
        if not argv or spec["name"] in argv:
            make(spec)
    if not argv or REGISTER["name"] in argv:
        make_register()
    return 0


def make(spec: dict) -> None:
    import io

    import soundfile as sf

    from voicehost.hosts.announce import Announcer
    from voicehost.hosts.sailor import recorded_match, run_recording

    script, truth = build(spec)
    y, timeline = script.render()
    OUT.mkdir(parents=True, exist_ok=True)
    name = spec["name"]
    wav = OUT / f"{name}.wav"
    sf.write(str(wav), y, RATE, subtype="PCM_16")
    truth["duration"] = round(len(y) / RATE, 2)
    truth["answers"] = timeline
    truth["recognition"] = {"answers": script.answers,
                            "heard_with_first_voice": script.first_try}
    truth_path = OUT / f"{name}.truth.json"
    truth_path.write_text(json.dumps(truth, indent=1) + "\n")
    # The proof: host the recording and get the intended outcome.
    _, settings, _ = recorded_match(truth_path)
    announcer = Announcer(quiet=True, silent=True)
    keys = io.StringIO("\n" * 2 * len(settings.players) * len(spec["rounds"]))
    result = run_recording(wav, settings, announcer, keys=keys, screen=io.StringIO())
    got = {"scores": result.scores, "winners": result.winners}
    if got != truth["outcome"]:
        raise SystemExit(f"hosting {wav.name} gave {got}, not {truth['outcome']}")
    heard = result.to_dict()["heard"]
    truth["hosted"] = {"utterances": len(heard),
                       "rejected": sum(1 for h in heard if h["choice"] is None)}
    truth_path.write_text(json.dumps(truth, indent=1) + "\n")
    print(f"{wav.name}: {truth['duration']} s, {script.answers} answers, "
          f"{script.first_try} heard with the first voice; outcome {got}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
