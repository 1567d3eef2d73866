"""A whole Drakkar game through a real microphone: PulseAudio's null sink (design.md 3.3).

The loss recording is played into a null sink and the host listens to its
monitor through PortAudio (MicrophoneSource), in real time. The sidecar's
declarations are placed on the microphone's sample clock by cross-correlating
the first seconds heard with the file (the only thing the test does not know
is when playback started).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

from voicehost.games import drakkar

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "audio_fixtures" / "games"

LIVE = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from voicehost.audio.microphone import MicrophoneSource
from voicehost.audio.sources import FileSource
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar import DrakkarHost, state_for
from voicehost.hosts.drakkar_declarations import Declaration, load_sidecar
side = load_sidecar(sys.argv[2])
ref = FileSource(sys.argv[3]).read()[: 16000 * 5 // 2]
host = DrakkarHost(state_for(side.setup, None, 0), Announcer(quiet=True, silent=True))
mic = MicrophoneSource("pulse")
heard = []
declared = False
rec = []
for i, block in enumerate(mic.blocks(max_seconds=float(sys.argv[4]))):
    if i == 0:
        print("ready", flush=True)
    rec.append(block.samples)
    host.feed(block)
    if not declared:
        heard.append(block.samples)
        x = np.concatenate(heard)
        if len(x) > len(ref) + 16000 and np.abs(x).max() > 0.01:
            # Where the recording starts on the microphone's clock: cross-correlation.
            n = 1 << int(np.ceil(np.log2(len(x) + len(ref))))
            c = np.fft.irfft(np.fft.rfft(x, n) * np.conj(np.fft.rfft(ref, n)), n)
            shift = int(np.argmax(c[: len(x)])) / 16000
            for d in side.declarations:
                host.declare(Declaration(d.t + shift, d.player, d.card, d.slot, d.type))
            declared = True
            print("shift", shift, file=sys.stderr)
    if host.done:
        break
mic.close()
import soundfile as sf
sf.write(sys.argv[-1], np.concatenate(rec), 16000, subtype="FLOAT")
result = host.finish()
print(json.dumps({"result": result.result, "reason": result.reason,
                  "plays": [[p.player, p.card, p.slot, p.timing] for p in result.plays],
                  "lines": result.lines, "overflows": mic.stats.overflows}))
"""


def host_through_loopback(script: str, args: list[str], wav: Path, seconds: float,
                          check: Callable[[dict], None], tmp_path: Path) -> dict:
    """Run ``script`` on the loopback while ``wav`` plays into it; ``check`` what it printed.

    The script prints "ready" once its microphone delivers, its result as
    JSON on its last line, and records what it heard to the path it is
    given last. When ``check`` fails and that recording does not hold the
    file whole (a loaded machine made paplay underrun or the input
    overflow: the rig lost audio, not the host), the game is played again,
    once, saying what was lost.
    """
    from loopback import played_whole_or_again

    from voicehost.audio.sources import FileSource

    def play(attempt: int) -> tuple[dict, Path]:
        heard = tmp_path / f"heard{attempt}.wav"
        out = _through_loopback(script, [*args, str(seconds), str(heard)], wav)
        return json.loads(out.strip().splitlines()[-1]), heard

    return played_whole_or_again(play, check, FileSource(wav).read())


