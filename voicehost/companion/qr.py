"""The join address as a QR code in the terminal, two modules per character cell.

Half blocks (▀ ▄ █) pack two rows into one line, so a version-3 code fits a
small terminal. Colours are set explicitly (black on white), since a code
drawn in a dark terminal's light foreground is inverted and some phone
cameras refuse an inverted code; without colour, dark modules are blocks.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

_CHARS = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584",
          (True, True): "\u2588"}


def qr_matrix(text: str, border: int = 2) -> list[list[bool]]:
    """Rows of dark (True) and light modules, quiet zone included."""
    import segno

    code = segno.make(text, error="m", micro=False)
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=border)]


def qr_text(text: str, colour: bool = True, border: int = 2) -> str:
    rows = qr_matrix(text, border)
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[0::2], rows[1::2]):
        line = "".join(_CHARS[(a, b)] for a, b in zip(top, bottom))
        lines.append(f"\x1b[30;107m{line}\x1b[0m" if colour else line)
    return "\n".join(lines)


def print_qr(text: str, stream: TextIO | None = None) -> None:
    """Print the code (coloured on a terminal unless NO_COLOR is set)."""
    stream = stream or sys.stdout
    colour = stream.isatty() and "NO_COLOR" not in os.environ
    print(qr_text(text, colour=colour), file=stream)
