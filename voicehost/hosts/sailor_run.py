"""Running the Sunken Sailor host from the command line: recordings, the microphone, resume.

The host (:mod:`voicehost.hosts.sailor`) only asks and listens; this module
opens what the command line names (the WAV, the devices, the journal),
wires the announcer and the ``--large`` view, registers the players by
voice when no ``--players`` were given, and reports the result.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from voicehost.errors import RecordError
from voicehost.games import sailor
from voicehost.hosts.announce import Announcer, make_announcer
from voicehost.hosts.sailor import (
    SailorHost,
    SailorResult,
    SailorSettings,
    host_header,
    open_ears,
    parse_players,
    run_recording,
    say_live,
)
from voicehost.hosts.microphone import MICROPHONE_LOST


#: The bundled match recordings, in ``audio_fixtures/games``: a whole printed-cards match
#: (three rounds, about 57 s of answers) and a one-round private-cards match (16 s).
RECORDED = ("sailor_match", "sailor_private")


def host_recorded_matches(folder: Path, quiet: bool = True, output_device: Any = None,
                          header=print, names: tuple[str, ...] = ("sailor_match",),
                          speak=None) -> list[tuple[str, SailorResult]]:
    """Host bundled Sunken Sailor recordings through the live pipeline (for ``demo``).

    ``header(text)`` is called before each match. Each recording is hosted
    with the settings in its truth file (players, target, seed, time limits,
    backend), so the outcome is the one the truth states. A private-cards
    recording has nobody at the screen: the host only says the cards are dealt.
    """
    from voicehost.hosts.sailor import recorded_match

    results = []
    for name in names:
        wav, settings, _ = recorded_match(Path(folder) / f"{name}.truth.json")
        header(f"== {name.replace('_', ' ')} ==")
        announcer = make_announcer(quiet, output_device)
        if speak is not None:
            announcer.speak = speak  # which lines are spoken; the others are printed

        def deliver(roles, word, announcer=announcer) -> None:
            t = announcer.lines[-1].t if announcer.lines else 0.0
            announcer.say("Each player now reads their card in private.", t, "deal")

        results.append((name, run_recording(wav, settings, announcer, deliver=deliver)))
    return results


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

    def pause(self) -> None:
        """Let the terminal show something else (a private card) undisturbed."""
        self.view.stop()

    def resume(self) -> None:
        self.view.start()

    def stop(self) -> None:
        self.view.stop()


def _report(result: SailorResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.to_dict(), indent=1))
    return 0


def host_from_args(args) -> int:
    from voicehost.companion.launch import check_phone_args

    check_phone_args(args)
    settings = settings_from_args(args)
    if args.input is not None:
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
def _live(args, settings: SailorSettings, journal=None, resume_events=None) -> int:
    from voicehost.audio.mute import MuteWindows
    from voicehost.hosts.settings import mute_tail
    from voicehost.journal import Journal

    from voicehost.hosts.microphone import open_microphone, report_losses

    heard_by: list[Any] = []  # the ears, once open: they hear of the device going and coming
    mic = open_microphone(getattr(args, "input_device", None),
                          lambda event: heard_by and heard_by[0].device_event(event),
                          getattr(args, "record_input", None))
    mute = MuteWindows(tail=mute_tail())  # the room's echo, as calibrated
    # Each line muted from when it is handed to the card, on the microphone's clock.
    announcer = make_announcer(args.quiet, getattr(args, "output_device", None), mute, mic.now)
    view = _View(announcer) if getattr(args, "large", False) else None
    box: list[SailorHost] = []
    stack = contextlib.ExitStack()

    def on_block(t: float) -> None:  # the timer in the large view follows the sample clock
        if view is not None and box:
            view(box[0])

    try:
        ears = open_ears(mic, settings.backend, mute, on_block=on_block)
        heard_by.append(ears)

        def speak(text: str, kind: str) -> None:  # before the host exists, and to the phones
            say_live(announcer, ears, mic.now, text, kind)

        ears.on_outage = lambda gone: speak(MICROPHONE_LOST if gone else "I hear you again.",
                                            "device")
        if settings.players is None:
            from voicehost.hosts.sailor_register import register_by_voice

            settings.players = register_by_voice(
                ears, lambda text: speak(text, "register"), settings.tries,
                settings.listen_seconds)
        if journal is None and getattr(args, "journal", None) is not None:
            run = {"mode": "live", "input_device": getattr(args, "input_device", None)}
            journal = Journal.create(args.journal, "sailor", host_header(settings, run))
        deliver = None
        if settings.cards == "phones":
            from voicehost.companion.sailor_phones import deal_to_phones, open_sailor_phones

            def say(text: str) -> None:  # also from the companion's threads: no reading
                announcer.say(text, max(ears.clock, mic.now()), "phones")

            companion = open_sailor_phones(args, settings.players, lambda: ears.clock, say,
                                           enabled=True)
            stack.callback(companion.stop)

            def deliver(roles, word) -> None:
                deal_to_phones(companion, roles, word, say, box[0].round.number)
        host = SailorHost(settings, announcer, ears, journal, resume_events, skip_audio=False,
                          on_status=view, now=mic.now, deliver=deliver)
        box.append(host)
        ears.on_outage = host.device_outage
        try:
            result = host.run()
        except KeyboardInterrupt:
            if journal is not None:
                print(f"Every decision so far is in {journal.path}; continue with "
                      f"'voicehost resume {journal.path}'.", file=sys.stderr)
            raise
    finally:
        stack.close()
        mic.close()
        report_losses(mic)
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
