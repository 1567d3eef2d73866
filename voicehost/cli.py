"""The ``voicehost`` command.

Sub-commands are discovered from the modules of :mod:`voicehost.commands`, so
adding a command never touches this file. A :class:`~voicehost.errors.VoicehostError`
becomes one line on stderr and exit code 2; anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType

from voicehost import __version__
from voicehost.errors import VoicehostError


def _command_modules() -> list[tuple[str, ModuleType]]:
    import voicehost.commands as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.append((getattr(module, "NAME", info.name), module))
    found.sort(key=lambda item: (getattr(item[1], "ORDER", 50), item[0]))
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="voicehost",
        description=(
            "An offline host for Drakkar Tum Tum and Sunken Sailor that listens "
            "to the table and speaks back."
        ),
    )
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show a traceback for every error"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _command_modules():
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP)
        cmd.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help="show a traceback for every error")
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except VoicehostError as exc:
        if args.debug:
            raise
        print(f"voicehost: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("voicehost: stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
