"""Join codes and secret tokens.

The join code is said aloud to the table, so it must survive a noisy room:
four letters from a set with no look-alikes (no I/L/O/Q) and no sound-alikes
(only one of the rhyming "ee" letters B C D E G P T V Z, one of M/N, one of
F/S/X, one of A/J/K ...), each read with its spelling-alphabet word. It keeps a neighbour on
the same Wi-Fi from taking a seat; it is not what protects the secrets.

The per-player token is: 24 random bytes from :mod:`secrets`, compared in
constant time, and every private endpoint and websocket requires it.
"""

from __future__ import annotations

import hmac
import secrets

#: Letters of a join code, with the word the host says for each.
SPOKEN: dict[str, str] = {
    "A": "Alfa", "D": "Delta", "H": "Hotel", "M": "Mike",
    "R": "Romeo", "W": "Whiskey", "X": "X-ray", "Y": "Yankee",
}
JOIN_ALPHABET = "".join(SPOKEN)
CODE_LENGTH = 4


def new_join_code(length: int = CODE_LENGTH) -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(length))


def spoken_code(code: str) -> str:
    """"ADHM" -> "Alfa, Delta, Hotel, Mike": what the voice says."""
    return ", ".join(SPOKEN.get(ch, ch) for ch in code)


def normalise_code(text: str) -> str:
    """What a player typed ("a-d h m", "alfa delta hotel mike") as a code ("ADHM")."""
    words = str(text).lower().replace("x-ray", "xray").replace("-", " ").replace(",", " ").split()
    by_word = {w.lower(): ch for ch, w in SPOKEN.items()}
    by_word["xray"] = "X"
    if words and all(w.lower() in by_word for w in words):
        return "".join(by_word[w.lower()] for w in words)
    return "".join(ch for ch in str(text).upper() if ch.isalnum())


def new_token() -> str:
    return secrets.token_urlsafe(24)


def same_secret(a: str | None, b: str | None) -> bool:
    """Constant-time equality, so response timing says nothing of a token's prefix."""
    if not a or not b:
        return False
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
