"""Drakkar Tum Tum rules engine: pure, seeded, and silent.

Typical use::

    import random
    from voicehost.games import drakkar

    state = drakkar.new_game(["ann", "bo", "cy"], random.Random(7))
    card = state.hands["ann"][0]
    if drakkar.legal_slots(state, card):
        state, events = drakkar.play(state, "ann", card, drakkar.legal_slots(state, card)[0])
        for event in events:
            print(event.say())

The rules decided where design.md is silent are listed in
:mod:`voicehost.games.drakkar.rules`.
"""

from .cards import CARD_NAMES, Card, Clan, Kind
from .config import DrakkarConfig, DrakkarConfigError, load_config
from .events import (
    OUT_OF_RHYTHM,
    OUT_OF_TURN,
    CardDrawn,
    CardPlayed,
    DiscardRequired,
    Discarded,
    Event,
    ExtraTurn,
    GameLost,
    GameWon,
    HandLimitChanged,
    IslandRevealed,
    Mistake,
    NextPlayer,
    NoDraw,
    PercussionistFlipped,
    ShipCleared,
    SongChanged,
    TurnReversed,
    WarriorsReturned,
    singing_stops,
)
from .islands import Island
from .record import (
    Replay,
    check_record,
    discard_event,
    play_event,
    replay,
    replay_output,
    replay_steps,
    replay_record,
    setup_record,
)
from .rules import (
    ISLANDS_TO_WIN,
    LOST,
    OFF_BEAT,
    ON_BEAT,
    PLAYING,
    WON,
    DrakkarState,
    IllegalPlay,
    Setup,
    check_play,
    default_discards,
    discard,
    from_setup,
    legal_plays,
    legal_slots,
    new_game,
    next_song,
    play,
    song,
    state_to_dict,
)
from .ship import GREY, Song

__all__ = [
    "CARD_NAMES", "Card", "Clan", "Kind",
    "DrakkarConfig", "DrakkarConfigError", "load_config",
    "Event", "CardPlayed", "Mistake", "CardDrawn", "NoDraw", "TurnReversed", "ExtraTurn",
    "IslandRevealed", "ShipCleared", "WarriorsReturned", "HandLimitChanged",
    "DiscardRequired", "Discarded", "PercussionistFlipped", "SongChanged", "GameWon",
    "GameLost", "NextPlayer", "OUT_OF_RHYTHM", "OUT_OF_TURN", "singing_stops",
    "Island",
    "Replay", "check_record", "replay", "replay_output", "replay_record", "replay_steps",
    "setup_record",
    "play_event", "discard_event",
    "ISLANDS_TO_WIN", "LOST", "WON", "PLAYING", "ON_BEAT", "OFF_BEAT",
    "DrakkarState", "IllegalPlay", "Setup", "check_play", "default_discards", "discard",
    "from_setup", "legal_plays", "legal_slots", "new_game", "next_song", "play", "song", "state_to_dict",
    "GREY", "Song",
]