def _through_loopback(script: str, args: list[str], wav: Path) -> str:
    sink = f"vh_drakkar_{os.getpid()}"
    mod = subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={sink}"],
                         capture_output=True, text=True)
    assert mod.returncode == 0, mod.stderr
    try:
        env = dict(os.environ, PULSE_SINK=sink, PULSE_SOURCE=f"{sink}.monitor")
        host = subprocess.Popen([sys.executable, "-c", script, str(ROOT), *args],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert host.stdout.readline().strip() == "ready", host.stderr.read()
        subprocess.run(["paplay", str(wav)], env=env, check=True, timeout=90)
        out, err = host.communicate(timeout=90)
        assert host.returncode == 0, err
    finally:
        subprocess.run(["pactl", "unload-module", mod.stdout.strip()], capture_output=True)
    return out


def test_a_whole_game_heard_through_a_real_microphone(pulse, tmp_path):
    wav = GAMES / "drakkar_loss.wav"
    side = GAMES / "drakkar_loss.declarations.json"
    truth = json.loads((GAMES / "drakkar_loss.truth.json").read_text())
    expected = [[e["player"], e["card"], e["slot"], e["timing"]] for e in truth["record"]["events"]]

    def check(got: dict) -> None:
        assert got["result"] == "lost", "\n".join(got["lines"])
        assert got["reason"] == truth["outcome"]["reason"]
        assert got["plays"] == expected, "\n".join(got["lines"])

    got = host_through_loopback(LIVE, [str(side), str(wav)], wav, truth["duration"] + 3.0,
                                check, tmp_path)
    assert "Too late, Bo keeps the card but draws none." in got["lines"]
    assert drakkar.replay_record(truth["record"])["result"] == "lost"


VOICE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from voicehost.audio.microphone import MicrophoneSource
from voicehost.hosts.announce import Announcer
from voicehost.hosts.drakkar import DrakkarHost, state_for
from voicehost.hosts.drakkar_voice import VoiceDeclarations
from voicehost.speech.recognizer import open_recognizer
setup = json.load(open(sys.argv[2]))
host = DrakkarHost(state_for(setup, None, 0), Announcer(quiet=True, silent=True))
ears = VoiceDeclarations(host, open_recognizer("pocketsphinx"))
mic = MicrophoneSource("pulse")
rec = []
def blocks():
    for i, block in enumerate(mic.blocks(max_seconds=float(sys.argv[3]))):
        if i == 0:
            print("ready", flush=True)
        rec.append(block.samples)
        yield block
result = ears.run(blocks())
mic.close()
import numpy as np, soundfile as sf
sf.write(sys.argv[-1], np.concatenate(rec), 16000, subtype="FLOAT")
print(json.dumps({"plays": [[p.player, p.card, p.slot, p.timing] for p in result.plays],
                  "offsets": [p.verdict.offset_ms for p in result.plays],
                  "lines": result.lines, "heard": ears.heard,
                  "seen": {"slaps": host.slaps, "play_slaps": host.play_slaps,
                           "last_tums": host.last_tums, "bars": host.bar_starts,
                           "stops": host.stops, "onsets": host.onset_times,
                           "overflows": mic.stats.overflows}}))
"""


def test_a_game_declared_by_voice_through_a_real_microphone(pulse, tmp_path):
    """The table's voices and slaps through the sound card: the same plays as from the file."""
    wav = GAMES / "drakkar_voice.wav"
    truth = json.loads((GAMES / "drakkar_voice.truth.json").read_text())
    expected = [[e["player"], e["card"], e["slot"], e["timing"]] for e in truth["record"]["events"]]

    def check(got: dict) -> None:
        assert got["plays"] == expected, "\n".join(
            got["lines"] + [str(h) for h in got["heard"]]
            + [f"{k}: {v}" for k, v in got["seen"].items()])

    got = host_through_loopback(VOICE, [str(GAMES / "drakkar_voice.setup.json")], wav,
                                truth["duration"] + 3.0, check, tmp_path)
    for offset, slap in zip(got["offsets"], truth["slaps"]):
        assert abs(offset - slap["offset_ms"]) <= 25


def test_registration_by_voice_never_hears_the_hosts_own_voice(pulse, tmp_path):
    """The host speaks into the same sound card it listens to (a loopback: the
    worst room). "Three players. Right?" must not confirm itself: the table
    said "three" and nothing more, so the host asks again."""
    import time

    from voicehost.audio.sources import FileSource
    import soundfile as sf

    three = FileSource(GAMES / "drakkar_register.wav").read()[int(0.8 * 16000):int(2.2 * 16000)]
    wav = tmp_path / "three.wav"
    sf.write(wav, three, 16000)
    env = dict(os.environ, PULSE_SINK=pulse.sink, PULSE_SOURCE=pulse.source)
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        host = subprocess.Popen([sys.executable, "-m", "voicehost", "drakkar", "--declare", "voice",
                                 "--input-device", "pulse", "--output-device", "pulse",
                                 "--seed", "1"],
                                stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                                env=env, text=True)
        try:
            def said(text: str, seconds: float) -> bool:
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    if text in out.read_text():
                        return True
                    assert host.poll() is None, host.stderr.read()
                    time.sleep(0.05)
                return False

            assert said("How many players?", 30), out.read_text()
            time.sleep(3.0)  # the question is spoken
            subprocess.run(["paplay", str(wav)], env=env, check=True, timeout=30)
            assert said("Three players. Right?", 15), out.read_text()
            asked = time.monotonic()
            asked_again = said("Sorry, I did not catch that. Three players. Right?", 20)
            waited = time.monotonic() - asked
            text = out.read_text()
            assert "Welcome aboard" not in text, text
            assert asked_again, text
            # Nothing was heard: the host waited out its listening time (8 s of
            # audio). Hearing itself, it asked again as soon as it stopped talking.
            assert waited > 6.0, text
        finally:
            host.kill()
            host.wait()


def _typed_game(cmd: list[str], env: dict, wav: Path, plays: list[tuple[float, str]],
                heard: Path, out: Path) -> int:
    """Run the host ``cmd`` in a terminal (a pty) while ``wav`` plays into the loopback,
    typing each play's keys ``(t, keys)`` at ``t`` seconds into the file. ``cmd``
    records what the host hears to ``heard``; what it printed goes to ``out``.
    Returns the host's exit code (-9: killed, the game never ended).

    The file is played by an output stream already running, once the host's
    recording grows (its microphone delivers): a new stream on the loopback, or
    paplay, takes up to a second to start, and keys typed by the clock from
    there came a second before their cards."""
    import threading
    import time

    import numpy as np
    import sounddevice as sd

    from voicehost.audio.sources import FileSource

    audio = FileSource(wav).read().reshape(-1, 1)
    master, slave = os.openpty()  # a terminal: the host reads keys only from one
    host = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True)
    os.close(slave)
    printed = bytearray()

    def read() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            printed.extend(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    speaker = sd.OutputStream(samplerate=16000, channels=1, dtype="float32", latency=0.2)
    speaker.start()
    try:
        deadline = time.monotonic() + 30
        sizes: list[int] = []
        while len(sizes) < 3 or not sizes[-1] > sizes[-3] > 0:
            # The host reads the keyboard, and its recording grows: it hears.
            assert host.poll() is None and time.monotonic() < deadline, printed.decode()
            speaker.write(np.zeros((1600, 1), dtype=np.float32))  # 0.1 s: the stream runs
            if b"Q quits." in printed and heard.exists():
                sizes.append(heard.stat().st_size)
        start = time.monotonic() + speaker.latency
        player = threading.Thread(target=speaker.write, args=(audio,), daemon=True)
        player.start()
        for t, keys in plays:
            time.sleep(max(0.0, start + t - time.monotonic()))
            os.write(master, keys.encode())
        player.join(90)
        speaker.write(np.zeros((8000, 1), dtype=np.float32))
        try:
            host.wait(timeout=30)
        except subprocess.TimeoutExpired:  # the game never ended: say so, as a failed check
            printed.extend(b"\n(the host was still playing 30 s after the recording ended)")
    finally:
        speaker.stop()
        speaker.close()
        if host.poll() is None:
            host.kill()
            host.wait()
        reader.join(5)
        os.close(master)
        out.write_bytes(bytes(printed))
    return host.returncode


def test_a_whole_game_typed_on_the_keyboard_through_a_real_microphone(pulse, tmp_path):
    """The default way to play: the table sings into the microphone, each player
    slaps the card and types it (the seat, the card's key, the section) about 0.12 s
    after. The host runs in a terminal and stamps each key on the microphone's clock:
    the game goes as the recording's truth says."""
    from loopback import played_whole_or_again

    from voicehost.audio.sources import FileSource
    from voicehost.hosts.drakkar_declarations import KEYS
    from voicehost.journal import read_journal

    wav = GAMES / "drakkar_loss.wav"
    side = json.loads((GAMES / "drakkar_loss.declarations.json").read_text())
    truth = json.loads((GAMES / "drakkar_loss.truth.json").read_text())
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(side["setup"]))
    key_of = {card: key for key, card in KEYS.items()}
    seat_keys = "!@#$"
    plays = [(d["t"], seat_keys[side["setup"]["players"].index(d["player"])]
              + key_of[d["card"]] + str(d["slot"])) for d in side["declarations"]]
    expected = [[e["player"], e["card"], e["slot"], e["timing"]] for e in truth["record"]["events"]]
    env = {**os.environ, "PULSE_SINK": pulse.sink, "PULSE_SOURCE": pulse.source,
           "VOICEHOST_CONFIG_DIR": str(tmp_path / "config")}

    def play(attempt: int) -> tuple[dict, Path]:
        heard, journal = tmp_path / f"heard{attempt}.wav", tmp_path / f"game{attempt}.jsonl"
        out = tmp_path / f"out{attempt}.txt"
        code = _typed_game([sys.executable, "-m", "voicehost", "drakkar", "--setup", str(setup),
                            "--input-device", "pulse", "--quiet", "--journal", str(journal),
                            "--record-input", str(heard)], env, wav, plays, heard, out)
        events = read_journal(journal)[1] if journal.exists() else []
        return {"code": code, "said": out.read_text(errors="replace"),
                "plays": [e for e in events if e.get("type") == "play"]}, heard

    def check(got: dict) -> None:
        assert got["code"] == 0, got["said"]
        assert [[e["player"], e["card"], e["slot"], e["timing"]] for e in got["plays"]] \
            == expected, got["said"]

    got = played_whole_or_again(play, check, FileSource(wav).read())
    assert "Too late, Bo keeps the card but draws none." in got["said"]
    assert "The voyage is lost." in got["said"]
    assert {e["source"] for e in got["plays"]} == {"keyboard"}
    assert {e["timed_by"] for e in got["plays"]} == {"slap"}
