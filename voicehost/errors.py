"""Errors, and notes, a person can act on.

Anything raised as a :class:`VoicehostError` is a user mistake or an
environment problem (a bad file, a missing model, no sound card). The CLI
prints its message as one line on stderr and exits with code 2; it never
shows a traceback for these unless ``--debug`` is given. A note
(:func:`print_notes`) is the same kind of message about something that does
not stop the work (a recording cut off, a narrowband microphone).
"""

from __future__ import annotations

import sys
from typing import Iterable


def print_notes(notes: Iterable[str]) -> None:
    """Each note as one line on stderr, as the CLI prints an error."""
    for note in notes:
        print(f"voicehost: note: {note}", file=sys.stderr)


class VoicehostError(Exception):
    """A problem the user can fix; the message says what to do."""

    exit_code = 2


class RecordError(VoicehostError):
    """A game record (or journal) that cannot be read as a game."""


class AudioFileError(VoicehostError):
    """An audio file that cannot be read or makes no sense as audio."""


class DeviceError(VoicehostError):
    """A sound device that is missing, busy or went away."""


class ModelError(VoicehostError):
    """A speech model that is missing or broken."""
