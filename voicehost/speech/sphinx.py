"""PocketSphinx, the embedded default: a JSGF grammar per question plus a garbage path.

The wheel ships an English acoustic model and dictionary, so this works on a
fresh install with nothing to download.

Why the conditioning in :func:`condition`: measured here (design.md, section 6
and ``python -m bench speech``), PocketSphinx's cepstral-mean
normalisation is thrown by exact digital silence and by loud input, and its
model expects energy above 4 kHz that 8 kHz recordings lack. So each
utterance is brought to a fixed peak level, padded with a faint noise floor
(never zeros), and narrow-band audio gets a mirrored copy of its upper band.

Why every decode starts from a fresh front end: PocketSphinx carries its
cepstral mean and noise estimate across utterances, so an answer's reading
would depend on what was said before it (and a resumed game would hear
differently). Measured on the calibration set, the front end reset per
utterance with the model's own batch CMN and a 0.1 peak level is better than
the old 0.3 (clean 88% vs 86%, real digits 81% vs 77%, 10 dB about equal).

Why a rejection model (:mod:`.rejection`): the grammar-minus-phone-loop
score alone rejected many right answers; a logistic model over that score,
the phone edit distance and duration evidence, fitted on a separate
calibration set, keeps about 98% of right answers and rejects as many
out-of-grammar words.

Why the garbage words (off by default): a grammar of eight colours forces "banana" onto some
colour with high posterior (the posterior does not separate in- from
out-of-grammar speech). Giving the search other ordinary words to choose,
none of which sounds like an answer, lets it say "something else": when one
of them wins, the answer is rejected and the host asks again.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from voicehost.errors import ModelError
from voicehost.speech.grammar import Question
from voicehost.speech.pronounce import pronounce
from voicehost.speech.recognizer import Answer, Prepared

if TYPE_CHECKING:
    from voicehost.speech.rejection import Features, RejectionModel

#: Competitors for out-of-grammar speech: common, phonetically varied words.
#: Any that sound like an answer of the current question are left out.
GARBAGE_WORDS: tuple[str, ...] = tuple(
    """time year people way day man thing woman life child world school state family
    group country problem hand part place case week company system program question
    work government night point home water room mother area money story fact month lot
    study book eye job word business issue side kind head house service friend father
    power hour game line end member law car city community name team minute idea kid
    body information back parent face level office door health person art war history
    party result change morning reason research girl guy moment air teacher force
    education foot boy age policy process music market sense nation plan college
    interest death experience effect class control care field development role effort
    rate heart drug show leader light voice wife police mind price report decision son
    view town road arm value building action model season society""".split()
)

#: Extra PocketSphinx settings (beams trade speed for accuracy).
DECODER_OPTIONS: dict = {}
#: Front-end settings that must replace the acoustic model's own ``feat.params``.
#: PocketSphinx 5 applies ``feat.params`` *over* the settings a caller gives,
#: so ``Decoder(cmn="live")`` is silently ignored: the bundled model forces
#: ``-cmn batch``, ``-remove_noise yes`` and ``-upperf 6800``; :func:`model_view`
#: is the way to change them. Measured on the calibration set
#: (tools/fit_rejection.py; each utterance decoded from a fresh front end):
#: live CMN from the model's prior gains on the narrow-band real digits (88%
#: vs 81%) but loses badly at 10 dB SNR (53% vs 72%); priming it with the
#: utterance's own mean costs 50% more CPU for 90/57/88%; ``remove_noise no``
#: loses on all. So the model's own settings stay.
FEAT_OVERRIDES: dict[str, str] = {}
#: Front-end settings for narrow-band input (8 kHz phones and recordings,
#: upsampled): measured on the calibration half of the real spoken digits,
#: live CMN from the model's prior reads both speakers better than batch
#: (theo 47 -> 50, nicolas 34 -> 38 of 50), while on wide-band speech it
#: loses (see above); so narrow-band audio gets decoders of its own.
NARROWBAND_OVERRIDES: dict[str, str] = {"cmn": "live"}
#: The rejection threshold on :meth:`SphinxRecognizer.score` (see there).
REJECT_BELOW = -19.5
#: A bare answer scoring below this is also tried with a lead-in ("i vote red") ...
LEAD_TRY_BELOW = -12.0
#: ... which is taken when it scores at least this (stricter: it explains more audio).
LEAD_REJECT_BELOW = -13.0
#: Weight of the phone-string distance in the score.
PHONE_WEIGHT = 5.0
#: Settings of the phone-loop decoder (narrow beams: a reference score needs no more).
PHONE_LOOP_OPTIONS: dict = {"beam": 1e-15, "pbeam": 1e-15, "topn": 2}
_NON_SPEECH = {"<sil>", "<s>", "</s>", "(NULL)", "[NOISE]", "[SPEECH]"}
_NON_SPEECH_PHONES = {"SIL", "+NSN+", "+SPN+", "+BREATH+", "+COUGH+", "+UM+", "+UH+",
                      "+SMACK+", "+NOISE+"}

#: Start the live cepstral mean from the utterance's own mean (see ``_fresh``).
PRIME_CMN = False
#: Peak level utterances are scaled to before decoding (measured best of 0.03..1).
TARGET_PEAK = 0.1
#: Faint noise added everywhere, so the decoder never sees exact zeros.
NOISE_FLOOR = 3e-4
#: Noise-floor padding on each side of an utterance, in seconds.
PAD = 0.3
#: High-pass cut-off in Hz (0 turns it off): DC offset and rumble upset the cepstral mean.
HIGHPASS = 100.0
#: Weight of the spectral mirror that fills the empty 4-8 kHz band of narrow-band audio.
MIRROR = 0.3


def _phones_distance(a: list[str], b: list[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, pa in enumerate(a, 1):
        cur = [i]
        for j, pb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (pa != pb)))
        prev = cur
    return prev[-1]


def model_view(overrides: dict[str, str] = FEAT_OVERRIDES) -> str | None:
    """A directory that is the bundled acoustic model with ``overrides`` in its ``feat.params``.

    The model files are linked (copied where links are not allowed), never
    changed; the view lives in the temporary directory, keyed by the settings,
    and is rebuilt when missing. ``None`` when there is nothing to override or
    the view cannot be written (then the model's own settings are used).
    """
    if not overrides:
        return None
    try:
        return _make_view(overrides)
    except OSError:
        return None


def _make_view(overrides: dict[str, str]) -> str:
    """Build (or find) the view; made in a private directory and renamed into place, so
    two processes starting at once never see a half-made model."""
    from pocketsphinx import get_model_path

    src = Path(get_model_path()) / "en-us" / "en-us"
    params = (src / "feat.params").read_text().splitlines()
    out, seen = [], set()
    for line in params:
        key = line.split()[0].lstrip("-") if line.split() else ""
        if key in overrides:
            out.append(f"-{key} {overrides[key]}")
            seen.add(key)
        else:
            out.append(line)
    out += [f"-{k} {v}" for k, v in overrides.items() if k not in seen]
    text = "\n".join(out) + "\n"
    tag = hashlib.sha1((str(src) + text).encode()).hexdigest()[:12]
    view = Path(tempfile.gettempdir()) / f"voicehost-ps-model-{tag}"
    if (view / "feat.params").is_file() and (view / "feat.params").read_text() == text:
        return str(view)
    tmp = Path(tempfile.mkdtemp(prefix="voicehost-ps-model-"))
    for f in src.iterdir():
        if f.name == "feat.params":
            continue
        try:
            os.symlink(f, tmp / f.name)
        except OSError:
            shutil.copy2(f, tmp / f.name)
    (tmp / "feat.params").write_text(text)
    try:
        os.replace(tmp, view)
    except OSError:  # another process made it first (or a stale one is in the way)
        if not ((view / "feat.params").is_file() and (view / "feat.params").read_text() == text):
            shutil.rmtree(view, ignore_errors=True)
            try:
                os.replace(tmp, view)
            except OSError:
                return str(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return str(view)


def is_narrowband(samples: np.ndarray, rate: int = 16000) -> bool:
    """Whether the audio has (almost) nothing above 4 kHz: an upsampled phone or 8 kHz file."""
    if rate < 16000 or len(samples) < 512:
        return False
    spec = np.abs(np.fft.rfft(samples * np.hanning(len(samples)))) ** 2
    cut = int(len(spec) * 4200 / (rate / 2))
    low, high = spec[:cut].sum(), spec[cut:].sum()
    return bool(low > 0 and high / low < 1e-4)


def condition(samples: np.ndarray, rate: int = 16000, seed: int = 0) -> np.ndarray:
    """Level, band and padding an utterance so PocketSphinx's front end behaves.

    Deterministic (seeded noise), so the same audio always gives the same answer.
    """
    x = np.asarray(samples, dtype=np.float64)
    if HIGHPASS and len(x) > 12:
        x = highpass(x, rate)
    if len(x) and is_narrowband(x, rate):
        x = x + MIRROR * x * np.where(np.arange(len(x)) % 2 == 0, 1.0, -1.0)
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak > 1e-6:
        x = x * (TARGET_PEAK / peak)
    pad = np.zeros(int(PAD * rate))
    x = np.concatenate([pad, x, pad])
    x += np.random.default_rng(seed).normal(0.0, NOISE_FLOOR, len(x))
    return x


def highpass(x: np.ndarray, rate: int, cutoff: float | None = None) -> np.ndarray:
    """Remove DC offset and rumble below ``cutoff`` Hz (cheap microphones have both)."""
    from scipy.signal import butter, sosfilt

    sos = butter(2, (cutoff or HIGHPASS) / (rate / 2), btype="highpass", output="sos")
    return sosfilt(sos, x - x[: min(len(x), 400)].mean())


def _with_model(options: dict) -> dict:
    """Decoder options with the model view of :data:`FEAT_OVERRIDES` (unless a model is given)."""
    out = dict(options)
    if "hmm" not in out:
        view = model_view(FEAT_OVERRIDES)
        if view:
            out["hmm"] = view
    return out


def to_pcm16(x: np.ndarray) -> bytes:
    return (np.clip(x, -1.0, 1.0) * 32767).astype("<i2").tobytes()


@dataclass
class _Search:
    bare: str
    lead: str | None
    garbage: frozenset[str]


class SphinxRecognizer:
    """PocketSphinx with a grammar per question.

    Parameters
    ----------
    garbage
        How many out-of-grammar competitor words to offer in the grammar (off by
        default: measured, they reject many right answers from real speakers).
    reject_below
        Score under which an answer is rejected (``-inf`` turns rejection off),
        used when no fitted rejection model is given or installed.
    model
        The :class:`~voicehost.speech.rejection.RejectionModel` (default: the
        fitted one in ``voicehost/data``; ``False`` for the plain threshold).
    min_distance
        Competitors must differ from every answer by at least this many phones.
    """

    name = "pocketsphinx"
    rate = 16000

    def __init__(self, garbage: int = 0, min_distance: int = 3,
                 reject_below: float = REJECT_BELOW, model: "RejectionModel | None | bool" = None):
        from voicehost.speech.rejection import RejectionModel

        self.garbage = garbage
        self.reject_below = reject_below
        #: The fitted rejection model (``None``: the plain score threshold).
        self.model = RejectionModel.load() if model is None else (model or None)
        self.last_features = None
        self.min_distance = min_distance
        self._decoder = None
        self._loop = None
        self._narrow = None
        self._narrow_loop = None
        self._narrow_searches: set[str] = set()
        self._searches: dict[str, _Search] = {}
        self._added: dict[str, str] = {}

    # -- setup ----------------------------------------------------------------

    @property
    def decoder(self):
        if self._decoder is None:
            try:
                from pocketsphinx import Decoder
            except ImportError as exc:  # pragma: no cover - declared dependency
                raise ModelError(
                    "PocketSphinx is not installed; run `pip install pocketsphinx`."
                ) from exc
            try:
                self._decoder = Decoder(samprate=self.rate, lm=None, logfn=os.devnull,
                                        **_with_model(DECODER_OPTIONS))
            except RuntimeError as exc:
                raise ModelError(
                    f"PocketSphinx could not load its English model ({exc}); "
                    "reinstall it with `pip install --force-reinstall pocketsphinx`."
                ) from None
        return self._decoder

    def phones(self, word: str) -> list[str] | None:
        """The pronunciation used for ``word`` (dictionary, else generated), or ``None``."""
        found = self.decoder.lookup_word(word)
        if found:
            return found.split()
        phones = pronounce(word)
        if not phones:
            return None
        try:
            self.decoder.add_word(word, phones, True)
        except RuntimeError:
            return None
        self._added[word] = phones
        return phones.split()

    @property
    def generated(self) -> dict[str, str]:
        """Words not in the dictionary and the phones generated for them."""
        return dict(self._added)

    def prepare(self, question: Question | Prepared) -> Prepared:
        if isinstance(question, Prepared):
            return question
        known, missing = set(), []
        for word in question.vocabulary():
            (known.add(word) if self.phones(word) else missing.append(word))
        answer_phones = [
            sum((self.phones(w) or [] for w in form.split()), [])
            for form, _ in question.spoken_forms()
        ]
        vocab = set(question.vocabulary())
        garbage = []
        for word in GARBAGE_WORDS:
            if len(garbage) >= self.garbage:
                break
            if word in vocab:
                continue
            ph = self.phones(word)
            if ph and all(_phones_distance(ph, a) >= self.min_distance for a in answer_phones):
                garbage.append(word)
        bare = self._search(question.jsgf(known, garbage=garbage, carriers=False))
        lead = None
        if any(all(w in known for w in c.split()) for c in question.carriers):
            lead = self._search(question.jsgf(known, garbage=garbage, carriers=True))
        return Prepared(question, missing, _Search(bare, lead, frozenset(garbage)))

    def _search(self, jsgf: str) -> str:
        name = f"q{abs(hash(jsgf)) % 10**12}"
        if name not in self._searches:
            try:
                self.decoder.add_jsgf_string(name, jsgf)
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx rejected a grammar ({exc}).") from None
            self._searches[name] = jsgf
        return name

    # -- decoding -------------------------------------------------------------

    def _fresh(self, d, pcm: bytes) -> None:
        """Start an utterance on ``d`` that depends on ``pcm`` alone.

        PocketSphinx carries its cepstral mean and noise estimate from one
        utterance to the next, so the same answer could be read differently
        after another history, and a resumed game must hear what the first one heard.
        With :data:`PRIME_CMN` the live mean starts from this utterance's own
        mean (a cheap front-end-only pass) instead of the model's prior.
        """
        d.reinit_feat()
        if PRIME_CMN:
            d.start_utt()
            d.process_raw(pcm, True, True)
            mean = d.get_cmn(True)
            d.end_utt()
            d.reinit_feat()
            d.set_cmn(mean)
        d.start_utt()

    def _narrow_decoder(self):
        """The grammar decoder for narrow-band audio, with every word and search of the main one."""
        if self._narrow is None:
            from pocketsphinx import Decoder

            self.decoder  # the main one first: its errors are the clear ones
            view = model_view(NARROWBAND_OVERRIDES)
            self._narrow = Decoder(samprate=self.rate, lm=None, logfn=os.devnull,
                                   **({**DECODER_OPTIONS, "hmm": view} if view else DECODER_OPTIONS))
        for word, phones in self._added.items():
            if not self._narrow.lookup_word(word):
                self._narrow.add_word(word, phones, True)
        for name, jsgf in self._searches.items():
            if name not in self._narrow_searches:
                self._narrow.add_jsgf_string(name, jsgf)
                self._narrow_searches.add(name)
        return self._narrow

    def _run(self, pcm: bytes, search: str, narrow: bool = False):
        d = self._narrow_decoder() if narrow else self.decoder
        d.activate_search(search)
        self._fresh(d, pcm)
        d.process_raw(pcm, False, True)
        d.end_utt()
        hyp = d.hyp()
        return (hyp.hypstr.strip() if hyp else ""), list(d.seg() or [])

    def _phone_loop(self, narrow: bool = False):
        """The free phone loop, in a decoder of its own with narrow beams.

        It only gives a reference score, so a rough search does; measured,
        this makes it four times cheaper than the grammar decoder's beams.
        """
        attr = "_narrow_loop" if narrow else "_loop"
        if getattr(self, attr) is None:
            from pocketsphinx import Decoder, get_model_path

            path = os.path.join(get_model_path(), "en-us", "en-us-phone.lm.bin")
            options = dict(PHONE_LOOP_OPTIONS)
            view = model_view(NARROWBAND_OVERRIDES) if narrow else None
            if view:
                options["hmm"] = view
            try:
                setattr(self, attr, Decoder(samprate=self.rate, lm=None, logfn=os.devnull,
                                            allphone=path, **_with_model(options)))
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx's phone model is missing ({exc}); reinstall pocketsphinx.") from None
        return getattr(self, attr)

    def _run_loop(self, pcm: bytes, narrow: bool = False):
        d = self._phone_loop(narrow)
        self._fresh(d, pcm)
        d.process_raw(pcm, False, True)
        d.end_utt()
        return list(d.seg() or [])

    def features(self, heard: str, segs, phone_segs) -> "Features":
        """What the rejection model looks at for one decoded answer (see :mod:`.rejection`)."""
        from voicehost.speech.rejection import Features

        grammar = sum(math.log(max(sg.ascore, 1e-300)) for sg in segs)
        loop = sum(math.log(max(sg.ascore, 1e-300)) for sg in phone_segs)
        speech = [sg for sg in segs if sg.word not in _NON_SPEECH]
        frames = max(1, sum(sg.end_frame - sg.start_frame + 1 for sg in speech))
        diff = max((grammar - loop) / frames, -60.0)
        heard_phones = [sg.word for sg in phone_segs if sg.word not in _NON_SPEECH_PHONES]
        ref = sum((self.phones(w) or [] for w in heard.split()), [])
        dist = _phones_distance(heard_phones, ref) / max(1, len(ref))
        return Features(diff=diff, distance=dist, frames=frames, phones=max(1, len(ref)),
                        loop_phones=len(heard_phones), words=len(heard.split()))

    def score(self, heard: str, segs, phone_segs) -> float:
        """How much better than "any sounds" the answer fits, per speech frame (higher is better).

        The grammar's acoustic log-likelihood minus the free phone loop's,
        per frame of speech, less ``PHONE_WEIGHT`` times the normalised edit
        distance between the phones the loop heard and the answer's phones.
        """
        f = self.features(heard, segs, phone_segs)
        return f.diff - PHONE_WEIGHT * f.distance

    def recognize(self, samples: np.ndarray, question: Question | Prepared) -> Answer:
        prepared = self.prepare(question)
        search: _Search = prepared.handle
        x = np.asarray(samples, dtype=np.float64)
        narrow = bool(NARROWBAND_OVERRIDES) and is_narrowband(x, self.rate)
        pcm = to_pcm16(condition(x, self.rate))
        heard, segs = self._run(pcm, search.bare, narrow)
        self.last_features = None
        words = heard.split()
        if words and words[0] in search.garbage:
            return Answer(None, 0.0, heard, self.name)
        phone_segs = self._run_loop(pcm, narrow)
        feats = self.features(heard, segs, phone_segs) if words else None
        z = feats.diff - PHONE_WEIGHT * feats.distance if feats else -np.inf
        if z < LEAD_TRY_BELOW and search.lead is not None:
            # Not a clear bare answer: perhaps "i vote red". (A lead-in is
            # tried only now, since an optional one lets the search invent
            # "i pick" out of a breath before a bare answer.) A lead-in
            # grammar explains more of any audio, so it has a stricter bar.
            lead_heard, lead_segs = self._run(pcm, search.lead, narrow)
            lead_words = lead_heard.split()
            if lead_words and lead_words[-1] not in search.garbage and prepared.question.parse(lead_heard):
                lead_feats = self.features(lead_heard, lead_segs, phone_segs)
                lead_z = lead_feats.diff - PHONE_WEIGHT * lead_feats.distance
                if lead_z >= LEAD_REJECT_BELOW and lead_z > z:
                    heard, z, feats = lead_heard, max(lead_z, self.reject_below), lead_feats
        self.last_features = feats
        if feats is None:
            return Answer(None, 0.0, heard, self.name)
        if self.model is not None:
            confidence = self.model.probability(feats)
            accepted = confidence >= self.model.threshold
        else:
            confidence = float(1.0 / (1.0 + math.exp(-(z - self.reject_below) / 3.0))) if np.isfinite(z) else 0.0
            accepted = z >= self.reject_below
        choice = prepared.question.parse(heard) if accepted else None
        return Answer(choice, float(confidence), heard, self.name)
