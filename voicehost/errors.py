"""Errors a person can act on.

Anything raised as a :class:`VoicehostError` is a user mistake or an
environment problem (a bad file, a missing model, no sound card). The CLI
prints its message as one line on stderr and exits with code 2; it never
shows a traceback for these unless ``--debug`` is given.
"""

from __future__ import annotations


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
