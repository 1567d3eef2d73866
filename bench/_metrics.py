"""Shared helpers for the onset benchmark and tests: fixtures, truth and scores."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHANT = ROOT / "audio_fixtures" / "chant"
REAL = ROOT.parent / "shared" / "data" / "real"
if not REAL.exists():  # a worktree elsewhere: fall back to the shared checkout's sibling
    REAL = Path("/work/shared/data/real")


@dataclass
class Fixture:
    name: str
    wav: Path
    truth: dict
    onsets: np.ndarray  # reference onset times (s)

    @property
    def kind(self) -> str:
        return "real" if "real" in self.truth.get("source", "") else "chant"


def chant_fixtures() -> list[Fixture]:
    out = []
    for js in sorted(CHANT.glob("*.json")):
        truth = json.loads(js.read_text())
        onsets = np.array([o["t"] for o in truth["onsets"]])
        out.append(Fixture(js.stem, js.with_suffix(".wav"), truth, onsets))
    return out


def fixture_generator():
    """tools/make_fixtures.py as a module (loaded once), for chants rendered on the spot."""
    import importlib.util
    import sys

    gen = sys.modules.get("make_fixtures")
    if gen is None:
        spec = importlib.util.spec_from_file_location("make_fixtures", ROOT / "tools" / "make_fixtures.py")
        gen = importlib.util.module_from_spec(spec)
        sys.modules["make_fixtures"] = gen  # its dataclasses look their module up there
        spec.loader.exec_module(gen)
    return gen


def held_out_fixtures(seed: int, out: Path | None = None, real_voices: bool = False,
                      **changes) -> list[Fixture]:
    """Chants rendered now from ``seed`` into ``out`` (default: a new temporary directory).

    Never committed and never tuned on: the committed fixtures are what the
    detector was tuned on, so only these say how it does on chants it has never met.
    ``real_voices``: the chants of ``real_voice_specs``, in real people's
    recorded words (../shared/data/real/fsdd) rather than espeak-ng's.
    ``changes``: ``Spec`` fields that change every chant, those that are not
    ``None``: ``rt60`` (sung in a reverberant room whose tail dies 60 dB in
    that many seconds, noise added after), ``drr_db`` (that tail's level
    under the direct sound), ``snr_db`` (the singing that far above each
    chant's noise: 40 is a quiet room), ``noise`` (every chant's noise of
    that kind: white, pink, babble or music), ``bpm`` (every chant at that tempo:
    the held-out chants draw theirs from 70 to 150, those in real voices
    from 70 to 130).
    """
    from dataclasses import replace

    import tempfile

    import soundfile as sf

    gen = fixture_generator()
    kind = "real-voices" if real_voices else "held-out"
    out = out or Path(tempfile.mkdtemp(prefix=f"voicehost-{kind}-{seed}-"))
    fixtures = []
    specs = gen.real_voice_specs(seed) if real_voices else gen.held_out_specs(seed)
    changes = {k: v for k, v in changes.items() if v is not None}
    for s in specs:
        if "snr_db" in changes or "noise" in changes:  # the name says the noise and its level
            was = f"{s.noise}{s.snr_db:g}" if s.snr_db is not None else "clean"
            level = changes.get("snr_db", s.snr_db)
            now = f"{changes.get('noise', s.noise)}{level:g}" if level is not None else "clean"
            s = replace(s, name=s.name.replace(f"_{was}_", f"_{now}_"))
        if "bpm" in changes:  # ... and its tempo
            s = replace(s, name=s.name.replace(f"_{s.bpm:g}bpm_", f"_{changes['bpm']:g}bpm_"))
        s = replace(s, **changes)
        audio, truth = gen.render(s)
        wav = out / f"{s.name}.wav"
        sf.write(str(wav), audio, gen.RATE, subtype="PCM_16")
        wav.with_suffix(".json").write_text(json.dumps(truth))  # to look at afterwards
        fixtures.append(Fixture(s.name, wav, truth, np.array([o["t"] for o in truth["onsets"]])))
    return fixtures


def real_fixture() -> Fixture | None:
    wav = REAL / "madmom" / "sample.wav"
    ann = REAL / "madmom" / "sample.onsets"
    if not wav.exists() or not ann.exists():
        return None
    times = [float(line.split()[0]) for line in ann.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return Fixture("madmom_sample (real)", wav, {"source": "real"}, np.array(times))


def f_measure(ref: np.ndarray, est: np.ndarray, window: float = 0.05) -> tuple[float, float, float]:
    """mir_eval's onset F-measure, precision and recall (50 ms window)."""
    import mir_eval

    ref = np.asarray(ref, dtype=float)
    est = np.asarray(est, dtype=float)
    if len(ref) == 0 and len(est) == 0:
        return 1.0, 1.0, 1.0
    if len(ref) == 0 or len(est) == 0:
        return 0.0, 0.0, 0.0
    return mir_eval.onset.f_measure(ref, est, window=window)


def timing_errors(ref: np.ndarray, est: np.ndarray, window: float = 0.05) -> np.ndarray:
    """Signed errors (est - ref, s) of the matched pairs, as mir_eval matches them."""
    import mir_eval

    if len(ref) == 0 or len(est) == 0:
        return np.zeros(0)
    pairs = mir_eval.util.match_events(np.asarray(ref), np.asarray(est), window)
    return np.array([est[j] - ref[i] for i, j in pairs])


def spoken_digits(seed: int) -> np.ndarray:
    """Fifty real recorded digits (the Free Spoken Digit Dataset) said one after another.

    People talking near the table, as the host hears them: real words, each
    followed by a pause drawn up to a maximum itself drawn up to 0.4 s, so
    some sequences run on and some keep a loose pace. No song is in them:
    every bar the chant tracker follows there is a false one.
    """
    from voicehost.audio.sources import read_audio

    files = sorted((REAL / "fsdd").glob("*.wav"))
    assert len(files) >= 60, f"the real recordings are missing: {REAL}"
    rng = np.random.default_rng(seed)
    gap = rng.uniform(0.0, 0.4)
    parts = []
    for i in rng.choice(len(files), 50, replace=False):
        parts.append(read_audio(files[i]))
        parts.append(np.zeros(int(rng.uniform(0.0, gap) * 16000), dtype=np.float32))
    return np.concatenate(parts)
