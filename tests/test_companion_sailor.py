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

from test_companion_server import join
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
            token = join(comp, p.name, None)[1]["token"]
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

    assert result.scores == truth["outcome"]["scores"]
    rnd = result.match.rounds[0]
    word = rnd.word
    for p in result.match.players:
        private = [m["payload"] for m in received[p.name] if m["type"] == "private"]
        assert len(private) == len(result.match.rounds) == 1
        assert private[0]["round"] == 1
        if p == rnd.sailor:
            assert private[0]["role"] == "the Drunken Sailor"
            assert word.lower() not in json.dumps(received[p.name]).lower()
        else:
            assert private[0]["word"] == word and private[0]["line"] == rnd.lines[p]
            assert "Drunken" not in json.dumps(received[p.name])
    texts = announcer.texts
    assert ("Your roles are on your phones. Hide your screen, then hold the button to read "
            "yours.") in texts
    unmasked = next(i for i, t in enumerate(texts) if "is unmasked as the Drunken Sailor" in t)
    assert not any(word in t.lower() for t in texts[:unmasked])
    assert not any(line in t for t in texts for line in rnd.lines.values())
