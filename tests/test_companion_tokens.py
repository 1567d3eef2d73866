"""Join codes (said aloud) and seat tokens (secret)."""

import subprocess
import sys

from voicehost.companion import tokens
from voicehost.companion.tokens import (JOIN_ALPHABET, new_join_code, new_token,
                                        normalise_code, same_secret, spoken_code)

LOOK_ALIKES = set("IL1O0QSZ25B8")
#: Letters that rhyme when spoken ("bee", "dee", "tee" ...), or are otherwise confused aloud.
SOUND_ALIKE_GROUPS = ["BCDEGPTVZ", "MN", "FSX", "AJK", "IY", "QU"]


def test_join_code_is_four_letters_from_the_alphabet():
    for _ in range(200):
        code = new_join_code()
        assert len(code) == 4
        assert set(code) <= set(JOIN_ALPHABET)


def test_join_alphabet_has_no_look_alikes_and_one_letter_per_sound_alike_group():
    assert not LOOK_ALIKES & set(JOIN_ALPHABET)
    for group in SOUND_ALIKE_GROUPS:
        assert len(set(group) & set(JOIN_ALPHABET)) <= 1, group


def test_join_codes_vary():
    assert len({new_join_code() for _ in range(50)}) > 40


def test_code_is_spoken_with_the_spelling_alphabet_and_read_back_either_way():
    assert spoken_code("ADHM") == "Alfa, Delta, Hotel, Mike"
    assert normalise_code("alfa delta hotel mike") == "ADHM"
    assert normalise_code(" a-d h m ") == "ADHM"
    assert normalise_code("X-ray Yankee Whiskey Romeo") == "XYWR"
    for code in (new_join_code() for _ in range(20)):
        assert normalise_code(spoken_code(code)) == code


def test_tokens_are_long_random_and_url_safe():
    seen = {new_token() for _ in range(100)}
    assert len(seen) == 100
    for tok in seen:
        assert len(tok) >= 32
        assert all(ch.isalnum() or ch in "-_" for ch in tok)


def test_same_secret_is_exact_and_refuses_empty():
    tok = new_token()
    assert same_secret(tok, tok)
    assert not same_secret(tok, tok[:-1])
    assert not same_secret(tok, tok + "x")
    assert not same_secret(None, tok)
    assert not same_secret("", "")


def test_tokens_are_compared_in_constant_time():
    # The comparison must be hmac.compare_digest, not ==, so timing leaks no prefix.
    import inspect

    assert "compare_digest" in inspect.getsource(tokens.same_secret)


def test_help_does_not_import_the_web_stack():
    code = (
        "import sys, contextlib, io\n"
        "from voicehost.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "import voicehost.companion\n"
        "heavy = ('starlette', 'uvicorn', 'websockets', 'segno', 'playwright')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
