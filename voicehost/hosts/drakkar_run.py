"""Running the Drakkar host from the command line: recordings, the microphone, resume.

The host itself (:mod:`voicehost.hosts.drakkar`) does no I/O beyond its
journal; this module opens what the command line names (files, devices,
the terminal), wires the announcer and the ``--large`` view, and reports
the result.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

from voicehost.errors import DeviceError, RecordError, VoicehostError
from voicehost.games import drakkar
from voicehost.hosts.announce import Announcer, BackgroundVoice, make_announcer
from voicehost.hosts.drakkar import (
    DrakkarHost,
    DrakkarResult,
    host_header,
    run_recording,
    song_words,
    state_for,
)
from voicehost.hosts.drakkar_declarations import Declaration, KeyParser, key_help
from voicehost.hosts.microphone import MICROPHONE_LOST, open_microphone, report_losses


#: The bundled recorded games, in the order the demo plays them.
RECORDED_GAMES = ("drakkar_win", "drakkar_loss")


def recorded_games(folder: Path) -> list[tuple[str, Path, Path]]:
    """(name, WAV, declarations sidecar) of each bundled Drakkar recording in ``folder``.

    ``folder`` is ``audio_fixtures/games``. Raises RecordError when one is missing.
    """
    out = []
    for name in RECORDED_GAMES:
        wav = folder / f"{name}.wav"
        side = folder / f"{name}.declarations.json"
        if not wav.exists() or not side.exists():
            raise RecordError(f"the recorded game {name} is missing from {folder}; run from a "
                              "voicehost checkout (tools/make_game_fixtures.py makes it).")
        out.append((name, wav, side))
    return out


def host_recorded_games(folder: Path, quiet: bool = True, output_device: Any = None,
                        seed: int = 0, header=print,
                        speak_routine: bool = True, speak=None) -> list[tuple[str, DrakkarResult]]:
    """Host every bundled Drakkar recording through the live pipeline (for ``demo``).

    ``header(text)`` is called before each game ("== drakkar win =="); the
    host's lines are spoken, or printed when ``quiet`` or when no voice is
    available. Spoken, the two games take about two minutes of speech;
    ``speak_routine=False`` prints the routine "Ann: red rower on 1." lines
    instead of speaking them (about 20 s less).
    """
    results = []
    for name, wav, side in recorded_games(folder):
        header(f"== {name.replace('_', ' ')} ==")
        announcer = make_announcer(quiet, output_device)
        if speak is not None:
            announcer.speak = speak
        elif not speak_routine:
            announcer.speak = lambda line: line.kind != "play"
        results.append((name, run_recording(wav, side, announcer, seed=seed)))
    return results


class UsageError(VoicehostError):
    """Options that do not go together."""


def _players(text: str | None) -> list[str] | None:
    if not text:
        return None
    names = [p.strip() for p in text.split(",") if p.strip()]
    if len(names) < 2:
        raise UsageError("give at least two players, e.g. --players ann,bo.")
    return names


def load_setup(path: Path) -> dict[str, Any]:
    """A printed deck's setup: a game record's players, deck (top first) and islands."""
    from voicehost.journal import load_record

    record = load_record(path)
    missing = [k for k in ("players", "deck", "islands") if k not in record]
    if missing:
        raise UsageError(f"{path} has no {', '.join(missing)}: a setup is a game record's "
                         "players, deck (top first) and islands.")
    return record


def first_player(players: list[str], first: str | None, seed: int) -> list[str]:
    """The players in turn order from the one who starts (a name, or "random")."""
    if not first:
        return players
    if first == "random":
        import random

        start = random.Random(seed).randrange(len(players))
    elif first in players:
        start = players.index(first)
    else:
        raise UsageError(f"--first {first!r} is not among the players ({', '.join(players)}); "
                         "give a name or random.")
    return players[start:] + players[:start]


def status_rows(host: DrakkarHost) -> list[tuple[str, str]]:
    """What the ``--large`` view shows (everything in it is also spoken)."""
    s = host.state
    song = s.song
    phase, bars = host.phase()
    beat = "listening"
    if host.tracker.bpm:
        beat = f"{host.tracker.bpm:.0f} BPM"
        if host.beat_index is not None and song.tums:
            beat = f"{host.beat_index + 1} of {song.tums + 1}, " + beat
    if phase == "game":
        where = "game"
    elif phase == "stopped":
        where = "stopped: warm up again"
    else:
        where = f"warm-up {min(bars + 1, 2)} of 2"
    ship = []
    for i, stack in enumerate(s.ship, 1):
        top = stack[-1].spoken if stack else "grey"
        ship.append(f"{i}: {top}")
    rows = [
        ("song", song_words(song.tums, song.reversed) if song.tums else "-"),
        ("beat", f"{beat}, {where}"),
        ("ship", ", ".join(ship)),
        ("islands", f"{len(s.islands_found)} of 3"),
        ("turn", s.turn if not s.is_over else s.result.upper()),
        ("hands", ", ".join(f"{p} {len(s.hands[p])}" for p in s.players)),
        ("deck", str(len(s.deck))),
    ]
    return rows


def _view(args, announcer: Announcer):
    if not getattr(args, "large", False):
        return None
    from voicehost.hosts.view import LargeView

    view = LargeView("Drakkar Tum Tum")
    announcer.listeners.append(view.add_line)
    view.start()
    return view


def _view_updater(view):
    """The per-block callback that keeps the ``--large`` view current (None without one)."""
    if view is None:
        return None
    return lambda host: view.update(status_rows(host))


def _report(result: DrakkarResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps(result.to_dict(), indent=1))
    return 0


def host_from_args(args) -> int:
    from voicehost.companion.launch import check_phone_args

    check_phone_args(args)
    players = _players(args.players)
    if players is not None:
        players = first_player(players, getattr(args, "first", None), args.seed)
    if args.declarations is not None and args.input is None:
        raise UsageError("--declarations goes with --input WAV (a recording).")
    if _by_voice(args):
        from voicehost.companion.launch import wants_phones

        if args.declarations is not None:
            raise UsageError("--declare voice takes the plays from what is said; "
                             "leave out --declarations (or --declare voice).")
        if wants_phones(args):
            raise UsageError("--declare voice and --cards phones are two ways to declare; "
                             "choose one.")
    if args.input is not None:
        return _recording(args, players)
    return _live(args, players)


def _by_voice(args) -> bool:
    return getattr(args, "declare", "keyboard") == "voice"


def _backend(args) -> str:
    """The recogniser asked for (``--backend``; a resumed game keeps the one it had)."""
    return getattr(args, "backend", None) or "auto"


def _recognizer(args):
    """The recogniser for voice declarations from a recording, or None (not by voice)."""
    if not _by_voice(args):
        return None
    from voicehost.speech.recognizer import open_recognizer

    return open_recognizer(_backend(args))


def _recording(args, players) -> int:
    announcer = make_announcer(args.quiet, args.output_device)
    view = _view(args, announcer)
    on_block = _view_updater(view)
    try:
        setup = load_setup(args.setup) if getattr(args, "setup", None) else None
        result = run_recording(args.input, args.declarations, announcer, seed=args.seed,
                               players=players, windows=args.windows,
                               journal_path=args.journal, on_block=on_block,
                               pace=args.pace, voice=_by_voice(args), setup=setup,
                               recognizer=_recognizer(args))
    finally:
        if view is not None:
            view.stop()
    return _report(result, args.json)


# -- live ------------------------------------------------------------------------
def device_line(event: Any, song: str) -> str | None:
    """What the host says when the microphone goes away or comes back."""
    name = type(event).__name__
    if name == "DeviceLost":
        return MICROPHONE_LOST
    if name == "DeviceBack":
        return f"I hear you again. Warm up twice: {song}."
    return None


class Keyboard:
    """Key presses from the terminal, one character at a time, on a thread.

    Each key is stamped with ``clock()`` (the microphone's sample clock now)
    the moment the thread reads it. The loop only gets to the keys between
    blocks of audio, a block (0.1 s) or more after they were pressed: stamped
    then, a play typed right after its card lost the card (the judge looks
    for it within 250 ms of the declaration).
    """

    def __init__(self, clock: Callable[[], float], stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        if not self.stream.isatty():
            raise DeviceError("live play reads declarations from the keyboard, but standard "
                              "input is not a terminal; run it in a terminal.")
        self.clock = clock
        self.keys: "queue.Queue[tuple[str, float]]" = queue.Queue()
        self._old = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Keyboard":
        import termios
        import tty

        fd = self.stream.fileno()
        self._old = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self._thread = threading.Thread(target=self._read, daemon=True, name="voicehost-keys")
        self._thread.start()
        return self

    def _read(self) -> None:
        import os
        import select

        fd = self.stream.fileno()
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    t = self.clock()
                    for ch in os.read(fd, 64).decode(errors="ignore"):
                        self.keys.put((ch, t))
        except (OSError, ValueError):  # the terminal went away: no more keys
            return

    def __exit__(self, *exc: object) -> None:
        import termios

        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
        if self._old is not None:
            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self._old)

    def pending(self) -> Iterator[tuple[str, float]]:
        while True:
            try:
                yield self.keys.get_nowait()
            except queue.Empty:
                return


class NoKeyboard:
    """Stands in for the keyboard when declarations come from phones only."""

    def __enter__(self) -> "NoKeyboard":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def pending(self) -> Iterator[str]:
        return iter(())


def phone_declaration(tap: Any) -> Declaration | None:
    """A companion page's tap as a declaration (already on the host's sample clock)."""
    if getattr(tap, "kind", "play") == "discard":  # above the hand limit: no section
        return Declaration(float(tap.t), tap.player, str(tap.card), None, "discard", "phone")
    if tap.slot is None:
        return None
    return Declaration(float(tap.t), tap.player, str(tap.card), int(tap.slot), source="phone")


def run_live(host: DrakkarHost, mic, view=None, blocks=None, phones=None) -> DrakkarResult:
    """The live loop: microphone blocks in, key presses (and phone taps) on the sample clock."""
    parser = KeyParser()
    keyboard_ok = sys.stdin.isatty()
    if keyboard_ok:
        host.say(key_help() + " Q quits.", host.clock, "hint")
    with (Keyboard(mic.now) if keyboard_ok else NoKeyboard()) as keyboard:
        try:
            for block in (blocks if blocks is not None else mic.blocks()):
                for key, t in keyboard.pending():
                    if key in ("q", "Q"):
                        host.say("The host stops here; resume with voicehost resume.",
                                 host.clock, "end")
                        return host.result()
                    out = parser.feed(key, t)
                    if isinstance(out, str):
                        host.say(out, host.clock, "hint")
                    elif out is not None:
                        host.declare(out)
                host.feed(block)
                if phones is not None:
                    def declare(tap: Any) -> None:
                        decl = phone_declaration(tap)
                        if decl is None:
                            host.say("Tap the section too.", host.clock, "hint")
                        else:
                            host.declare(decl)
                    phones.step(host.state, declare)
                if view is not None:
                    view.update(status_rows(host))
                if host.done:
                    break
        finally:
            mic.close()
            report_losses(mic)
    return host.finish()


def _live(args, players, state=None, journal=None, resumed: bool = False) -> int:
    from voicehost.audio.mute import MuteWindows
    from voicehost.hosts.settings import mute_tail
    from voicehost.journal import Journal

    from voicehost.companion.launch import wants_phones

    if not sys.stdin.isatty() and not wants_phones(args) and not _by_voice(args):
        raise DeviceError("live play reads declarations from the keyboard, but standard "
                          "input is not a terminal; run it in a terminal, use --cards phones, "
                          "or host a recording with --input WAV --declarations JSON.")
    holder: dict[str, DrakkarHost] = {}

    def on_device(event: Any) -> None:
        host = holder.get("host")
        if host is None:
            return
        song = host.state.song
        line = device_line(event, song_words(song.tums, song.reversed))
        if line:
            host.say(line, host.clock, "stop")

    mic = open_microphone(args.input_device, on_device, getattr(args, "record_input", None))
    mute = MuteWindows(tail=mute_tail())  # the room's echo, as calibrated
    # Each line muted from when it is handed to the card, on the microphone's clock.
    announcer = make_announcer(args.quiet, args.output_device, mute, mic.now)
    if announcer.voice is not None:
        # Speak on a thread (the microphone keeps being read), and during the
        # song only what the table must hear: the host's voice deafens the
        # onset detector while it plays (half duplex).
        # Each line's mute window starts at the microphone's clock now: the
        # host's own clock stands still between blocks, and before the game
        # (registration by voice) it is 0, which left every question after
        # the first unmuted, so the host heard itself ask.
        announcer.voice = BackgroundVoice(announcer.voice, mic.now)
        announcer.speak = lambda line: not (
            line.kind == "play" and holder and holder["host"].phase()[0] == "game")
    blocks = None
    setup = load_setup(args.setup) if getattr(args, "setup", None) else None
    if state is None and setup is not None:
        state = state_for(setup, None, args.seed)
    if state is None and players is None:
        from voicehost.hosts.drakkar_register import register_by_voice
        from voicehost.speech.recognizer import open_recognizer

        players, blocks = register_by_voice(
            mic.blocks(), lambda text, t: announcer.say(text, t, "setup"),
            open_recognizer(_backend(args)), mute)
    if state is None:
        state = state_for(None, players, args.seed, args.variant)
    if journal is None and args.journal is not None:
        run = {"mode": "live", "seed": args.seed, "windows": args.windows,
               "input_device": args.input_device, "cards": getattr(args, "cards", "table"),
               "declare": getattr(args, "declare", "keyboard"), "backend": _backend(args)}
        journal = Journal.create(args.journal, "drakkar", host_header(state, run))
    view = _view(args, announcer)
    phones = None
    try:
        host = DrakkarHost(state, announcer, journal, windows=args.windows,
                           rate=mic.rate, mute=mute,
                           intro=False)
        holder["host"] = host
        if resumed:
            s = host.state
            host.say(f"Resuming the voyage: {len(s.islands_found)} of 3 islands found. "
                     f"Warm up twice: {song_words(s.song.tums, s.song.reversed)}. "
                     f"{s.turn.capitalize()} plays next.", 0.0, "resume")
        from voicehost.companion.drakkar_phones import open_drakkar_phones

        # The phones' clock is the sample clock *now* (PortAudio's stream time), not
        # host.clock, which stands still for a block (100 ms) and would skew every tap.
        phones = open_drakkar_phones(args, host.state, mic.now,
                                     lambda text: host.say(text, host.clock, "setup"))
        if not resumed:
            host.introduce()  # once every hand is on its phone
        if _by_voice(args):
            from voicehost.hosts.drakkar_voice import VoiceDeclarations
            from voicehost.speech.recognizer import open_recognizer

            ears = VoiceDeclarations(host, open_recognizer(_backend(args)), mute,
                                     on_block=_view_updater(view))
            try:
                result = ears.run(blocks if blocks is not None else mic.blocks())
            finally:
                mic.close()
                report_losses(mic)
        else:
            result = run_live(host, mic, view, blocks, phones)
    finally:
        if phones is not None:
            phones.close()
        if view is not None:
            view.stop()
        if journal is not None:
            journal.close()
        if isinstance(announcer.voice, BackgroundVoice):
            announcer.voice.close()
    return _report(result, getattr(args, "json", False))


# -- resume ----------------------------------------------------------------------
def resume_drakkar(path: Path, args) -> int:
    """Continue a Drakkar game from its journal (see :mod:`voicehost.hosts.drakkar`)."""
    from voicehost.journal import Journal

    journal = Journal.open_existing(path)
    header = journal.header
    run = header.get("host") or {}
    record = journal.to_record()
    replayed = drakkar.replay(record)
    state = replayed.state
    announcer = make_announcer(args.quiet, getattr(args, "output_device", None))
    plays = [e for e in journal.events if e.get("type") == "play"]
    if state.is_over:
        announcer.say(f"This voyage is already over after {len(plays)} plays: "
                      f"{'won' if state.result == drakkar.WON else 'lost'}. {state.reason or ''}".strip())
        journal.close()
        if getattr(args, "json", False):
            print(json.dumps(drakkar.replay_output(replayed), indent=1))
        return 0
    try:
        run_pace = run.get("pace")
        if run.get("mode") == "recording":
            wav = Path(run["input"])
            side = run.get("declarations")
            view = _view(args, announcer)
            on_block = _view_updater(view)
            try:
                result = run_recording(wav, side, announcer, journal=journal,
                                       seed=int(run.get("seed", 0)),
                                       windows=run.get("windows", "normal"),
                                       resume_events=list(journal.events), on_block=on_block,
                                       pace=run_pace, voice=run.get("declare") == "voice")
            finally:
                if view is not None:
                    view.stop()
            return _report(result, getattr(args, "json", False))
        args.windows = run.get("windows", "normal")
        args.seed = int(run.get("seed", 0))
        if getattr(args, "input_device", None) is None:
            args.input_device = run.get("input_device")
        if getattr(args, "cards", None) is None:
            args.cards = run.get("cards", "table")  # hands go back to the same phones
        args.declare = run.get("declare", "keyboard")
        args.backend = run.get("backend", "auto")
        return _live(args, None, state=state, journal=journal, resumed=True)
    except KeyError as exc:
        raise RecordError(f"{path}: the journal's header lacks {exc}; it cannot be resumed.") from None
    finally:
        journal.close()
