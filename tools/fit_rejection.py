"""Fit the answer-rejection model on a calibration set the benchmark never reports.

Calibration set (kept apart from what ``python -m bench speech`` scores):

- espeak-ng voices that are not in ``make_speech_fixtures.BENCH_VOICES``
  (:data:`CAL_VOICES`), saying other utterances (:data:`CAL_ITEMS`: other
  carriers, names, seats, yes/no and done forms, and other out-of-grammar
  words), clean and at 20, 10 and 5 dB SNR, through the same listener
  (endpointer) as the benchmark;
- the real spoken digits (FSDD) with an even take number (``*_0``, ``*_2``
  ...); the benchmark reports the odd takes as its held-out real set.

Each utterance is decoded with rejection off; the features of the decoded
answer (:class:`voicehost.speech.rejection.Features`) and whether the answer
was right are kept. A logistic regression then predicts "right"; the
threshold is the highest probability that keeps false rejection of right
answers at most :data:`MAX_FALSE_REJECT` on the calibration set.

Run ``python tools/fit_rejection.py`` (a few minutes); it writes
``voicehost/data/speech_rejection.json`` and prints the calibration figures.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import make_speech_fixtures as fx  # noqa: E402

FSDD = ROOT.parent / "shared" / "data" / "real" / "fsdd"
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
#: False rejection of right answers allowed on the calibration set. At 3%
#: the model beats the old fixed score threshold on the calibration set in
#: both right answers kept and out-of-grammar words rejected, in every noise
#: condition; at 2% it kept more right answers but rejected fewer other words.
MAX_FALSE_REJECT = 0.03

#: Voices never used by the benchmark or the committed fixtures.
CAL_VOICES = [("en-gb-x-gbclan", 150), ("en-us-nyc+m3", 170), ("en-gb-x-gbcwmd+f4", 160),
              ("en-us+m2", 145), ("en-gb+f1", 185)]
#: Utterances (other than the benchmark's where the question allows).
CAL_ITEMS: list[tuple[str, str, str | None]] = [
    *[(c, "colour", c) for c in fx.COLOURS],
    ("I vote purple", "vote", "purple"), ("number eight", "vote", "purple"),
    ("Frank", "vote", "white"), ("Grace", "vote", "orange"),
    ("I accuse green", "vote", "green"), ("seat four", "vote", "yellow"),
    ("four", "seat", "four"), ("one", "seat", "one"), ("eight", "seat", "eight"),
    ("three", "seat", "three"), ("yeah", "yes_no", "yes"), ("nope", "yes_no", "no"),
    ("finished", "done", "done"), ("the parrot", "word", "parrot"),
    ("compass", "word", "compass"), ("a whale", "word", "whale"),
    ("window", "colour", None), ("coffee", "colour", None), ("rabbit", "colour", None),
    ("monday", "seat", None), ("pencil", "seat", None), ("thirty", "seat", None),
    ("maybe", "yes_no", None), ("mountain", "word", None), ("river", "vote", None),
    ("kitchen", "vote", None),
]
CONDITIONS = [("clean", None), ("20 dB", 20.0), ("10 dB", 10.0), ("5 dB", 5.0)]


def is_calibration_take(path: str) -> bool:
    """FSDD files used for calibration: even take numbers (the benchmark holds out the odd)."""
    return int(Path(path).stem.split("_")[2]) % 2 == 0


def collect() -> list[dict]:
    """Decode the calibration set with rejection off; one record per utterance."""
    from voicehost.audio.blocks import blocks_from_array
    from voicehost.audio.sources import read_audio
    from voicehost.speech.grammar import Question
    from voicehost.speech.listener import Listener
    from voicehost.speech.sphinx import SphinxRecognizer

    rec = SphinxRecognizer(reject_below=-np.inf, model=False)
    listener = Listener(rec)
    rows = []

    def add(group, text, expected, answer):
        f = rec.last_features
        rows.append({"group": group, "text": text, "expected": expected,
                     "choice": answer.choice, "heard": answer.heard,
                     "features": asdict(f) if f else None})

    prepared = {k: rec.prepare(fx.question(k)) for k in fx.QUESTIONS}
    for cond, snr in CONDITIONS:
        for vi, (voice, speed) in enumerate(CAL_VOICES):
            for k, (text, q, expected) in enumerate(CAL_ITEMS):
                audio = fx.render(text, voice, speed, snr, seed=104729 + 31 * vi + k)
                heard = listener.listen(blocks_from_array(audio, 16000, 320), prepared[q],
                                        max_wait=float("inf"), whole_if_silent=True)
                add(f"espeak {cond}", text, expected, heard.answer)
    digit_q = rec.prepare(Question.build(DIGITS, aliases={"zero": ["oh"]}, carriers=(), name="digit"))
    for path in sorted(glob.glob(str(FSDD / "*.wav"))):
        if not is_calibration_take(path):
            continue
        digit = DIGITS[int(Path(path).stem.split("_")[0])]
        add("fsdd even takes", digit, digit, rec.recognize(read_audio(path), digit_q))
    return rows


def fit(rows: list[dict], max_false_reject: float = MAX_FALSE_REJECT):
    """A :class:`RejectionModel` from collected rows (right answers vs everything else)."""
    from sklearn.linear_model import LogisticRegression

    from voicehost.speech.rejection import Features, RejectionModel

    usable = [r for r in rows if r["features"]]
    X = np.array([Features(**r["features"]).vector() for r in usable])
    right = np.array([r["expected"] is not None and r["choice"] == r["expected"] for r in usable])
    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-9
    lr = LogisticRegression(C=1.0, max_iter=1000).fit((X - mean) / scale, right)
    model = RejectionModel(lr.coef_[0].tolist(), float(lr.intercept_[0]), mean.tolist(),
                           scale.tolist(), 0.0)
    p = np.array([model.probability(Features(**r["features"])) for r in usable])
    # the highest threshold keeping false rejection of right answers under the cap
    ok = np.sort(p[right])
    k = int(np.floor(max_false_reject * len(ok)))
    model.threshold = float(ok[k] - 1e-9) if len(ok) else 0.5
    model.meta = {"fitted_on": "tools/fit_rejection.py calibration set",
                  "n": int(len(usable)), "n_right": int(right.sum()),
                  "max_false_reject": max_false_reject}
    return model


def report(rows: list[dict], model) -> None:
    from collections import defaultdict

    from voicehost.speech.rejection import Features

    t = defaultdict(lambda: [0, 0, 0, 0, 0])
    for r in rows:
        keep = r["features"] is not None and model.accept(Features(**r["features"]))
        choice = r["choice"] if keep else None
        g = t[r["group"]]
        if r["expected"] is None:
            g[3] += 1
            g[4] += choice is None
        else:
            g[0] += 1
            g[1] += choice == r["expected"]
            g[2] += choice is None and r["choice"] == r["expected"]
    print(f"{'calibration group':<20}{'n':>5}{'right%':>8}{'rightRej%':>10}{'OOG n':>6}{'OOGrej%':>8}")
    for group, (n, ok, rej, no, norej) in t.items():
        print(f"{group:<20}{n:>5}{100 * ok / max(n, 1):>8.1f}{100 * rej / max(n, 1):>10.1f}"
              f"{no:>6}{100 * norej / max(no, 1):>8.1f}")


def main(argv: list[str]) -> int:
    from voicehost.speech.rejection import DATA

    ap = argparse.ArgumentParser(prog="python tools/fit_rejection.py")
    ap.add_argument("--cache", help="JSON of collected rows: read if present, else written")
    ap.add_argument("--out", default=str(DATA))
    args = ap.parse_args(argv)
    if args.cache and Path(args.cache).is_file():
        rows = json.loads(Path(args.cache).read_text())
    else:
        rows = collect()
        if args.cache:
            Path(args.cache).write_text(json.dumps(rows))
    model = fit(rows)
    report(rows, model)
    Path(args.out).write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}: threshold {model.threshold:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
