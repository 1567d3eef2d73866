"""``voicehost replay RECORD``: a game record (or journal) through the rules alone."""

from __future__ import annotations

import argparse
import json

HELP = "rebuild a game's state from a record or journal, through the rules alone"
ORDER = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="a game record (.json) or a journal (.jsonl)")
    parser.add_argument("--json", action="store_true", help="print the state as JSON")
    parser.add_argument("--narrate", action="store_true",
                        help="tell the game as the host would announce it, then the state")


def run(args: argparse.Namespace) -> int:
    from voicehost.journal import load_record
    from voicehost.replay import replay

    record = load_record(args.record)
    state = replay(record)
    if args.narrate and not args.json:
        from voicehost.hosts.narration import narrate

        for line in narrate(record):
            print(line)
        print()
    if args.json:
        print(json.dumps(state, indent=2, ensure_ascii=False))
    else:
        print(describe(state))
    return 0


def describe(state: dict) -> str:
    """The state as a few plain sentences, for a person (or a screen reader)."""
    if "scores" in state:
        lines = [f"Sunken Sailor after {len(state['rounds'])} round(s)."]
        lines += [f"  {name}: {points} point(s)" for name, points in state["scores"].items()]
        if state["winners"]:
            lines.append("Winner(s): " + ", ".join(state["winners"]) + ".")
        return "\n".join(lines)
    lines = [f"Drakkar Tum Tum: {state['result']}" + (f" ({state['reason']})" if state["reason"] else "") + "."]
    lines.append(f"  Islands found: {state['islands_found']} of 3. Song: {state['song']}.")
    lines.append("  Ship: " + " | ".join(state["ship"]) + ".")
    for name, hand in state["hands"].items():
        lines.append(f"  {name} holds: {', '.join(hand) if hand else 'nothing'}.")
    lines.append(f"  Voyage deck: {state['deck_left']} card(s) left. Next to play: {state['next_player']}.")
    for r in state.get("rejected", []):
        lines.append(f"  Refused play #{r['index']}: {r['why']}")
    return "\n".join(lines)
