"""The command line itself: help, start-up cost, error handling."""

import subprocess
import sys

HEAVY = ("librosa", "vosk", "pocketsphinx", "sounddevice", "matplotlib", "scipy")


def test_help_lists_commands_and_exits_zero():
    out = subprocess.run(
        [sys.executable, "-m", "voicehost", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "usage: voicehost" in out.stdout


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys, contextlib, io\n"
        "from voicehost.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_unknown_command_is_a_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "voicehost", "fly-to-the-moon"], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
