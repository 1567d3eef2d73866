"""Pronunciations (CMU/ARPAbet phones) for words a dictionary lacks, such as player names.

espeak-ng already knows how to say almost any English spelling; its IPA output
is mapped here onto the 39 phones of the CMU dictionary that PocketSphinx's
model uses. When espeak-ng is not installed a plain letter-to-sound rule set
gives a rougher guess. A word that yields nothing is reported, never guessed
silently.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

#: Multi-character IPA first (longest match wins).
_IPA = {
    "aɪə": "AY ER", "aʊə": "AW ER",
    "oʊ": "OW", "əʊ": "OW", "eɪ": "EY", "aɪ": "AY", "aʊ": "AW", "ɔɪ": "OY",
    "tʃ": "CH", "dʒ": "JH", "ɪə": "IH R", "eə": "EH R", "ʊə": "UH R",
    "ɜː": "ER", "ɚ": "ER", "ɝ": "ER", "iː": "IY", "i": "IY", "ɪ": "IH", "ᵻ": "IH",
    "ɛ": "EH", "e": "EH", "æ": "AE", "a": "AE", "ɐ": "AH", "ɑː": "AA", "ɑ": "AA",
    "ɒ": "AA", "ɔː": "AO", "ɔ": "AO", "oː": "OW", "o": "OW", "ʌ": "AH", "ə": "AH",
    "ʊ": "UH", "uː": "UW", "u": "UW",
    "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "ɡ": "G", "g": "G", "f": "F",
    "v": "V", "θ": "TH", "ð": "DH", "s": "S", "z": "Z", "ʃ": "SH", "ʒ": "ZH",
    "h": "HH", "m": "M", "n": "N", "ŋ": "NG", "l": "L", "ɫ": "L", "r": "R", "ɹ": "R",
    "w": "W", "j": "Y", "ɾ": "T", "ʔ": "T", "x": "K", "ç": "HH", "ɬ": "L",
}
_IGNORE = set("ˈˌː.-_ ‿ˑ̩̃'")

#: Rough letter-to-sound for when espeak-ng is missing (digraphs first).
_LETTERS = {
    "tch": "CH", "sh": "SH", "ch": "CH", "th": "TH", "ph": "F", "ng": "NG", "ck": "K",
    "qu": "K W", "ee": "IY", "ea": "IY", "oo": "UW", "ou": "AW", "ow": "OW", "ai": "EY",
    "ay": "EY", "oa": "OW", "oi": "OY", "oy": "OY", "ie": "IY", "igh": "AY",
    "a": "AE", "b": "B", "c": "K", "d": "D", "e": "EH", "f": "F", "g": "G", "h": "HH",
    "i": "IH", "j": "JH", "k": "K", "l": "L", "m": "M", "n": "N", "o": "OW", "p": "P",
    "q": "K", "r": "R", "s": "S", "t": "T", "u": "AH", "v": "V", "w": "W", "x": "K S",
    "y": "IY", "z": "Z",
}


def ipa_to_cmu(ipa: str) -> str:
    """Map espeak-ng's IPA for one word to space-separated CMU phones ("" if none)."""
    phones: list[str] = []
    i = 0
    keys = sorted(_IPA, key=len, reverse=True)
    while i < len(ipa):
        ch = ipa[i]
        if ch in _IGNORE or ch.isspace():
            i += 1
            continue
        for key in keys:
            if ipa.startswith(key, i):
                phones.extend(_IPA[key].split())
                i += len(key)
                break
        else:
            i += 1  # an unknown symbol (a rare diacritic): skip it
    return " ".join(phones)


def letters_to_cmu(word: str) -> str:
    """A rough pronunciation from spelling alone (the fallback without espeak-ng)."""
    word = "".join(c for c in word.lower() if c.isalpha())
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # silent final e
    phones: list[str] = []
    keys = sorted(_LETTERS, key=len, reverse=True)
    i = 0
    while i < len(word):
        for key in keys:
            if word.startswith(key, i):
                phones.extend(_LETTERS[key].split())
                i += len(key)
                break
        else:
            i += 1
    # collapse doubled consonants ("anna" -> AE N AH)
    out = [p for k, p in enumerate(phones) if k == 0 or p != phones[k - 1]]
    return " ".join(out)


@functools.lru_cache(maxsize=512)
def pronounce(word: str, voice: str = "en-us") -> str:
    """CMU phones for ``word``: espeak-ng's reading if available, else letter-to-sound."""
    exe = shutil.which("espeak-ng")
    if exe and word.replace("'", "").isalpha():
        try:
            out = subprocess.run(
                [exe, "-q", "--ipa", "-v", voice, word],
                capture_output=True, text=True, timeout=10, check=True,
            ).stdout
            phones = ipa_to_cmu(out.strip())
            if phones:
                return phones
        except (OSError, subprocess.SubprocessError):
            pass
    return letters_to_cmu(word)
