"""Vosk models: where they are looked for, whether one is usable, and installing one.

A Vosk model is a folder (``vosk-model-small-en-us-0.15/``) with ``am/``
(the acoustic model, ``final.mdl``), ``conf/`` (``mfcc.conf``, ``model.conf``)
and ``graph/`` (the decoding graph, ``HCLr.fst``/``Gr.fst`` for models that
accept a runtime grammar, or ``HCLG.fst``). It is looked for, in order:

1. ``$VOICEHOST_VOSK_MODEL`` (a model folder);
2. ``models/<name>/`` beside the project (a checkout);
3. the user data directory, ``<user data dir>/voicehost/models/<name>/``,
   where ``voicehost models install`` puts it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.errors import ModelError

ENV_VAR = "VOICEHOST_VOSK_MODEL"
GET_ONE = (
    "download a Vosk model such as vosk-model-small-en-us-0.15.zip from the Vosk "
    "models page and run `voicehost models install vosk-model-small-en-us-0.15.zip`"
)


def project_models_dir() -> Path:
    """``models/`` at the root of a checkout (beside the ``voicehost`` package)."""
    return Path(__file__).resolve().parents[2] / "models"


def user_models_dir() -> Path:
    """Where ``voicehost models install`` puts models (per user, survives upgrades)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("voicehost", appauthor=False)) / "models"


@dataclass
class ModelCheck:
    """What is wrong with a model folder (nothing, when ``problems`` is empty)."""

    path: Path
    problems: list[str] = field(default_factory=list)
    grammar_ok: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def sentence(self) -> str:
        """One sentence saying what is wrong and what to do."""
        return (f"{self.path} is not a usable Vosk model ({'; '.join(self.problems)}); "
                f"{GET_ONE}.")


def check_model(path: str | Path) -> ModelCheck:
    """Check a folder's layout without loading it (loading takes seconds and may crash)."""
    path = Path(path)
    check = ModelCheck(path)
    if not path.exists():
        check.problems.append("no such folder")
        return check
    if not path.is_dir():
        check.problems.append("it is a file, not a folder")
        return check
    for sub in ("am", "conf", "graph"):
        if not (path / sub).is_dir():
            check.problems.append(f"the {sub}/ folder is missing")
    if (path / "am").is_dir() and not (path / "am" / "final.mdl").is_file():
        check.problems.append("am/final.mdl is missing")
    if (path / "conf").is_dir() and not (path / "conf" / "mfcc.conf").is_file():
        check.problems.append("conf/mfcc.conf is missing")
    graph = path / "graph"
    if graph.is_dir():
        has_dyn = (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file()
        has_static = (graph / "HCLG.fst").is_file()
        if not (has_dyn or has_static):
            check.problems.append("graph/ has neither HCLr.fst+Gr.fst nor HCLG.fst")
        # No words.txt is asked for: Vosk reads the word table from the
        # graph itself (Gr.fst's or HCLG.fst's output symbols) and only falls
        # back on graph/words.txt when the graph has none. The small models
        # (vosk-model-small-en-us-0.15 among them) ship no words.txt.
        check.grammar_ok = has_dyn
    return check


def _candidates(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "am").is_dir())


def discover() -> list[Path]:
    """Every installed model folder, in the order they are preferred."""
    found: list[Path] = []
    env = os.environ.get(ENV_VAR)
    if env:
        found.append(Path(env))
    for root in (project_models_dir(), user_models_dir()):
        found.extend(_candidates(root))
    return found


def find_model(name_or_path: str | Path | None = None) -> Path:
    """The model to use, checked; :class:`ModelError` with one clear sentence otherwise."""
    if name_or_path:
        path = Path(name_or_path)
        if not path.exists():
            for root in (project_models_dir(), user_models_dir()):
                if (root / str(name_or_path)).is_dir():
                    path = root / str(name_or_path)
                    break
    else:
        found = discover()
        if not found:
            raise ModelError(
                f"no Vosk model is installed; {GET_ONE}, or use --backend pocketsphinx "
                "(built in)."
            )
        path = found[0]
    check = check_model(path)
    if not check.ok:
        raise ModelError(check.sentence())
    return path


def install(source: str | Path, dest_root: Path | None = None) -> Path:
    """Unpack (zip) or copy (folder) a model into the user models folder, checked first.

    Returns the installed model's folder. Nothing is left behind on failure.
    """
    source = Path(source)
    dest_root = dest_root or user_models_dir()
    if not source.exists():
        raise ModelError(f"{source}: no such file or folder; {GET_ONE}.")
    with tempfile.TemporaryDirectory() as tmp:
        if source.is_dir():
            model = source
        elif zipfile.is_zipfile(source):
            try:
                with zipfile.ZipFile(source) as zf:
                    for member in zf.namelist():
                        target = (Path(tmp) / member).resolve()
                        if not str(target).startswith(str(Path(tmp).resolve())):
                            raise ModelError(f"{source}: the zip holds unsafe paths; it is not a Vosk model.")
                    zf.extractall(tmp)
            except zipfile.BadZipFile as exc:
                raise ModelError(f"{source}: the zip is damaged ({exc}); download it again.") from None
            model = _model_root(Path(tmp))
            if model is None:
                raise ModelError(
                    f"{source}: no model inside (a Vosk model zip holds one folder with am/, "
                    f"conf/ and graph/); {GET_ONE}."
                )
        else:
            raise ModelError(f"{source}: neither a zip file nor a folder; {GET_ONE}.")
        check = check_model(model)
        if not check.ok:
            raise ModelError(check.sentence())
        name = source.stem if model == Path(tmp) else model.name
        dest = dest_root / name
        if dest.exists():
            shutil.rmtree(dest)
        dest_root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(model, dest)
    return dest


def _model_root(root: Path) -> Path | None:
    """The folder under ``root`` that looks like a model (``root`` itself or one level down)."""
    if (root / "am").is_dir():
        return root
    subs = [p for p in root.iterdir() if p.is_dir() and (p / "am").is_dir()]
    return subs[0] if len(subs) == 1 else None


def read_vocabulary(model: Path) -> set[str] | None:
    """The words a model's graph knows (``graph/words.txt``), or ``None`` if it has no list."""
    words = model / "graph" / "words.txt"
    if not words.is_file():
        return None
    vocab = set()
    with open(words, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if parts:
                vocab.add(parts[0])
    return vocab
