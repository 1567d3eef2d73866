"""Vosk model discovery, layout checks, install, clear errors; real decoding when a model exists."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from voicehost.errors import ModelError
from voicehost.speech import models

FIXTURES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "speech"


def fake_model(root: Path, name="vosk-model-tiny", grammar=True) -> Path:
    m = root / name
    (m / "am").mkdir(parents=True)
    (m / "am" / "final.mdl").write_bytes(b"x")
    (m / "conf").mkdir()
    (m / "conf" / "mfcc.conf").write_text("--sample-frequency=16000\n")
    (m / "graph").mkdir()
    if grammar:
        (m / "graph" / "HCLr.fst").write_bytes(b"x")
        (m / "graph" / "Gr.fst").write_bytes(b"x")
        (m / "graph" / "words.txt").write_text("<eps> 0\nred 1\nblue 2\n")
    else:
        (m / "graph" / "HCLG.fst").write_bytes(b"x")
    return m


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """Isolate discovery from this machine: empty project and user model folders."""
    monkeypatch.delenv(models.ENV_VAR, raising=False)
    monkeypatch.setattr(models, "project_models_dir", lambda: tmp_path / "proj")
    monkeypatch.setattr(models, "user_models_dir", lambda: tmp_path / "user")
    return tmp_path


def test_good_layout_passes_and_vocabulary_is_read(tmp_path):
    m = fake_model(tmp_path)
    check = models.check_model(m)
    assert check.ok and check.grammar_ok
    assert models.read_vocabulary(m) == {"<eps>", "red", "blue"}
    assert models.check_model(fake_model(tmp_path, "static", grammar=False)).grammar_ok is False


def test_broken_layouts_say_what_is_wrong(tmp_path):
    m = fake_model(tmp_path)
    (m / "am" / "final.mdl").unlink()
    import shutil
    shutil.rmtree(m / "conf")
    check = models.check_model(m)
    assert not check.ok
    assert "the conf/ folder is missing" in check.problems and "am/final.mdl is missing" in check.problems
    assert "voicehost models install" in check.sentence()
    assert models.check_model(tmp_path / "nowhere").problems == ["no such folder"]


def test_discovery_order_env_then_project_then_user(homes, monkeypatch):
    assert models.discover() == []
    with pytest.raises(ModelError, match="no Vosk model is installed"):
        models.find_model()
    user = fake_model(homes / "user", "u-model")
    proj = fake_model(homes / "proj", "p-model")
    assert models.discover() == [proj, user]
    env = fake_model(homes / "elsewhere", "e-model")
    monkeypatch.setenv(models.ENV_VAR, str(env))
    assert models.discover()[0] == env and models.find_model() == env
    assert models.find_model("u-model") == user


def test_install_from_zip_and_dir(homes):
    src = fake_model(homes / "src", "vosk-model-small-en-us-0.15")
    zpath = homes / "vosk-model-small-en-us-0.15.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for f in src.rglob("*"):
            zf.write(f, f.relative_to(src.parent))
    dest = models.install(zpath)
    assert dest == homes / "user" / "vosk-model-small-en-us-0.15"
    assert models.check_model(dest).ok
    assert models.install(src, homes / "other") == homes / "other" / src.name


def test_install_rejects_non_models(homes):
    bad_zip = homes / "bad.zip"
    with zipfile.ZipFile(bad_zip, "w") as zf:
        zf.writestr("readme.txt", "hello")
    with pytest.raises(ModelError, match="no model inside"):
        models.install(bad_zip)
    not_zip = homes / "model.zip"
    not_zip.write_text("not a zip")
    with pytest.raises(ModelError, match="neither a zip"):
        models.install(not_zip)
    half = fake_model(homes / "half", "m")
    (half / "graph" / "Gr.fst").unlink()
    (half / "graph" / "HCLr.fst").unlink()
    with pytest.raises(ModelError, match="graph/ has neither"):
        models.install(half)
    assert not (homes / "user").exists()


def test_cli_errors_are_one_line(tmp_path):
    env = {"VOICEHOST_VOSK_MODEL": str(tmp_path / "missing"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "voicehost", "hear", str(FIXTURES / "en_us_160_clean_red.wav"),
                          "--choices", "red,blue", "--backend", "vosk"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "not a usable Vosk model" in out.stderr
    out = subprocess.run([sys.executable, "-m", "voicehost", "models", "install", str(tmp_path / "x.zip")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "no such file" in out.stderr


def test_vosk_recognises_with_a_real_model():
    found = models.discover()
    if not found:
        pytest.skip("no English Vosk model installed (none can be downloaded offline here, and "
                    "no package ships one); this measures English accuracy only: the Vosk "
                    "machinery runs on a real Korean model in test_speech_vosk_real.py. Install "
                    "one with `voicehost models install vosk-model-small-en-us-0.15.zip`")
    from voicehost.speech.recognizer import open_recognizer
    from voicehost.speech.grammar import Question
    from voicehost.audio.sources import read_audio

    rec = open_recognizer("vosk")
    truth = json.loads((FIXTURES / "truth.json").read_text())
    q = Question.build(["red", "blue", "green", "yellow", "black", "white", "orange", "purple"])
    items = [i for i in truth["items"] if i["question"] == "colour" and i["snr_db"] is None]
    right = sum(rec.recognize(read_audio(FIXTURES / i["file"]), q).choice == i["expected"] for i in items)
    assert right >= 0.9 * len(items)
