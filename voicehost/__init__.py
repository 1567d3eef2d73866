"""voicehost: an offline, sound-driven host for Drakkar Tum Tum and Sunken Sailor.

The package is split so that the rules (``voicehost.games``) never touch sound,
and sound (``voicehost.audio``, ``voicehost.speech``) never knows the rules;
``voicehost.hosts`` is the only place where they meet.
"""

__version__ = "0.1.0"
