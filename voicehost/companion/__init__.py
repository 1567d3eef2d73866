"""Companion pages: each player's phone as a private channel.

A voice cannot tell one player a secret (design.md 4.4), so the host serves a
small web page on the local network. Each player opens it, takes a seat with
the join code the host says aloud, and gets a secret token; from then on the
page shows that player's role or hand and nothing else, and a Drakkar tap on
it is a declaration stamped on the host's sample clock.

This package knows nothing of sound or of the rules: the host gives it a
``clock()`` callable (its sample clock) and plain JSON payloads. Importing it
is cheap; the web stack is imported only when a server starts.
"""

from __future__ import annotations

from voicehost.companion.errors import CompanionError
from voicehost.companion.hub import Companion, PhoneDeclaration, SeatInfo

__all__ = ["Companion", "CompanionError", "PhoneDeclaration", "SeatInfo"]
