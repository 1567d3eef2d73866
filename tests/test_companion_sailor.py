"""A recorded Sunken Sailor match hosted by voice, with the roles dealt to phones.

The Sunken Sailor host (real ears, real recogniser, the bundled private-cards
recording) delivers each round's roles through its ``deliver`` hook to the
companion; three phones (websocket clients speaking the pages' protocol) each
get their own role and nothing else, and the voice never says a secret.
"""

import contextlib
import io
import json
from pathlib import Path

from test_companion_server import seated
from websockets.sync.client import connect

from voicehost.companion import Companion
from voicehost.companion.sailor_phones import deal_to_phones

GAMES = Path(__file__).resolve().parents[1] / "audio_fixtures" / "games"


def everything_received(ws) -> list[dict]:
    got = []
    while True:
        try:
            got.append(json.loads(ws.recv(timeout=0.3)))
        except TimeoutError:
            return got


def test_a_recorded_match_with_roles_on_phones_and_everything_else_by_voice():
    from voicehost.audio.sources import FileSource
    from voicehost.hosts.announce import Announcer
    from voicehost.hosts.sailor import SailorHost, open_ears, recorded_match

    wav, settings, truth = recorded_match(GAMES / "sailor_private.truth.json")
    ears = open_ears(FileSource(wav), settings.backend)
    announcer = Announcer(quiet=True, stream=io.StringIO())
    comp = Companion("sailor", players={p.name: p.colour for p in settings.players},
                     clock=lambda: ears.clock)
    comp.start(bind="127.0.0.1")
    with contextlib.ExitStack() as stack:
        stack.callback(comp.stop)
        phones = {}
        for p in settings.players:
            token = seated(comp, p.name, None)
            ws = stack.enter_context(connect(comp.url.replace("http://", "ws://") + "/ws"))
            ws.send(json.dumps({"type": "hello", "token": token}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            phones[p.name] = ws

        def deliver(roles, word):
            deal_to_phones(comp, roles, word, lambda text: host.say(text, "deal"),
                           host.round.number)

        host = SailorHost(settings, announcer, ears, deliver=deliver)
        result = host.run()
        received = {name: everything_received(ws) for name, ws in phones.items()}

    # What the recogniser made of the answers is the host's business (its own tests);
    # here: every round dealt reached each phone, and only its own player's.
    assert result.match.rounds
    rounds = result.match.rounds
    for p in result.match.players:
        private = [m["payload"] for m in received[p.name] if m["type"] == "private"]
        assert [m["round"] for m in private] == list(range(1, len(rounds) + 1))
        for rnd, secret in zip(rounds, private):
            if p == rnd.sailor:
                assert secret["role"] == "the Drunken Sailor"
                assert secret["word"] is None and secret["line"] is None
            else:
                assert secret["word"] == rnd.word and secret["line"] == rnd.lines[p]
        drunk_rounds = [r for r in rounds if r.sailor == p]
        for rnd in drunk_rounds:  # the Drunken Sailor's phone never held that round's word
            assert rnd.word.lower() not in json.dumps(private[rnd.number - 1]).lower()
    texts = announcer.texts
    assert ("Your roles are on your phones. Hide your screen, then hold the button to read "
            "yours.") in texts
    # The voice never says a story line, nor a word before the accusations begin.
    assert not any(line in t for t in texts for r in rounds for line in r.lines.values())
    first_vote = next((i for i, t in enumerate(texts) if "who do you accuse?" in t), len(texts))
    assert not any(r.word.lower() in t.lower() for t in texts[:first_vote] for r in rounds[:1])
