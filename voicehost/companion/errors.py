"""Companion problems a person can fix (one sentence, exit code 2)."""

from __future__ import annotations

from voicehost.errors import VoicehostError


class CompanionError(VoicehostError):
    """The phone pages cannot start: port in use, no network interface, bad address."""
