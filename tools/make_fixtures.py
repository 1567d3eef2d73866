"""Generate the chant fixtures: a group singing "Drak-kar TUM TUM TUM" with espeak-ng.

Each fixture is a 16 kHz mono 16-bit WAV in ``audio_fixtures/chant/`` with a
JSON of ground truth beside it. The truth is exact to the sample because the
audio is built here: every syllable is synthesised alone, its acoustic start
is measured (first sample above 1 % of its peak), and it is placed so that
this start lands where the script wants it. A syllable sung by the group is
one truth onset, at the earliest singer's start, since that is what the host
must report.

``real_voice_specs`` makes chants of real people's recorded words instead
(the Free Spoken Digit Dataset in ../shared, read at run time and never
committed), for ``bench onsets --real-voices``.

Deterministic: espeak-ng renders the same text identically and every random
choice comes from a seeded numpy generator. Run from the repository root::

    .venv/bin/python tools/make_fixtures.py            # all fixtures
    .venv/bin/python tools/make_fixtures.py --list     # what would be made
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

RATE = 16000
OUT = Path(__file__).resolve().parents[1] / "audio_fixtures" / "chant"
VOICES = ("en", "en-us", "en+m3", "en+f2", "en+f4", "en+m1", "en-gb-x-rp", "en+klatt")
#: What espeak-ng is asked to say for each sung syllable: a table sings
#: "Drakkar" with one /k/ closure ("Drah-kar"), so the first syllable has no
#: release burst of its own.
SPOKEN = {"Drak": "Drah", "kar": "kar", "Tum": "Tum"}
#: Onsets closer than this merge into one truth onset (mir_eval's window is 50 ms).
MERGE = 0.05
#: Real people's recorded words (the Free Spoken Digit Dataset in ../shared,
#: never copied into the project) for chants in real voices: espeak-ng is
#: one synthesiser, and a detector tuned on it may have learnt its voice. The
#: digit that stands for each syllable: "two" is a real /t/ burst into a
#: vowel (a Tum), "four" a fricative into a vowel, "nine" a nasal, the
#: softest onset the chant has.
FSDD = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "fsdd"
RECORDED = {"Drak": 4, "kar": 9, "Tum": 2}
SPEAKERS = ("nicolas", "theo")


@lru_cache(maxsize=None)
def _espeak(text: str, voice: str, speed: int, pitch: int) -> np.ndarray:
    import soundfile as sf

    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
        check=True, capture_output=True,
    ).stdout
    x, sr = sf.read(io.BytesIO(wav), dtype="float64")
    return _audible(x, sr)


def _audible(x: np.ndarray, sr: int) -> np.ndarray:
    """A word at the pipeline rate, at full scale, from its first audible sample to its last.

    Audible: above 1 % of its peak. This is where a truth onset lies, for
    espeak-ng's syllables and recorded words alike.
    """
    import soxr

    x = soxr.resample(x, sr, RATE)
    x = x / np.max(np.abs(x))
    above = np.flatnonzero(np.abs(x) > 0.01)
    return x[above[0] : above[-1] + 1].copy()


def syllable(text: str, voice: str, speed: int, pitch: int, max_len: float) -> np.ndarray:
    """One sung syllable starting at its first audible sample, cut to ``max_len`` s."""
    return _cut(_espeak(text, voice, speed, pitch), max_len)


def _cut(x: np.ndarray, max_len: float) -> np.ndarray:
    """A syllable held no longer than ``max_len`` s, faded out over its last 15 ms."""
    n = min(len(x), int(max_len * RATE))
    x = x[:n].copy()
    fade = min(n, int(0.015 * RATE))
    x[n - fade :] *= np.linspace(1.0, 0.0, fade)
    return x


@lru_cache(maxsize=None)
def _recorded(digit: int, speaker: str, take: int) -> np.ndarray:
    """One recorded word at the pipeline rate, from its first audible sample.

    The dataset's files are trimmed to the word, some right into its first
    sound; a 3 ms fade-in keeps that cut from clicking like a slapped card.
    """
    import soundfile as sf

    path = FSDD / f"{digit}_{speaker}_{take}.wav"
    if not path.exists():
        raise FileNotFoundError(f"{path}: the real recordings (../shared/data/real) are missing")
    x = _audible(*sf.read(str(path), dtype="float64"))
    fade = min(len(x), int(0.003 * RATE))
    x[:fade] *= np.linspace(0.0, 1.0, fade)
    return x


def recorded_syllable(text: str, speaker: str, take: int, max_len: float) -> np.ndarray:
    """A syllable "sung" by a real voice (see ``RECORDED``), cut to ``max_len`` s."""
    return _cut(_recorded(RECORDED[text], speaker, take), max_len)


def slap_sound(rng: np.random.Generator) -> np.ndarray:
    """A card slapped on a table: a broadband click with a fast decay and a low thump."""
    n = int(0.12 * RATE)
    t = np.arange(n) / RATE
    tau = rng.uniform(0.004, 0.012)
    burst = rng.standard_normal(n) * np.exp(-t / tau)
    thump = np.sin(2 * np.pi * rng.uniform(70, 140) * t) * np.exp(-t / 0.03) * 0.5
    x = burst + thump
    x[0] = max(abs(x[0]), 0.3) * np.sign(x[0] or 1.0)
    return x / np.max(np.abs(x))


def pink(n: int, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    spec[1:] /= np.sqrt(f[1:])
    spec[0] = 0
    return np.fft.irfft(spec, n)


def room(x: np.ndarray, rt60: float, drr_db: float, rng: np.random.Generator) -> np.ndarray:
    """``x`` heard in a reverberant room: the direct sound, then a tail that dies 60 dB in ``rt60``.

    The tail is noise under an exponential decay (Schroeder's model of late
    reverberation), from 3 ms on, scaled to ``drr_db`` below the direct
    sound's energy: 0 dB is a table about a metre from the microphone in a
    living room. The direct sound arrives at once, so every truth onset
    stays where it was.
    """
    from scipy.signal import fftconvolve

    n = int(1.5 * rt60 * RATE)
    t = np.arange(n) / RATE
    tail = rng.standard_normal(n) * 10.0 ** (-3.0 * t / rt60)
    tail[: int(0.003 * RATE)] = 0.0
    tail *= np.sqrt(1.0 / np.sum(tail**2) / 10.0 ** (drr_db / 10.0))
    tail[0] = 1.0
    return fftconvolve(x, tail)[: len(x)]


def babble(n: int, rng: np.random.Generator) -> np.ndarray:
    """Several talkers at once, reversed so no syllable stands out (a crowded room)."""
    words = ("the ship sails on a long grey sea while gulls call over the harbour "
             "and someone pours another drink for the captain at the end of the table")
    out = np.zeros(n)
    for k in range(6):
        v = VOICES[k % len(VOICES)]
        x = _espeak(words, v, 150 + 10 * k, 30 + 8 * k)[::-1]
        reps = int(np.ceil(n / len(x))) + 1
        x = np.tile(x, reps)
        start = int(rng.integers(0, len(x) - n))
        out += x[start : start + n]
    return out


def music(n: int, rng: np.random.Generator) -> np.ndarray:
    """Music playing in the room: a drum kit and a bass line at a tempo of its own.

    A rock beat (kick and snare on alternate beats, a hi-hat on every half
    beat) or four on the floor (a kick on every beat, the hi-hat between), at
    90 to 140 BPM: percussive onsets on a steady grid, as the table's are.
    """
    beat = 60.0 / rng.uniform(90, 140)
    rock = bool(rng.integers(2))
    t = np.arange(int(0.25 * RATE)) / RATE
    kick = np.sin(2 * np.pi * (50 + 100 * np.exp(-t / 0.03)) * t) * np.exp(-t / 0.12)
    t = np.arange(int(0.2 * RATE)) / RATE
    snare = (0.6 * rng.standard_normal(len(t)) * np.exp(-t / 0.05)
             + 0.4 * np.sin(2 * np.pi * 190 * t) * np.exp(-t / 0.04))
    t = np.arange(int(0.05 * RATE)) / RATE
    hat = 0.25 * np.diff(rng.standard_normal(len(t) + 1)) * np.exp(-t / 0.01)
    out = np.zeros(n)

    def put(x: np.ndarray, at: float) -> None:
        i = int(at * RATE)
        if i < n:
            out[i : i + len(x)] += x[: n - i]

    at, k = float(rng.uniform(0, beat)), 0
    while at < n / RATE:
        if rock:
            put(kick if k % 2 == 0 else snare, at)
            put(hat, at)
        else:
            put(kick, at)
        put(hat, at + beat / 2)
        at += beat
        k += 1
    tt = np.arange(n) / RATE
    notes = 55.0 * 2.0 ** (np.array([0, 0, 3, 5]) / 12)  # a bass riff, a note every two beats
    out += 0.3 * np.sin(2 * np.pi * np.cumsum(notes[(tt / (2 * beat)).astype(int) % 4]) / RATE)
    return out


@dataclass
class Singer:
    voice: str
    pitch: int
    speed: int
    gain: float
    offset: float  # seconds after the beat this singer tends to come in
    speaker: str | None = None  # a real recorded voice (``SPEAKERS``) instead of espeak-ng


@dataclass
class Spec:
    name: str
    bpm: float
    bars: list[int]  # Tums per bar; a negative entry -n means n bars of silence (a stop)
    reversed_from: int | None = None  # bar index from which the song is reversed
    singers: int = 3
    snr_db: float | None = None
    noise: str = "pink"  # white, pink, babble (a crowded room) or music (a drum kit and bass)
    drift: float = 0.0  # relative tempo change from first to last bar
    slaps: list[tuple[int, float]] = field(default_factory=list)  # (bar, offset from last Tum)
    seed: int = 0
    lead: float = 0.6
    recorded: bool = False  # real people's recorded words instead of espeak-ng
    rt60: float | None = None  # s: sung in a reverberant room (``room``), before any noise
    drr_db: float = 0.0  # that room's direct-to-reverberant energy ratio
    kar_at: float = 0.5  # share of a beat after "Drak" where its "kar" is sung


SPECS = [
    Spec("g3_100bpm_3tums_clean", 100, [3] * 4, singers=3, seed=1,
         slaps=[(2, 0.010), (3, -0.030)]),
    Spec("g4_70bpm_3tums_snr30", 70, [3] * 3, singers=4, snr_db=30, noise="white", seed=2,
         slaps=[(1, 0.020)]),
    Spec("g2_150bpm_3tums_snr10", 150, [3] * 5, singers=2, snr_db=10, seed=3,
         slaps=[(3, 0.0), (4, 0.25)]),
    Spec("g5_120bpm_2tums_snr20", 120, [2] * 5, singers=5, snr_db=20, noise="babble", seed=4,
         slaps=[(2, -0.04), (4, 0.03)]),
    Spec("g3_90bpm_1tum_snr10", 90, [1] * 6, singers=3, snr_db=10, seed=5,
         slaps=[(3, 0.015), (5, -0.2)]),
    Spec("g3_110bpm_reversed_snr15", 110, [3] * 4, reversed_from=0, singers=3, snr_db=15,
         noise="white", seed=6, slaps=[(2, 0.02)]),
    Spec("g4_105bpm_change_3_2_1_snr20", 105, [3, 3, 2, 2, 1, 1], singers=4, snr_db=20,
         seed=7, slaps=[(2, 0.0), (3, 0.01), (5, -0.02)]),
    Spec("g3_95bpm_whirlpool_snr20", 95, [3, 3, 3, 3], reversed_from=2, singers=3,
         snr_db=20, noise="babble", seed=8, slaps=[(1, 0.0), (3, 0.0)]),
    Spec("g3_100bpm_drift_snr15", 100, [3] * 6, singers=3, snr_db=15, drift=0.12, seed=9),
    Spec("g3_120bpm_stop_snr20", 120, [3, 3, -1, 3, 3], singers=3, snr_db=20, seed=10,
         slaps=[(1, 0.0), (3, 0.02)]),
    Spec("g4_130bpm_slaps_snr10", 130, [3] * 5, singers=4, snr_db=10, noise="babble", seed=11,
         slaps=[(1, 0.0), (2, 0.1), (3, -0.15), (4, 0.3)]),
    Spec("g3_80bpm_3tums_snr5", 80, [3] * 3, singers=3, snr_db=5, seed=12,
         slaps=[(2, 0.0)]),
    Spec("g2_140bpm_2tums_snr5_white", 140, [2] * 5, singers=2, snr_db=5, noise="white",
         seed=13),
    Spec("g5_75bpm_wrong_2tums_snr15", 75, [2] * 4, singers=5, snr_db=15, seed=14,
         slaps=[(2, 0.0)]),
    # Slaps 30 to 100 ms off the last Tum, where a slap and the syllable it
    # falls into or before are heard as one sound unless told apart.
    Spec("g3_100bpm_slaps_near_snr20", 100, [3] * 6, singers=3, snr_db=20, seed=15,
         slaps=[(1, 0.05), (2, -0.08), (3, 0.1), (4, -0.06), (5, 0.035)]),
    Spec("g4_85bpm_slaps_near_snr15", 85, [3] * 5, singers=4, snr_db=15, noise="white",
         seed=16, slaps=[(1, 0.07), (2, -0.09), (3, 0.04), (4, 0.09)]),
]


def held_out_specs(seed: int) -> list[Spec]:
    """Sixteen chants drawn at random (tempo, Tums, singers, slaps) for ``bench onsets --held-out``.

    The committed fixtures are what the detector was tuned on; these, drawn
    anew from any seed, tell how it does on chants it has never met: babble
    at 10, 15 and 20 dB, pink noise at 5, 10 and 20 dB (one of each pair
    reversed after two bars), white noise at 10 and 15 dB.
    """
    rng = np.random.default_rng(seed)
    specs = []
    for noise, snrs in (("babble", [10, 15, 20]), ("pink", [5, 10, 20]), ("white", [10, 15])):
        for snr in snrs:
            for rep in range(2):
                k = len(specs)
                bpm = int(rng.integers(70, 151))
                tums = int(rng.integers(1, 4))
                singers = int(rng.integers(2, 6))
                bars = rng.choice(np.arange(1, 5), 2, replace=False)
                slaps = [(int(b), float(rng.choice([0.0, 0.02, -0.03, 0.05, -0.08])))
                         for b in sorted(bars)]
                specs.append(Spec(f"h{k:02d}_{noise}{snr}_{bpm}bpm_{tums}tums_g{singers}", bpm,
                                  [tums] * 5, reversed_from=2 if rep and noise == "pink" else None,
                                  singers=singers, snr_db=snr, noise=noise,
                                  seed=seed * 1000 + k, slaps=slaps))
    return specs


def real_voice_specs(seed: int) -> list[Spec]:
    """Eight chants "sung" by two real people's recorded words (``RECORDED``), for ``bench onsets --real-voices``.

    Not sung, so no real chant either: words said on a beat, each singer a
    speaker of the dataset saying a take drawn at random per syllable, as a
    group. What they test is whether the detector and the tracker hear real
    voices (a real /t/, 8 kHz recordings with nothing above 4 kHz) as they
    hear espeak-ng's. Clean, pink, white and babble noise at 10 and 20 dB.
    """
    rng = np.random.default_rng(seed)
    specs = []
    for noise, snr in ((None, None), ("pink", 20), ("pink", 10), ("white", 20), ("white", 10),
                       ("babble", 20), ("babble", 15), ("babble", 10)):
        k = len(specs)
        bpm = int(rng.integers(70, 131))
        tums = int(rng.integers(1, 4))
        singers = int(rng.integers(2, 5))
        bars = rng.choice(np.arange(1, 5), 2, replace=False)
        slaps = [(int(b), float(rng.choice([0.0, 0.02, -0.03, 0.05, -0.08]))) for b in sorted(bars)]
        label = f"{noise}{snr}" if noise else "clean"
        specs.append(Spec(f"r{k:02d}_{label}_{bpm}bpm_{tums}tums_g{singers}", bpm, [tums] * 5,
                          singers=singers, snr_db=snr, noise=noise or "pink",
                          seed=seed * 1000 + 500 + k, slaps=slaps, recorded=True))
    return specs


def render(spec: Spec) -> tuple[np.ndarray, dict]:
    rng = np.random.default_rng(spec.seed)
    singers = []
    for k in range(spec.singers):
        singers.append(Singer(
            voice=VOICES[int(rng.integers(len(VOICES)))],
            pitch=int(rng.integers(25, 75)),
            speed=int(rng.integers(150, 220)),
            gain=float(rng.uniform(0.5, 1.0)),
            offset=0.0 if k == 0 else float(rng.uniform(0.0, 0.05)),
            speaker=SPEAKERS[(k + spec.seed) % len(SPEAKERS)] if spec.recorded else None,
        ))
    beat0 = 60.0 / spec.bpm
    n_beats_total = sum((b + 1) if b > 0 else -b * 4 for b in spec.bars)
    # Beat times with a linear tempo drift over the recording.
    times = [spec.lead]
    for i in range(n_beats_total + 8):
        frac = i / max(1, n_beats_total)
        times.append(times[-1] + beat0 / (1.0 + spec.drift * frac))
    events: list[dict] = []  # syllables: text, t (planned), bar, beat
    bars: list[dict] = []
    stops: list[float] = []
    bi = 0
    bar_index = 0
    for b in spec.bars:
        if b < 0:
            stops.append(times[bi])  # the beat where the next syllable was due
            bi += -b * 4
            continue
        rev = spec.reversed_from is not None and bar_index >= spec.reversed_from
        beats = times[bi : bi + b + 1]
        period = beats[1] - beats[0] if len(beats) > 1 else beat0
        words = (["Tum"] * b + ["Drak"]) if rev else (["Drak"] + ["Tum"] * b)
        for j, w in enumerate(words):
            events.append({"text": w, "t": beats[j], "bar": bar_index, "beat": j})
            if w == "Drak":
                events.append({"text": "kar", "t": beats[j] + period * spec.kar_at,
                               "bar": bar_index, "beat": j})
        last = beats[-1]
        bars.append({"index": bar_index, "start": beats[0], "beats": list(beats), "tums": b,
                     "reversed": rev, "last_tum": last, "period": period})
        bi += b + 1
        bar_index += 1
    end_t = times[bi] + 0.5
    n = int(end_t * RATE)
    mix = np.zeros(n)
    # Place every singer's syllables; the truth is the earliest start.
    for ev in events:
        period = bars[ev["bar"]]["period"]
        max_len = period * (0.45 if ev["text"] in ("Drak", "kar") else 0.8)
        if ev["text"] == "Drak":
            max_len = min(max_len, period * (spec.kar_at - 0.02))  # done before its "kar"
        starts = []
        for s in singers:
            t = ev["t"] + s.offset + float(rng.normal(0, 0.006))
            t = max(t, ev["t"] + (0.0 if s is singers[0] else 0.0))
            if s.speaker is not None:
                take = int(rng.integers(10))
                x = recorded_syllable(ev["text"], s.speaker, take, max_len) * s.gain
            else:
                x = syllable(SPOKEN[ev["text"]], s.voice, s.speed, s.pitch, max_len) * s.gain
            i0 = int(round(t * RATE))
            mix[i0 : i0 + len(x)] += x[: max(0, n - i0)]
            starts.append(i0 / RATE)
        ev["t"] = min(starts)
        ev["singers"] = sorted(starts)
    for bar in bars:
        syl = [e for e in events if e["bar"] == bar["index"]]
        key = "Drak" if bar["reversed"] else "Tum"
        last = [e for e in syl if e["text"] == key][-1]
        bar["last_tum"] = last["t"]
        bar["start"] = min(e["t"] for e in syl)
        # Beat times as sung: each beat's first syllable.
        bar["beats"] = [min(e["t"] for e in syl if e["beat"] == j) for j in range(bar["tums"] + 1)]
    slaps = []
    for bar_i, off in spec.slaps:
        t = bars[bar_i]["last_tum"] + off
        x = slap_sound(rng) * rng.uniform(0.6, 1.0)
        i0 = int(round(t * RATE))
        mix[i0 : i0 + len(x)] += x[: max(0, n - i0)]
        slaps.append({"t": i0 / RATE, "bar": bar_i, "offset_ms": round(off * 1000, 1)})
    if spec.rt60 is not None:
        mix = room(mix, spec.rt60, spec.drr_db, np.random.default_rng(spec.seed + 104729))
    mix *= 0.5 / np.max(np.abs(mix))
    if spec.snr_db is not None:
        noise = {"white": lambda: rng.standard_normal(n), "pink": lambda: pink(n, rng),
                 "babble": lambda: babble(n, rng), "music": lambda: music(n, rng)}[spec.noise]()
        p_sig = np.mean(mix**2)
        noise *= np.sqrt(p_sig / np.mean(noise**2) / 10 ** (spec.snr_db / 10))
        mix = mix + noise
        mix *= 0.9 / np.max(np.abs(mix))
    # Truth onsets: syllables and slaps, anything within MERGE of an earlier one merged.
    # Times are whole samples: compared in samples, a card slapped 50 ms after
    # the Tum is 50 ms apart, as it was placed (in seconds, 4.85 - 4.8 fell
    # a hair under 0.05 and the card merged into the Tum, or not, by rounding).
    raw = sorted([(e["t"], "voice") for e in events] + [(s["t"], "slap") for s in slaps])
    onsets: list[dict] = []
    for t, kind in raw:
        if onsets and round((t - onsets[-1]["t"]) * RATE) < round(MERGE * RATE):
            if kind == "slap":
                onsets[-1]["slap"] = True
            continue
        onsets.append({"t": t, "kind": kind, "slap": kind == "slap"})
    plays = []
    for s in slaps:
        # The player declares (key press) a little after slapping the card.
        plays.append({"t": round(s["t"] + 0.12, 4), "player": "p", "card": "rower", "slot": 2,
                      "slap_t": s["t"], "bar": s["bar"], "offset_ms": s["offset_ms"]})
    truth = {
        "name": spec.name,
        "sample_rate": RATE,
        "duration": n / RATE,
        "bpm": spec.bpm,
        "drift": spec.drift,
        "snr_db": spec.snr_db,
        "noise": spec.noise if spec.snr_db is not None else None,
        # A recorded voice names its speaker; espeak-ng's singers stay as committed.
        "singers": [{k: v for k, v in s.__dict__.items() if k != "speaker" or v is not None}
                    for s in singers],
        "expected_tums": spec.bars[0] if spec.bars[0] > 0 else 3,
        "reversed_from_bar": spec.reversed_from,
        **({"rt60": spec.rt60, "drr_db": spec.drr_db} if spec.rt60 is not None else {}),
        "onsets": [{"t": round(o["t"], 5), "kind": "slap" if o["slap"] else "voice"}
                   for o in onsets],
        "syllables": [{"t": round(e["t"], 5), "text": e["text"], "bar": e["bar"],
                       "beat": e["beat"], "singers": [round(x, 5) for x in e["singers"]]}
                      for e in events],
        "bars": [{"start": round(b["start"], 5), "beats": [round(x, 5) for x in b["beats"]],
                  "tums": b["tums"], "reversed": b["reversed"],
                  "last_tum": round(b["last_tum"], 5)} for b in bars],
        "slaps": slaps,
        "stops": [round(s, 5) for s in stops],
        "plays": plays,
    }
    return mix.astype(np.float32), truth


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--list", action="store_true")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("names", nargs="*")
    args = p.parse_args(argv)
    import soundfile as sf

    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        if args.names and spec.name not in args.names:
            continue
        if args.list:
            print(spec.name)
            continue
        audio, truth = render(spec)
        sf.write(str(args.out / f"{spec.name}.wav"), audio, RATE, subtype="PCM_16")
        (args.out / f"{spec.name}.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(f"{spec.name}: {truth['duration']:.1f} s, {len(truth['onsets'])} onsets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
