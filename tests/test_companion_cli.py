"""``--cards phones`` through the real command: options, refusals, and a live game.

The live test runs ``voicehost drakkar --cards phones`` as a person would: in
a terminal (a pseudo-terminal here), listening to the loopback sound card of
the ``pulse`` fixture, with two browser phones that join and tap.
"""

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import soundfile as sf

from test_companion_browser import Phone, browser, until  # noqa: F401  (browser: fixture)

ROOT = Path(__file__).resolve().parents[1]


def voicehost(*args):
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def test_drakkar_help_offers_phones():
    out = voicehost("drakkar", "--help")
    assert out.returncode == 0
    assert "--cards {table,phones}" in out.stdout and "--bind" in out.stdout


def test_phones_with_a_recording_is_a_one_line_error(tmp_path):
    out = voicehost("drakkar", "--cards", "phones", "--input", str(tmp_path / "x.wav"))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "voicehost: error: --cards phones is for live play; a recording's plays come from "
        "its files, so drop --cards phones or --input."]


@pytest.mark.parametrize("bind, port, message", [
    ("127.0.0.1", "busy", "port {port} is already in use on 127.0.0.1"),
    ("192.0.2.1", "0", "192.0.2.1 is not an address of this machine"),
])
def test_a_busy_port_or_a_foreign_address_is_a_one_line_error(pulse, bind, port, message):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        if port == "busy":
            port = str(busy.getsockname()[1])
        out = voicehost("drakkar", "--cards", "phones", "--bind", bind, "--port", port,
                        "--players", "ann,bo", "--quiet", "--input-device", "pulse")
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicehost: error: ")
    assert message.format(port=port) in lines[0]


class Terminal:
    """The command in a pseudo-terminal; everything it prints is kept."""

    def __init__(self, *args: str):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "voicehost", *args], cwd=ROOT,
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                                     env=dict(os.environ, NO_COLOR="1"))
        os.close(slave)
        self.text = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            self.text += chunk.decode("utf-8", "replace")

    def wait_for(self, pattern: str, timeout: float = 30.0, after: int = 0) -> re.Match:
        """Wait until ``pattern`` is printed (after the first ``after`` characters)."""
        return until(lambda: re.compile(pattern).search(self.text, after), timeout)

    def type(self, keys: str):
        os.write(self.master, keys.encode())

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self.master)


def test_live_drakkar_with_two_phones(pulse, browser, tmp_path):
    heard = tmp_path / "heard.wav"
    term = Terminal("drakkar", "--cards", "phones", "--bind", "127.0.0.1", "--players",
                    "ann,bo", "--first", "ann", "--quiet", "--input-device", "pulse",
                    "--record-input", str(heard))
    phones = []
    try:
        m = term.wait_for(r"open (http://127\.0\.0\.1:\d+) and enter the join code ([A-Z]{4})")
        url, code = m.group(1), m.group(2)
        term.wait_for(r"\u2580|\u2584")  # the QR code
        term.wait_for(r"join code [A-Z][a-z-]+, ")  # said (printed with --quiet)

        class Table:  # what Phone needs of a companion
            join_url = f"{url}/#code={code}"

        for name, colour in (("ann", "red"), ("bo", "blue")):
            phone = Phone(browser, Table)
            phones.append(phone)
            phone.join(name, colour, typed_name=False)
        term.wait_for("Every hand is on its phone")
        page = phones[0].page
        page.locator("#clock").filter(has_text="within").wait_for()
        cards = page.locator("button.card").all_inner_texts()
        assert len(cards) == 4  # two players are dealt four cards each
        page.locator("button.card").first.click()
        before = len(term.text)
        page.get_by_role("button", name="Play on section 1").click()
        term.wait_for("Ann", after=before)  # the host answers the tap (still the warm-up)
        ack = until(phones[0].last_ack)
        assert ack["error"] is not None and ack["error"] < 0.05 and ack["t"] > 0
        phones[1].page.close()
        term.wait_for("bo's phone left")
        term.type("q")
        term.wait_for(r"Phone clocks \(error bound of a tap\): ann ±\d+\.\d ms")
        assert term.proc.wait(timeout=20) == 0
        # --record-input kept the microphone on the host's clock, the tap's time included.
        info = sf.info(str(heard))
        assert (info.samplerate, info.channels, info.subtype) == (16000, 1, "FLOAT")
        assert info.duration > ack["t"]
    finally:
        for phone in phones:
            phone.close()
        term.close()


def test_live_sunken_sailor_deals_each_role_to_its_phone_only(pulse, browser):
    """``voicehost sailor --cards phones`` up to the first deal: three browser phones
    join, each reads its own role, and what the host says (printed with --quiet)
    holds no secret."""
    from playwright.sync_api import expect

    players = {"ann": "red", "bo": "blue", "cy": "green"}
    term = Terminal("sailor", "--cards", "phones", "--bind", "127.0.0.1", "--players",
                    ",".join(f"{n}:{c}" for n, c in players.items()), "--quiet",
                    "--input-device", "pulse", "--seed", "1")
    phones = {}
    try:
        m = term.wait_for(r"open (http://127\.0\.0\.1:\d+) and enter the join code ([A-Z]{4})")

        class Table:
            join_url = f"{m.group(1)}/#code={m.group(2)}"

        for name, colour in players.items():
            phone = phones[name] = Phone(browser, Table)
            phone.page.goto(Table.join_url)
            phone.page.get_by_role("radio", name=f"{name} ({colour})").check()
            phone.page.get_by_role("button", name="Sit down").click()
            phone.expect_seated(f"{name}, {colour}")
        term.wait_for("Your roles are on your phones")
        secrets_seen = {}
        for name, phone in phones.items():
            page = phone.page
            expect(page.locator("#status")).to_contain_text("Round 1: your role has arrived")
            page.locator("#reveal").focus()
            page.keyboard.down("Space")
            expect(page.locator("#secret")).to_contain_text("You are")
            secrets_seen[name] = page.locator("#secret").inner_text()
            page.keyboard.up("Space")
            expect(page.locator("#secret")).to_be_empty()
        drunk = [n for n, text in secrets_seen.items() if "Drunken Sailor" in text]
        assert len(drunk) == 1
        words = {re.search(r"The secret word is (.+)\.", text).group(1)
                 for n, text in secrets_seen.items() if n not in drunk}
        assert len(words) == 1
        word = words.pop()
        assert word.lower() not in secrets_seen[drunk[0]].lower()
        # What the host said (printed with --quiet) holds no word, no story line, no role.
        said = term.text.lower()
        assert word.lower() not in said
        for name, text in secrets_seen.items():
            line = re.search(r"Your story line: (.+)", text)
            assert line is None or line.group(1).strip().lower() not in said
        assert "drunken" not in said
    finally:
        for phone in phones.values():
            phone.close()
        term.close()
