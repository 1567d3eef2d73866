"""The terminal QR code: two modules per character, read back exactly."""

from voicehost.companion.qr import qr_matrix, qr_text

URL = "http://192.168.1.23:40123/#code=ADHM"
BACK = {" ": (False, False), "\u2580": (True, False), "\u2584": (False, True),
        "\u2588": (True, True)}


def test_half_blocks_hold_every_module_of_the_code():
    rows = qr_matrix(URL)
    assert len(rows) == len(rows[0]) == 29 + 2 * 2  # version 3 and a quiet zone of two
    lines = qr_text(URL, colour=False).splitlines()
    assert len(lines) == (len(rows) + 1) // 2
    read = []
    for line in lines:
        pairs = [BACK[ch] for ch in line]
        read.append([top for top, _ in pairs])
        read.append([bottom for _, bottom in pairs])
    assert read[:len(rows)] == rows
    # The finder pattern in the top-left corner: a 7x7 dark frame.
    assert all(rows[2][2:9]) and all(rows[8][2:9])


def test_colour_sets_black_on_white_and_resets():
    lines = qr_text(URL, colour=True).splitlines()
    assert all(line.startswith("\x1b[30;107m") and line.endswith("\x1b[0m") for line in lines)
