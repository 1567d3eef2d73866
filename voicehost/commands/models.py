"""``voicehost models``: list, install and locate Vosk speech models."""

from __future__ import annotations

import argparse

HELP = "list, install or locate Vosk speech models (PocketSphinx needs none)"
ORDER = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", help="show installed models and whether each is usable")
    inst = sub.add_parser("install", help="unpack and check a model zip or folder")
    inst.add_argument("source", metavar="ZIP_OR_DIR")
    sub.add_parser("path", help="print the model that would be used")


def run(args: argparse.Namespace) -> int:
    from voicehost.speech import models

    action = getattr(args, "action", None) or "list"
    if action == "install":
        dest = models.install(args.source)
        print(f"installed {dest.name} in {dest}")
        return 0
    if action == "path":
        print(models.find_model())
        return 0
    found = models.discover()
    if not found:
        print("no Vosk model installed (PocketSphinx, built in, is used); "
              f"to add one: {models.GET_ONE}.")
        print(f"looked in: ${models.ENV_VAR}, {models.project_models_dir()}, "
              f"{models.user_models_dir()}")
        return 0
    for path in found:
        check = models.check_model(path)
        state = "ok" if check.ok else "BROKEN: " + "; ".join(check.problems)
        print(f"{path.name}\t{state}\t{path}")
    return 0
