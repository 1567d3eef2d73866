"""Generate whole Drakkar games as recordings: a table singing, slapping cards, stopping.

Each game is a script of table actions (plays with their timing, a wrong
song, a stop). The script is played through the rules here to know the
song of every bar and where the table stops and warms up again; the deck
is built by hand so that every card is in its player's hand when it is
played (and the games are short). Writes, in ``audio_fixtures/games/``:

* ``drakkar_<name>.wav``: 16 kHz mono PCM_16, three espeak-ng singers with
  card slaps and faint pink noise (the chant fixtures' synthesis,
  :mod:`tools.make_fixtures`, is reused for syllables, slaps and noise);
* ``drakkar_<name>.declarations.json``: the sidecar the host reads (the
  printed deck as ``setup``, then each declaration ~0.15 s after its slap);
* ``drakkar_<name>.truth.json``: the intended record (rules timing per
  play), the outcome the rules give, and the sung bars, slaps and notices.

A game with ``voice=True`` is declared by voice instead (``voicehost drakkar
--declare voice``): the player says the card and section right after the
slap ("red rower one"), the table stops singing, and when the host asks
back the player says it again and then "yes"; the table then warms up
again. Its setup is written as ``drakkar_<name>.setup.json`` (a game record
with no events) instead of a sidecar.

Deterministic; run from the repository root::

    .venv/bin/python tools/make_game_fixtures.py
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from make_fixtures import (  # noqa: E402
    RATE, SPOKEN, VOICES, Singer, _espeak, pink, slap_sound, syllable)

from voicehost.games import drakkar  # noqa: E402
from voicehost.hosts.drakkar_song import WORDS  # noqa: E402

OUT = ROOT / "audio_fixtures" / "games"
#: Seconds between a slap and its declaration (a key press, a spoken "kraken two").
DECLARE_AFTER = 0.08
#: Silence while the host announces a stop (mistake, lookout, the table stopping).
GAP = 2.5
ON_BEAT_WINDOW = 0.12
#: Seconds of room noise before the table starts singing (a microphone hears the
#: room first; the noise starting is not mistaken for the song).
LEAD = 1.5


@dataclass
class Play:
    player: str
    card: str
    slot: int
    offset: float = 0.0  # slap time minus the last Tum (s)
    refused: bool = False  # the rules refuse it: the card goes back, a new bar follows


@dataclass
class Wrong:
    tums: int  # a bar sung with this many Tums instead of the song's


@dataclass
class Stop:
    seconds: float = GAP  # the table stops singing (nobody erred)


@dataclass
class Early:
    player: str
    card: str
    slot: int  # declared on the last Tum of warm-up bar 2 (refused: warm-up)


@dataclass
class Game:
    name: str
    players: list[str]
    islands: list[str]
    script: list
    bpm: float = 130.0
    seed: int = 0
    snr_db: float = 25.0
    fillers: list[str] = field(default_factory=lambda: ["rower:yellow"] * 6)
    voice: bool = False  # declared by voice (see the module docstring)
    slap_gain: float = 1.0  # how hard the cards are slapped (1: as hard as the table sings)


#: Voice declarations: when each player speaks, in seconds after the slap:
#: the declaration right after it, the same again when the host asks back,
#: then "yes"; the table sings again (two warm-up bars) from ``VOICE_RESTART``.
VOICE_SAY = 0.35
VOICE_AGAIN = 3.6
VOICE_YES = 5.6
VOICE_RESTART = 7.2
#: Each player's espeak-ng voice for their declarations (never a singer's).
PLAYER_VOICES = (("en-us", 150, 45), ("en-gb", 140, 60), ("en+m3", 160, 40))


GAMES = [
    Game("win", ["ann", "bo"], ["calm", "calm", "calm"], seed=21, script=[
        Play("ann", "rower:red", 1, 0.01),
        Play("bo", "kraken", 2, -0.02),
        Play("ann", "rower:yellow", 2, 0.0, refused=True),  # a rower on the Kraken
        Play("ann", "warrior:red", 2, 0.02),
        Play("bo", "rower:red", 3, -0.01),
        Play("ann", "lookout", 1, 0.015),
        Play("bo", "rower:yellow", 1, 0.0),
        Play("ann", "rower:yellow", 2, 0.03),
        Play("bo", "rower:yellow", 3, -0.025),
        Play("ann", "lookout", 2, 0.0),
        Play("bo", "rower:red", 1, 0.02),
        Play("ann", "rower:red", 2, -0.015),
        Play("bo", "rower:red", 3, 0.01),
        Play("ann", "lookout", 3, 0.0),
    ]),
    # Whirlpool Island reverses the song ("Tum Tum Tum Drakkar": the play falls
    # on "Drak"); then a whirlpool card (two players: the same one plays again)
    # and a goblin in the reversed song. The recording ends mid-voyage.
    Game("whirlpool", ["ann", "bo"], ["whirlpool", "calm", "calm"], bpm=150, seed=23, script=[
        Play("ann", "rower:yellow", 1, 0.0),
        Play("bo", "rower:yellow", 2, 0.01),
        Play("ann", "rower:yellow", 3, -0.01),
        Play("bo", "lookout", 2, 0.0),
        Play("ann", "whirlpool", 2, 0.015),
        Play("ann", "goblin", 3, 0.0),
        Play("bo", "rower:red", 1, -0.015),
    ]),
    # Declared by voice: a rower, a Kraken (the song loses a Tum), then a
    # warrior played far too late (a mistake: the card stays, no draw).
    Game("voice", ["ann", "bo"], ["calm", "calm", "calm"], bpm=120, seed=24, voice=True,
         script=[
             Play("ann", "rower:red", 1, 0.0),
             Play("bo", "kraken", 2, -0.07),
             Play("ann", "warrior:red", 2, 0.3),
         ]),
    Game("loss", ["ann", "bo"], ["calm", "winter", "calm"], seed=22, script=[
        Early("bo", "rower:yellow", 2),
        Play("ann", "goblin", 1, 0.0),
        Play("bo", "rower:yellow", 2, 0.33),  # too late: a mistake, the song stops
        Wrong(3),
        Play("ann", "kraken", 2, -0.02),
        Stop(),
        Play("bo", "dragon", 3, 0.01),
    ]),
]


def needed_cards(game: Game) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {p: [] for p in game.players}
    for step in game.script:
        if isinstance(step, Play):
            out[step.player].append(step.card)
    return out


def build_deck(game: Game) -> list[str]:
    """A deck (top first) that deals and draws each player the cards they play, in order."""
    need = {p: list(c) for p, c in needed_cards(game).items()}
    filler = iter(game.fillers * 4)
    per = 4 if len(game.players) == 2 else 3
    deck: list[str] = []
    for _ in range(per):
        for p in game.players:
            deck.append(need[p].pop(0) if need[p] else next(filler))
    # Draws follow the plays: the player who plays is the one who may draw, so
    # the top of the deck is set to their next card just before each play.
    state = drakkar.from_setup(game.players, deck + ["rower:red"] * 40, game.islands)
    for step in game.script:
        if not isinstance(step, Play) or step.refused:
            continue
        timing = "on_beat" if abs(step.offset) <= ON_BEAT_WINDOW else "off_beat"
        top = need[step.player][0] if need[step.player] else next(filler)
        state.deck[0] = drakkar.Card.parse(top)
        state, events = drakkar.play(state, step.player, step.card, step.slot, timing)
        if any(isinstance(e, drakkar.CardDrawn) for e in events):
            deck.append(top)
            if need[step.player] and need[step.player][0] == top:
                need[step.player].pop(0)
        if state.is_over:
            break
    deck += list(game.fillers)
    return deck


def plan(game: Game, deck: list[str]) -> tuple:
    """Bars to sing, slaps, declarations and the intended record events."""
    beat = 60.0 / game.bpm
    state = drakkar.from_setup(game.players, deck, game.islands)
    t = LEAD
    bars: list[dict] = []
    slaps: list[dict] = []
    decls: list[dict] = []
    record: list[dict] = []
    notices: list[dict] = []
    speech: list[dict] = []  # what the players say (voice declarations)

    def sing(tums: int, rev: bool, kind: str) -> dict:
        nonlocal t
        bar = {"start": t, "tums": tums, "reversed": rev, "kind": kind,
               "beats": [t + k * beat for k in range(tums + 1)]}
        bar["last_tum"] = bar["beats"][-1] if not rev else bar["beats"][-1]
        bars.append(bar)
        t = bar["beats"][-1] + beat
        return bar

    def warmup(early: Early | None = None) -> None:
        song = state.song
        sing(song.tums, song.reversed, "warmup")
        bar = sing(song.tums, song.reversed, "warmup")
        if early is not None:
            decls.append({"t": round(bar["last_tum"] + DECLARE_AFTER, 4), "player": early.player,
                          "card": early.card, "slot": early.slot, "expect": "refused_warmup"})

    pending_early = next((s for s in game.script if isinstance(s, Early)), None)
    warmup(pending_early)
    for step in game.script:
        if isinstance(step, Early):
            continue
        if isinstance(step, Wrong):
            bar = sing(step.tums, state.song.reversed, "wrong")
            notices.append({"type": "wrong_song", "t": bar["start"], "heard_tums": step.tums,
                            "expected_tums": state.song.tums})
            continue
        if isinstance(step, Stop):
            notices.append({"type": "song_stopped", "t": t})
            t += step.seconds
            warmup()
            continue
        song = state.song
        bar = sing(song.tums, song.reversed, "play")
        slap_t = bar["last_tum"] + step.offset
        slaps.append({"t": slap_t, "offset_ms": round(step.offset * 1000, 1)})
        decl = {"t": round(slap_t + DECLARE_AFTER, 4), "player": step.player, "card": step.card,
                "slot": step.slot}
        if step.refused:
            decl["expect"] = "refused_rules"
            decls.append(decl)
            continue
        decls.append(decl)
        timing = "on_beat" if abs(step.offset) <= ON_BEAT_WINDOW else "off_beat"
        record.append(drakkar.play_event(step.player, step.card, step.slot, timing))
        card = drakkar.Card.parse(step.card).spoken.lower()
        said = f"{card} {WORDS[step.slot]}"
        state, events = drakkar.play(state, step.player, step.card, step.slot, timing)
        if game.voice:
            for after, text in ((VOICE_SAY, said), (VOICE_AGAIN, said), (VOICE_YES, "yes")):
                speech.append({"t": round(slap_t + after, 4), "player": step.player,
                               "text": text})
            t = slap_t + VOICE_RESTART
            if state.is_over:
                break
            warmup()
            continue
        if state.is_over:
            break
        if drakkar.singing_stops(events):
            t = bar["last_tum"] + max(step.offset, 0) + GAP
            warmup()
    return bars, slaps, decls, record, notices, speech, t + 1.0


def render_game(game: Game) -> tuple[np.ndarray, dict, dict]:
    rng = np.random.default_rng(game.seed)
    singers = [Singer(VOICES[int(rng.integers(len(VOICES)))], int(rng.integers(30, 70)),
                      int(rng.integers(160, 210)), float(rng.uniform(0.6, 1.0)),
                      0.0 if k == 0 else float(rng.uniform(0.0, 0.04))) for k in range(3)]
    deck = build_deck(game)
    bars, slaps, decls, record, notices, speech, end_t = plan(game, deck)
    beat = 60.0 / game.bpm
    n = int(end_t * RATE)
    mix = np.zeros(n)
    for bar in bars:
        words = (["Tum"] * bar["tums"] + ["Drak"]) if bar["reversed"] else (
            ["Drak"] + ["Tum"] * bar["tums"])
        for j, w in enumerate(words):
            times = [(w, bar["beats"][j])]
            if w == "Drak":
                times.append(("kar", bar["beats"][j] + beat / 2))
            for text, t0 in times:
                max_len = beat * (0.45 if text in ("Drak", "kar") else 0.8)
                for s in singers:
                    t = t0 + s.offset + float(rng.normal(0, 0.005))
                    x = syllable(SPOKEN[text], s.voice, s.speed, s.pitch, max_len) * s.gain
                    i0 = max(0, int(round(t * RATE)))
                    mix[i0: i0 + len(x)] += x[: max(0, n - i0)]
    for sl in slaps:
        x = slap_sound(rng) * rng.uniform(0.8, 1.0) * game.slap_gain
        i0 = int(round(sl["t"] * RATE))
        mix[i0: i0 + len(x)] += x[: max(0, n - i0)]
    mix *= 0.5 / np.max(np.abs(mix))
    for said in speech:
        voice, speed, pitch = PLAYER_VOICES[game.players.index(said["player"])]
        x = _espeak(said["text"], voice, speed, pitch) * 0.35
        i0 = int(round(said["t"] * RATE))
        mix[i0: i0 + len(x)] += x[: max(0, n - i0)]
        said["end"] = round(said["t"] + len(x) / RATE, 4)
    noise = pink(n, rng)
    noise *= np.sqrt(np.mean(mix ** 2) / np.mean(noise ** 2) / 10 ** (game.snr_db / 10))
    mix = mix + noise
    mix *= 0.9 / np.max(np.abs(mix))
    setup = {"players": game.players, "deck": deck, "islands": game.islands, "variant": None}
    rec = {"game": "drakkar", **setup, "events": record}
    final = drakkar.replay_record(rec)
    sidecar = {"game": "drakkar", "setup": setup,
               "declarations": [{k: v for k, v in d.items() if k != "expect"} for d in decls]}
    truth = {
        "name": f"drakkar_{game.name}", "sample_rate": RATE, "duration": round(n / RATE, 3),
        "bpm": game.bpm, "snr_db": game.snr_db,
        "record": rec,
        "outcome": {"result": final["result"], "reason": final["reason"],
                    "islands_found": final["islands_found"], "hands": final["hands"],
                    "ship": final["ship"]},
        "declarations": decls,
        "bars": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in b.items()
                  if k != "beats"} | {"beats": [round(x, 4) for x in b["beats"]]} for b in bars],
        "slaps": [{"t": round(s["t"], 4), "offset_ms": s["offset_ms"]} for s in slaps],
        "notices": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in x.items()}
                    for x in notices],
    }
    if speech:
        truth["speech"] = speech
    return mix.astype(np.float32), sidecar, truth


def render_register() -> tuple[np.ndarray, dict]:
    """A table answering the registration questions: "three", then "yes"."""
    rng = np.random.default_rng(31)
    n = 8 * RATE
    x = pink(n, rng)
    x *= 0.003 / np.sqrt(np.mean(x ** 2))
    answers = [("three", 1.0, "en-us"), ("yes", 3.5, "en+m3")]
    for word, at, voice in answers:
        w = _espeak(word, voice, 150, 50) * 0.3
        i = int(at * RATE)
        x[i: i + len(w)] += w
    truth = {"name": "drakkar_register", "answers": [{"word": w, "t": t} for w, t, _ in answers],
             "players": 3}
    return x.astype(np.float32), truth


def main(argv: list[str] | None = None) -> int:
    import soundfile as sf

    names = argv if argv is not None else sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    if not names or "register" in names:
        audio, truth = render_register()
        sf.write(str(OUT / "drakkar_register.wav"), audio, RATE, subtype="PCM_16")
        (OUT / "drakkar_register.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    for game in GAMES:
        if names and game.name not in names:
            continue
        audio, sidecar, truth = render_game(game)
        base = OUT / f"drakkar_{game.name}"
        sf.write(str(base.with_suffix(".wav")), audio, RATE, subtype="PCM_16")
        if game.voice:
            setup = {"game": "drakkar", **sidecar["setup"], "events": []}
            Path(f"{base}.setup.json").write_text(json.dumps(setup, indent=1) + "\n")
        else:
            Path(f"{base}.declarations.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        Path(f"{base}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(f"{base.name}: {truth['duration']:.1f} s, {len(truth['record']['events'])} plays, "
              f"{truth['outcome']['result']} ({truth['outcome']['reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
