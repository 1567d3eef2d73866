"""Running the Sunken Sailor host from the command line: recordings, the microphone, resume.

The host (:mod:`voicehost.hosts.sailor`) only asks and listens; this module
opens what the command line names (the WAV, the devices, the journal),
wires the announcer and the ``--large`` view, registers the players by
voice when no ``--players`` were given, and reports the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from voicehost.errors import DeviceError, RecordError
from voicehost.games import sailor
from voicehost.hosts.announce import Announcer, default_voice
from voicehost.hosts.sailor import (
    SailorHost,
    SailorResult,
    SailorSettings,
    UsageError,
    host_header,
    open_ears,
    parse_players,
    run_recording,
)


def make_announcer(quiet: bool, output_device: Any = None, mute: Any = None) -> Announcer:
    return Announcer(voice=default_voice(quiet, output_device), quiet=quiet, mute=mute)


def settings_from_args(args) -> SailorSettings:
    players = parse_players(args.players) if args.players else None
    return SailorSettings(players=players, target=args.target, cards=args.cards, seed=args.seed,
                          turn_seconds=args.turn_seconds, accuse_seconds=args.accuse_seconds,
                          listen_seconds=args.listen_seconds, backend=args.backend)


class _View:
    """The ``--large`` view fed from the host's status rows."""

    def __init__(self, announcer: Announcer):
        from voicehost.hosts.view import LargeView

        self.view = LargeView("Sunken Sailor")
        announcer.listeners.append(self.view.add_line)
        self.view.start()

    def __call__(self, host: SailorHost) -> None:
        self.view.update(host.status_rows())

    def stop(self) -> None:
        self.view.stop()


def _report(result: SailorResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.to_dict(), indent=1))
    return 0


def host_from_args(args) -> int:
    settings = settings_from_args(args)
    if args.input is not None:
        if settings.players is None:
            raise UsageError("a recording needs --players name:colour,... (voice registration "
                             "is for live play).")
        return _recording(args, settings)
    return _live(args, settings)


def _recording(args, settings: SailorSettings, journal=None, resume_events=None) -> int:
    announcer = make_announcer(args.quiet, getattr(args, "output_device", None))
    view = _View(announcer) if getattr(args, "large", False) else None
    try:
        result = run_recording(args.input, settings, announcer, journal=journal,
                               journal_path=None if journal is not None else args.journal,
                               resume_events=resume_events, pace=getattr(args, "pace", None),
                               on_status=view)
    finally:
        if view is not None:
            view.stop()
    return _report(result, getattr(args, "json", False))


# -- live -------------------------------------------------------------------------------------
def _mic(device) -> Any:
    from voicehost.audio.microphone import MicrophoneSource

    spec: Any = device
    if isinstance(device, str) and device.isdigit():
        spec = int(device)
    return MicrophoneSource(spec)


def register_by_voice(host_say, ears, tries: int = 3) -> list[sailor.Player]:
    """Ask how many players, then each seat's pencil colour; names follow the seats."""
    from voicehost.hosts.sailor import NUMBERS
    from voicehost.speech.grammar import Question

    def ask(prompt: str, question, label: str):
        for attempt in range(tries * 2):
            host_say(prompt if attempt == 0 else f"Sorry, I did not catch that. {prompt}")
            answer = ears.hear(question, ears.clock + 10.0, label)
            if answer is not None and answer.choice is not None:
                return answer.choice
            if ears.ended:
                raise DeviceError("the audio ended during registration.")
        raise UsageError("registration by voice failed; give --players name:colour,... instead.")

    counts = [NUMBERS[n] for n in range(sailor.MIN_PLAYERS, sailor.MAX_PLAYERS + 1)]
    how_many = ask("How many players? Three to eight.", Question.build(counts, name="count"),
                   "count")
    n = {v: k for k, v in NUMBERS.items()}[how_many]
    players: list[sailor.Player] = []
    free = list(sailor.COLOURS)
    seat = 1
    while seat <= n:
        colour = ask(f"Seat {NUMBERS[seat]}, what is your pencil colour?",
                     Question.build(free, name="colour"), f"colour:{seat}")
        yes = ask(f"Seat {NUMBERS[seat]} is {colour}. Right?", Question.yes_no(), "confirm")
        if yes != "yes":
            continue
        players.append(sailor.Player(f"Player {seat}", colour))
        free.remove(colour)
        seat += 1
    return players


def _live(args, settings: SailorSettings, journal=None, resume_events=None) -> int:
    from voicehost.audio.mute import MuteWindows
    from voicehost.journal import Journal

    mic = _mic(getattr(args, "input_device", None))
    mute = MuteWindows()
    announcer = make_announcer(args.quiet, getattr(args, "output_device", None), mute)
    view = _View(announcer) if getattr(args, "large", False) else None
    try:
        ears = open_ears(mic, settings.backend, mute)
        if settings.players is None:
            settings.players = register_by_voice(
                lambda text: announcer.say(text, ears.clock, "register"), ears)
        if journal is None and getattr(args, "journal", None) is not None:
            run = {"mode": "live", "input_device": getattr(args, "input_device", None)}
            journal = Journal.create(args.journal, "sailor", host_header(settings, run))
        host = SailorHost(settings, announcer, ears, journal, resume_events, skip_audio=False,
                          on_status=view)
        result = host.run()
    finally:
        mic.close()
        if view is not None:
            view.stop()
        if journal is not None:
            journal.close()
    return _report(result, getattr(args, "json", False))


# -- resume -----------------------------------------------------------------------------------
def resume_sailor(path: Path, args) -> int:
    """Continue a Sunken Sailor match from its journal (recording or live)."""
    from voicehost.journal import Journal

    journal = Journal.open_existing(path)
    header = journal.header
    run = header.get("host") or {}
    try:
        settings = SailorSettings.from_header(header)
    except (KeyError, TypeError, ValueError) as exc:
        journal.close()
        raise RecordError(f"{path}: the journal's header is damaged ({exc}); "
                          "it cannot be resumed.") from None
    events = list(journal.events)
    done = sailor.replay_match(journal.to_record())
    if done.over:
        journal.close()
        winners = " and ".join(p.label for p in done.winners)
        rounds = done.rounds_played
        print(f"This match is already over after {rounds} round{'s' if rounds != 1 else ''}: "
              f"{winners} won.")
        return 0
    args.json = getattr(args, "json", False)
    try:
        if run.get("mode") == "recording":
            args.input = Path(run["input"])
            args.pace = run.get("pace")
            return _recording(args, settings, journal=journal, resume_events=events)
        if getattr(args, "input_device", None) is None:
            args.input_device = run.get("input_device")
        return _live(args, settings, journal=journal, resume_events=events)
    except KeyError as exc:
        raise RecordError(f"{path}: the journal's header lacks {exc}; it cannot be resumed.") from None
    finally:
        journal.close()
