"""A real sound card for the tests: a private PulseAudio server with a null sink.

design.md 3.3: whatever is played into a null sink can be recorded from its
monitor through PortAudio, exactly as from a microphone. The session starts
its own PulseAudio daemon (its own socket, under a temporary folder) rather
than borrowing one that may be running: tests that kill the server (the
device-vanishes fault) or listen to the sink must not disturb, or be
disturbed by, anything else on the machine. Where no ``pulseaudio`` binary
exists but a server answers (PipeWire's pulse layer, a desktop session), a
uniquely named null sink is loaded into that server instead.

The environment is set here, when pytest configures itself, before any test
module (and so sounddevice, and so PortAudio) is imported:
``PULSE_SERVER`` points at the private server, ``PULSE_SINK`` and
``PULSE_SOURCE`` route every client's playback into the sink and its
recording from the monitor, so subprocesses inherit the loopback.

If PulseAudio cannot be started, the ``pulse`` fixture fails (never skips):
a loopback test that does not run must not look like one that passed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SINK = "vh_test"


@dataclass
class PulseServer:
    """The loopback sound server of this test session."""

    sink: str = SINK
    folder: Path | None = None  # set when this session runs its own daemon
    process: subprocess.Popen | None = None
    module: str | None = None  # null-sink module loaded into a borrowed server
    error: str | None = None
    log: list[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        return f"{self.sink}.monitor"

    @property
    def socket(self) -> Path | None:
        return None if self.folder is None else self.folder / "native"

    @property
    def owned(self) -> bool:
        return self.folder is not None

    def env(self) -> dict[str, str]:
        """Environment entries that route a client into the loopback."""
        env = {"PULSE_SINK": self.sink, "PULSE_SOURCE": self.source}
        if self.socket is not None:
            env["PULSE_SERVER"] = f"unix:{self.socket}"
        return env

    def pactl(self, *args: str, timeout: float = 10) -> subprocess.CompletedProcess:
        return subprocess.run(["pactl", *args], capture_output=True, text=True,
                              env=dict(os.environ, **self.env()), timeout=timeout)

    def answering(self) -> bool:
        try:
            return self.pactl("info", timeout=5).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    # -- our own daemon --------------------------------------------------------
    def start(self) -> None:
        """Start (or restart, after :meth:`stop`) this session's daemon with the null sink."""
        assert self.folder is not None
        (self.folder / "state").mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PULSE_RUNTIME_PATH=str(self.folder),
                   PULSE_STATE_PATH=str(self.folder / "state"), HOME=str(self.folder))
        for key in ("PULSE_SERVER", "PULSE_SINK", "PULSE_SOURCE"):
            env.pop(key, None)
        if self.socket.exists():
            self.socket.unlink()
        log = open(self.folder / "pulseaudio.log", "ab")
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--use-pid-file=no", "--system=no", "--log-target=stderr",
             "-L", f"module-native-protocol-unix socket={self.socket} auth-anonymous=1",
             "-L", f"module-null-sink sink_name={self.sink} rate=48000",
             "-L", "module-always-sink"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if self.socket.exists() and self.answering():
                return
            time.sleep(0.1)
        tail = (self.folder / "pulseaudio.log").read_text(errors="replace")[-600:]
        self.stop()
        raise RuntimeError(f"pulseaudio did not start: {tail.strip() or 'no output'}")

    def stop(self) -> None:
        """Stop this session's daemon (the device vanishes for every client)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


def _start_session_server() -> PulseServer:
    if shutil.which("pulseaudio") and shutil.which("pactl"):
        server = PulseServer(folder=Path(tempfile.mkdtemp(prefix="voicehost-pulse-")))
        try:
            server.start()
        except (OSError, RuntimeError) as exc:
            server.error = str(exc)
        return server
    server = PulseServer(sink=f"{SINK}_{os.getpid()}")
    if not shutil.which("pactl"):
        server.error = "pulseaudio and pactl are not installed (apt-get install pulseaudio)"
        return server
    if not server.answering():
        server.error = "no pulseaudio binary and no running server to borrow"
        return server
    done = server.pactl("load-module", "module-null-sink", f"sink_name={server.sink}")
    if done.returncode != 0:
        server.error = f"cannot load a null sink: {done.stderr.strip()}"
    else:
        server.module = done.stdout.strip()
    return server


_SERVER: PulseServer | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _SERVER
    if _SERVER is not None:
        return
    _SERVER = _start_session_server()
    if _SERVER.error is None:
        os.environ.update(_SERVER.env())


def pytest_unconfigure(config: pytest.Config) -> None:
    global _SERVER
    if _SERVER is None:
        return
    if _SERVER.module is not None:
        _SERVER.pactl("unload-module", _SERVER.module)
    _SERVER.stop()
    if _SERVER.folder is not None:
        shutil.rmtree(_SERVER.folder, ignore_errors=True)
    _SERVER = None


@pytest.fixture(scope="session")
def pulse() -> PulseServer:
    """The loopback sound server; fails the test (never skips) when there is none."""
    assert _SERVER is not None
    if _SERVER.error is not None:
        pytest.fail(f"PulseAudio could not be started for the loopback tests: {_SERVER.error}. "
                    "Install pulseaudio, libportaudio2 and libasound2-plugins "
                    "(./setup.sh --test).", pytrace=False)
    if _SERVER.owned and not _SERVER.running:
        _SERVER.start()  # a fault test stopped it and did not restart it
    return _SERVER
