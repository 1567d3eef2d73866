"""PocketSphinx, the embedded default: a JSGF grammar per question plus a garbage path.

The wheel ships an English acoustic model and dictionary, so this works on a
fresh install with nothing to download.

Why the conditioning in :func:`condition`: measured here (design.md, section 6
and ``python -m bench speech``), PocketSphinx's live cepstral-mean
normalisation is thrown by exact digital silence and by loud input, and its
model expects energy above 4 kHz that 8 kHz recordings lack. So each
utterance is brought to a fixed peak level, padded with a faint noise floor
(never zeros), and narrow-band audio gets a mirrored copy of its upper band.

Why the garbage words: a grammar of eight colours forces "banana" onto some
colour with high posterior (the posterior does not separate in- from
out-of-grammar speech). Giving the search other ordinary words to choose,
none of which sounds like an answer, lets it say "something else": when one
of them wins, the answer is rejected and the host asks again.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from voicehost.errors import ModelError
from voicehost.speech.grammar import Question
from voicehost.speech.pronounce import pronounce
from voicehost.speech.recognizer import Answer, Prepared

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

#: Peak level utterances are scaled to before decoding (measured best of 0.03..1).
TARGET_PEAK = 0.3
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
        Score under which an answer is rejected (``-inf`` turns rejection off).
    min_distance
        Competitors must differ from every answer by at least this many phones.
    """

    name = "pocketsphinx"
    rate = 16000

    def __init__(self, garbage: int = 0, min_distance: int = 3,
                 reject_below: float = REJECT_BELOW):
        self.garbage = garbage
        self.reject_below = reject_below
        self.min_distance = min_distance
        self._decoder = None
        self._loop = None
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
                                        **DECODER_OPTIONS)
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

    def _run(self, pcm: bytes, search: str):
        d = self.decoder
        d.activate_search(search)
        d.start_utt()
        d.process_raw(pcm, False, True)
        d.end_utt()
        hyp = d.hyp()
        return (hyp.hypstr.strip() if hyp else ""), list(d.seg() or [])

    def _phone_loop(self) -> str:
        """The free phone loop, in a decoder of its own with narrow beams.

        It only gives a reference score, so a rough search does; measured,
        this makes it four times cheaper than the grammar decoder's beams.
        """
        if self._loop is None:
            from pocketsphinx import Decoder, get_model_path

            path = os.path.join(get_model_path(), "en-us", "en-us-phone.lm.bin")
            try:
                self._loop = Decoder(samprate=self.rate, lm=None, logfn=os.devnull,
                                     allphone=path, **PHONE_LOOP_OPTIONS)
            except (RuntimeError, ValueError) as exc:
                raise ModelError(f"PocketSphinx's phone model is missing ({exc}); reinstall pocketsphinx.") from None
        return self._loop

    def _run_loop(self, pcm: bytes):
        d = self._phone_loop()
        d.start_utt()
        d.process_raw(pcm, False, True)
        d.end_utt()
        return list(d.seg() or [])

    def score(self, heard: str, segs, phone_segs) -> float:
        """How much better than "any sounds" the answer fits, per speech frame (higher is better).

        The grammar's acoustic log-likelihood minus the free phone loop's,
        per frame of speech, less ``PHONE_WEIGHT`` times the normalised edit
        distance between the phones the loop heard and the answer's phones.
        Calibrated in bench/speech.py's data: right answers score above
        ``REJECT_BELOW`` 98% of the time, other words mostly below.
        """
        grammar = sum(math.log(max(sg.ascore, 1e-300)) for sg in segs)
        loop = sum(math.log(max(sg.ascore, 1e-300)) for sg in phone_segs)
        speech = [sg for sg in segs if sg.word not in _NON_SPEECH]
        frames = max(1, sum(sg.end_frame - sg.start_frame + 1 for sg in speech))
        diff = max((grammar - loop) / frames, -60.0)
        heard_phones = [sg.word for sg in phone_segs if sg.word not in _NON_SPEECH_PHONES]
        ref = sum((self.phones(w) or [] for w in heard.split()), [])
        dist = _phones_distance(heard_phones, ref) / max(1, len(ref))
        return diff - PHONE_WEIGHT * dist

    def recognize(self, samples: np.ndarray, question: Question | Prepared) -> Answer:
        prepared = self.prepare(question)
        search: _Search = prepared.handle
        pcm = to_pcm16(condition(samples, self.rate))
        heard, segs = self._run(pcm, search.bare)
        words = heard.split()
        if words and words[0] in search.garbage:
            return Answer(None, 0.0, heard, self.name)
        phone_segs = self._run_loop(pcm)
        z = self.score(heard, segs, phone_segs) if words else -np.inf
        if z < LEAD_TRY_BELOW and search.lead is not None:
            # Not a clear bare answer: perhaps "i vote red". (A lead-in is
            # tried only now, since an optional one lets the search invent
            # "i pick" out of a breath before a bare answer.) A lead-in
            # grammar explains more of any audio, so it has a stricter bar.
            lead_heard, lead_segs = self._run(pcm, search.lead)
            lead_words = lead_heard.split()
            if lead_words and lead_words[-1] not in search.garbage and prepared.question.parse(lead_heard):
                lead_z = self.score(lead_heard, lead_segs, phone_segs)
                if lead_z >= LEAD_REJECT_BELOW and lead_z > z:
                    heard, z = lead_heard, max(lead_z, self.reject_below)
        confidence = float(1.0 / (1.0 + math.exp(-(z - self.reject_below) / 3.0))) if np.isfinite(z) else 0.0
        choice = prepared.question.parse(heard) if z >= self.reject_below else None
        return Answer(choice, confidence, heard, self.name)
