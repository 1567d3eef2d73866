"""``voicehost analyze WAV``: onsets, beats, bars and last Tums of a chant recording."""

from __future__ import annotations

import argparse
import json

from voicehost.commands.judge import add_songs_argument, load_songs
from voicehost.errors import print_notes

HELP = "find the chant's onsets, beats, bars and last Tums in a recording"
ORDER = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wav", metavar="WAV", help="a recording (WAV, FLAC, OGG; any rate)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--tums", type=int, default=3, choices=(1, 2, 3),
                        help="Tums the song has at the start (default 3)")
    parser.add_argument("--reversed", action="store_true",
                        help='the song after Whirlpool Island: "Tum Tum Tum Drakkar"')
    add_songs_argument(parser)
    parser.add_argument("--plot", metavar="PNG",
                        help="also draw waveform, onset strength, onsets, beats and last Tums")


def run(args: argparse.Namespace) -> int:
    songs = load_songs(getattr(args, "songs", None))
    from voicehost.audio.analysis import analyze

    result = analyze(args.wav, tums=args.tums, reversed=args.reversed, record=bool(args.plot),
                     follow=not songs, songs=songs)
    print_notes(result.notes)
    out = result.as_dict()
    if args.plot:
        from voicehost.audio.plot import plot_analysis

        plot_analysis(result, args.plot, title=str(args.wav))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        bpm = out["tempo_bpm"]
        print(f"{args.wav}: {out['duration']:.1f} s, "
              f"{'no steady chant' if bpm is None else f'{bpm:.0f} BPM'}, "
              f"{len(out['onsets'])} onsets, {len(out['bars'])} bars")
        for i, b in enumerate(out["bars"]):
            song = "reversed" if b["reversed"] else "normal"
            print(f"  bar {i + 1}: starts {b['start']:.3f} s, {b['tums']} Tums ({song}), "
                  f"last Tum {b['last_tum']:.3f} s")
        for e in out["events"]:
            print(f"  {e['event']} at {e['t']:.2f} s")
    return 0
