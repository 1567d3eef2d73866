"""The mistakes the Sunken Sailor rules can refuse.

Every one is a :class:`~voicehost.errors.VoicehostError`, so a host or the CLI
can say its message to a person as it is: the message names what is wrong and,
where it helps, what to do instead. A record that breaks these rules is reported
as a :class:`~voicehost.errors.RecordError` by :mod:`.record` instead.
"""

from __future__ import annotations

from voicehost.errors import VoicehostError


class SetupError(VoicehostError):
    """Players or envelopes that cannot make a match (bad colour, too many players...)."""


class IllegalAction(VoicehostError):
    """A step the rules refuse at this point of the round ("The vote has not started yet.")."""

    @property
    def reason(self) -> str:
        return str(self)


class UnknownPlayer(IllegalAction):
    """A name, colour or seat number that names nobody at the table."""
