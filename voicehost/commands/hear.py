"""``voicehost hear``: recognise one spoken answer in a recording."""

from __future__ import annotations

import argparse
import json

from voicehost.errors import print_notes

HELP = "recognise one spoken answer in a WAV file, restricted to the given choices"
ORDER = 42
#: Recordings up to this long (seconds) are decoded whole; longer ones are endpointed.
WHOLE_FILE = 8.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wav", metavar="WAV", help="a recording of one answer (any rate, mono or stereo)")
    parser.add_argument("--choices", required=True,
                        help="comma-separated answers, e.g. red,blue,green")
    parser.add_argument("--backend", choices=("auto", "pocketsphinx", "vosk"), default="auto",
                        help="recogniser (default: vosk if a model is installed, else pocketsphinx)")
    parser.add_argument("--model", help="a Vosk model folder (implies --backend vosk)")
    parser.add_argument("--no-carriers", action="store_true",
                        help="accept bare answers only, not 'I vote red' or 'seat three'")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")


def run(args: argparse.Namespace) -> int:
    from voicehost.audio.sources import FileSource
    from voicehost.speech.grammar import Question
    from voicehost.speech.listener import Listener
    from voicehost.speech.recognizer import missing_notes, open_recognizer

    choices = [c for c in args.choices.split(",") if c.strip()]
    kwargs = {"carriers": ()} if args.no_carriers else {}
    question = Question.build(choices, **kwargs)
    source = FileSource(args.wav)
    print_notes(source.notes)
    backend = "vosk" if args.model and args.backend == "auto" else args.backend
    recognizer = open_recognizer(backend, args.model)
    prepared = recognizer.prepare(question)
    print_notes(missing_notes(recognizer.name, prepared.missing))
    if source.duration <= WHOLE_FILE:
        # one short answer: decode all of it (endpointing could clip a
        # recording that starts right on the word)
        answer = recognizer.recognize(source.read(), prepared)
    else:
        answer = Listener(recognizer).listen(source.blocks(), prepared, max_wait=float("inf"),
                                             whole_if_silent=True).answer
    if args.json:
        print(json.dumps(answer.to_json()))
    else:
        shown = answer.choice if answer.choice is not None else "(no answer: not one of the choices)"
        print(f"{shown}\theard: {answer.heard!r}\tconfidence {answer.confidence:.2f}\t{answer.backend}")
    return 0
