"""Drakkar Tum Tum rules: the game state and what a play does to it.

Like python-chess, the rules know nothing of sound or speech: the host tells
them who played which card on which section and whether it fell on the beat,
and gets back a new state and the events to announce. States are values:
:func:`play` and :func:`discard` never change the state they are given, and
a refused play raises :class:`IllegalPlay` with a sentence a person
understands.

Rules where design.md section 1 is silent, as decided here
-----------------------------------------------------------
* Tums = 3 minus the central sections whose top card is a danger; three
  dangers lose the game.
* A lookout may be played on any section (the ship is cleared at once); it
  needs all three top cards in one clan colour (grey sections, dangers and
  whirlpools have none), or in the percussionist's colour in that variant.
  A lookout played off the beat or out of turn is still a lookout.
* Mistakes: a play by anyone but the active player is *out of turn*
  (whatever its timing: one mistake, not two); an
  ``off_beat`` play by the active player is *out of rhythm*. The card stays
  (an illegal card is refused like any illegal play), the player draws
  nothing, and play goes on with the player after the one who erred, in the
  current direction (after the card's own effect, so an out-of-turn
  whirlpool reverses first).
* Whirlpool card: reverses the direction; with two players the one who
  played it plays again (also after a mistake: the card's effect stands).
* Winter Island: from its reveal on, every ship clearing (including the one
  that revealed it) puts the *warriors* (not crossbows) from the cleared
  cards back on top of the deck, not shuffled: section 1 to 3, each stack
  bottom to top, the first of them ending on top of the deck.
* Inhospitable Island: the hand limit becomes the island's ``hand_limit``
  (2). A player draws only while below the limit (one card per play, never
  "up to" it). Players above the limit must :func:`discard` the extra before
  anyone plays again; :func:`default_discards` drops the most recently
  received cards when nobody says which.
* Order of checks after a play: third island found (won) > three dangers
  (lost, nobody draws) > the draw > an empty hand (lost) > an empty voyage
  deck with fewer than three islands found (lost). The deck rule is the
  design's state rule: the game is lost as soon as the deck is empty after
  the draw, not one play later.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .cards import Card, Clan, Kind
from .config import DrakkarConfig, load_config
from .deck import build_voyage_deck, deal, pick_islands
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
    _name,
)
from .islands import INHOSPITABLE, WHIRLPOOL, WINTER, Island
from .ship import SECTIONS, Song, cover_refusal, lookout_refusal, section_name, song_of, top

ON_BEAT = "on_beat"
OFF_BEAT = "off_beat"
TIMINGS = (ON_BEAT, OFF_BEAT)

PLAYING = "playing"
WON = "won"
LOST = "lost"

#: Finding this many islands wins the voyage.
ISLANDS_TO_WIN = 3


class IllegalPlay(Exception):
    """A play (or discard) the rules refuse; ``reason`` is a spoken sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse_variant(variant: str | None) -> Clan | None:
    """``None`` or ``"percussionist:red"``/``"percussionist:yellow"`` -> colour."""
    if variant is None:
        return None
    name, _, colour = str(variant).partition(":")
    if name != "percussionist" or colour not in (c.value for c in Clan):
        raise ValueError(
            f"Unknown variant {variant!r}: use null, \"percussionist:red\" "
            "or \"percussionist:yellow\"."
        )
    return Clan(colour)


@dataclass(frozen=True)
class Setup:
    """The fixed start of a game, exactly what a record stores.

    ``deck`` is the whole voyage deck, top first, before dealing.
    """

    players: tuple[str, ...]
    deck: tuple[Card, ...]
    islands: tuple[Island, ...]
    variant: str | None = None


@dataclass
class DrakkarState:
    """Everything the rules need to judge the next play.

    Treat it as a value: the functions of this module return new states.
    Lists are top first for the deck, bottom first for each ship section,
    and in the order cards were received for hands.
    """

    players: tuple[str, ...]
    hands: dict[str, list[Card]]
    deck: list[Card]
    ship: list[list[Card]]
    discard_pile: list[Card]
    islands_hidden: list[Island]
    islands_found: list[Island]
    setup: Setup
    hand_limit: int
    direction: int = 1
    active: int = 0
    reversed: bool = False
    percussionist: Clan | None = None
    pending_discards: dict[str, int] = field(default_factory=dict)
    result: str = PLAYING
    reason: str | None = None

    @property
    def turn(self) -> str:
        """The player whose turn it is (or would be, once the game is over)."""
        return self.players[self.active]

    @property
    def is_over(self) -> bool:
        return self.result != PLAYING

    @property
    def song(self) -> Song:
        return song_of(self.ship, self.reversed)

    @property
    def winter(self) -> bool:
        return any(island.ability == WINTER for island in self.islands_found)

    def tops(self) -> list[Card | None]:
        return [top(stack) for stack in self.ship]

    def copy(self) -> "DrakkarState":
        # Cards, islands and the setup are immutable; only containers are copied.
        new = copy.copy(self)
        new.hands = {p: list(h) for p, h in self.hands.items()}
        new.deck = list(self.deck)
        new.ship = [list(stack) for stack in self.ship]
        new.discard_pile = list(self.discard_pile)
        new.islands_hidden = list(self.islands_hidden)
        new.islands_found = list(self.islands_found)
        new.pending_discards = dict(self.pending_discards)
        return new

    def all_cards(self) -> list[Card]:
        """Every card in play anywhere: hands, deck, ship and discard pile."""
        cards = [card for hand in self.hands.values() for card in hand]
        cards += self.deck + self.discard_pile
        return cards + [card for stack in self.ship for card in stack]


def song(state: DrakkarState) -> Song:
    """The song the table sings now (see :class:`~.ship.Song`)."""
    return state.song


def next_song(state: DrakkarState) -> Song | None:
    """The song a listener should expect from now on, or None once the game is over.

    Nothing is sung after the end, and a ship of three dangers (a bar with no
    Tum) has already ended it: a listener told None keeps what it had.
    """
    if state.is_over or state.song.tums < 1:
        return None
    return state.song


def _check_players(players: Sequence[str], config: DrakkarConfig) -> tuple[str, ...]:
    players = tuple(players)
    if any(not isinstance(p, str) or not p.strip() for p in players):
        raise ValueError("Every player needs a name (non-empty text).")
    if len(set(players)) != len(players):
        raise ValueError("Two players have the same name; give each a different one.")
    if not config.min_players <= len(players) <= config.max_players:
        raise ValueError(
            f"Drakkar Tum Tum needs {config.min_players} to {config.max_players} "
            f"players, not {len(players)}."
        )
    return players


def from_setup(
    players: Sequence[str],
    deck: Iterable[Card | str],
    islands: Iterable[Island | str],
    variant: str | None = None,
    config: DrakkarConfig | None = None,
) -> DrakkarState:
    """The state after a fixed setup: deal ``deck`` (top first) to ``players``.

    Cards and islands may be given by record name. ``players[0]`` starts and
    receives the first card. Raises ValueError with a clear sentence when
    the setup cannot be played.
    """
    config = config or load_config()
    players = _check_players(players, config)
    cards = tuple(card if isinstance(card, Card) else Card.parse(card) for card in deck)
    chosen = []
    for island in islands:
        if not isinstance(island, Island):
            try:
                island = config.island(island)
            except (KeyError, TypeError):
                raise ValueError(
                    f"Unknown island {island!r}: known islands are "
                    f"{', '.join(config.island_names)}."
                ) from None
        chosen.append(island)
    if len(chosen) != ISLANDS_TO_WIN:
        raise ValueError(f"A voyage has {ISLANDS_TO_WIN} islands face down, not {len(chosen)}.")
    colour = parse_variant(variant)
    per_player = config.deal_size(len(players))
    hands, rest = deal(cards, players, per_player)
    state = DrakkarState(
        players=players,
        hands=hands,
        deck=rest,
        ship=[[] for _ in SECTIONS],
        discard_pile=[],
        islands_hidden=chosen,
        islands_found=[],
        setup=Setup(players, cards, tuple(chosen), variant),
        hand_limit=per_player,
        percussionist=colour,
    )
    if not state.deck:
        state.result, state.reason = LOST, _deck_empty_reason(state)
    return state


def new_game(
    players: Sequence[str],
    rng: random.Random,
    variant: str | None = None,
    config: DrakkarConfig | None = None,
) -> DrakkarState:
    """Shuffle and build the voyage deck, pick three islands, and deal.

    ``players[0]`` starts: the host asks the table (or picks at random) and
    orders the players from there, clockwise.
    """
    config = config or load_config()
    _check_players(players, config)
    parse_variant(variant)
    deck = build_voyage_deck(config, rng)
    islands = pick_islands(config, rng, ISLANDS_TO_WIN)
    return from_setup(players, deck, islands, variant, config)


def _deck_empty_reason(state: DrakkarState) -> str:
    found = len(state.islands_found)
    return (
        f"The voyage deck is empty and only {found} of {ISLANDS_TO_WIN} islands were found."
    )


def _a(card: Card) -> str:
    return f"a {card.spoken}"


def _common_refusal(state: DrakkarState, player: str) -> str | None:
    if state.is_over:
        return f"The game is over. {state.reason}"
    if player not in state.hands:
        return f"Nobody called {player} is at the table."
    return None


def _pending_refusal(state: DrakkarState) -> str | None:
    for name in state.players:
        n = state.pending_discards.get(name, 0)
        if n:
            what = "1 card" if n == 1 else f"{n} cards"
            return (
                f"First {_name(name)} must discard {what}: "
                f"the hand limit is {state.hand_limit}."
            )
    return None


def placement_refusal(state: DrakkarState, card: Card, slot: int) -> str | None:
    """Why ``card`` may not go on section ``slot`` now, whoever holds it."""
    if isinstance(slot, bool) or slot not in SECTIONS:
        return f"There is no section {slot}: the ship has sections 1, 2 and 3."
    if card.kind is Kind.LOOKOUT:
        return lookout_refusal(state.tops(), state.percussionist)
    return cover_refusal(card, top(state.ship[slot - 1]))


def _as_card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else Card.parse(card)


def legal_slots(state: DrakkarState, card: Card | str) -> list[int]:
    """Sections where ``card`` may be played now (empty once the game is over)."""
    card = _as_card(card)
    if state.is_over:
        return []
    return [slot for slot in SECTIONS if placement_refusal(state, card, slot) is None]


def legal_plays(state: DrakkarState, player: str) -> list[tuple[Card, int]]:
    """Every (card, section) ``player`` could legally play now, without duplicates.

    Empty when the game is over, discards are owed, or the hand holds only
    cards that fit nowhere (e.g. a lone lookout on a mixed ship): the design
    says nothing about a player who cannot play; the host decides.
    """
    if _common_refusal(state, player) or _pending_refusal(state):
        return []
    cards = list(dict.fromkeys(state.hands[player]))
    return [(card, slot) for card in cards for slot in legal_slots(state, card)]


def check_play(state: DrakkarState, player: str, card: Card | str, slot: int) -> str | None:
    """The reason the rules refuse this play, or None if they accept it.

    Timing never makes a play illegal: an off-beat or out-of-turn card is a
    mistake, judged by :func:`play`, but it stays if its placement is legal.
    """
    card = _as_card(card)
    reason = _common_refusal(state, player) or _pending_refusal(state)
    if reason:
        return reason
    if isinstance(slot, bool) or slot not in SECTIONS:
        return f"There is no section {slot}: the ship has sections 1, 2 and 3."
    if card not in state.hands[player]:
        return f"{_name(player)} does not hold {_a(card)}."
    return placement_refusal(state, card, slot)


def play(
    state: DrakkarState, player: str, card: Card | str, slot: int, timing: str = ON_BEAT
) -> tuple[DrakkarState, list[Event]]:
    """Play ``card`` from ``player``'s hand onto section ``slot`` (1 to 3).

    Parameters
    ----------
    timing : {"on_beat", "off_beat"}
        The judge's verdict on the play's rhythm.

    Returns
    -------
    (DrakkarState, list of Event)
        The new state and what happened, in the order the host says it.

    Raises
    ------
    IllegalPlay
        If the rules refuse the play; ``state`` is untouched either way.
    """
    if timing not in TIMINGS:
        raise ValueError(f"timing must be 'on_beat' or 'off_beat', not {timing!r}")
    card = _as_card(card)
    reason = check_play(state, player, card, slot)
    if reason:
        raise IllegalPlay(reason)

    s = state.copy()
    events: list[Event] = []
    song_before = s.song
    seat = s.players.index(player)
    mistake = OUT_OF_TURN if seat != s.active else OUT_OF_RHYTHM if timing == OFF_BEAT else None

    s.hands[player].remove(card)
    s.ship[slot - 1].append(card)
    events.append(CardPlayed(player, str(card), slot, card.spoken))
    if mistake:
        events.append(Mistake(player, mistake))

    extra_turn = False
    if card.kind is Kind.WHIRLPOOL:
        s.direction = -s.direction
        if len(s.players) == 2:
            extra_turn = True
        else:
            events.append(TurnReversed(s.direction))
    elif card.kind is Kind.LOOKOUT:
        _land_ho(s, events)

    if not s.is_over and all(c is not None and c.is_danger for c in s.tops()):
        s.result, s.reason = LOST, "All three sections of the ship are dangers."
    if not s.is_over:
        hand = s.hands[player]
        if mistake:
            events.append(NoDraw(player, "mistake"))
        elif len(hand) >= s.hand_limit:
            events.append(NoDraw(player, "hand_limit"))
        elif s.deck:
            hand.append(s.deck.pop(0))
            events.append(CardDrawn(player))
        for name in s.players:
            extra = len(s.hands[name]) - s.hand_limit
            if extra > 0 and extra != s.pending_discards.get(name, 0):
                s.pending_discards[name] = extra
                events.append(DiscardRequired(name, extra))
        empty = [name for name in s.players if not s.hands[name]]
        if empty:
            s.result, s.reason = LOST, f"{_name(empty[0])} has no cards left."
        elif not s.deck:
            s.result, s.reason = LOST, _deck_empty_reason(s)

    if s.is_over:
        s.pending_discards.clear()
        if s.result == WON:
            events.append(GameWon(len(s.islands_found)))
        else:
            events.append(GameLost(s.reason or ""))
        return s, events

    new_song = s.song
    if new_song != song_before:
        events.append(SongChanged(new_song.tums, new_song.reversed, new_song.text))
    if extra_turn:
        s.active = seat
        events.append(ExtraTurn(player))
    else:
        s.active = (seat + s.direction) % len(s.players)
    events.append(NextPlayer(s.turn))
    return s, events


def _land_ho(s: DrakkarState, events: list[Event]) -> None:
    """A lookout: reveal and apply the next island, then clear the ship."""
    island = s.islands_hidden.pop(0)
    s.islands_found.append(island)
    events.append(
        IslandRevealed(
            island.name, island.title, island.ability, len(s.islands_found), island.describe()
        )
    )
    if island.ability == WHIRLPOOL:
        s.reversed = True
    elif island.ability == INHOSPITABLE and island.hand_limit is not None:
        if island.hand_limit < s.hand_limit:
            s.hand_limit = island.hand_limit
            events.append(HandLimitChanged(s.hand_limit))

    cleared = [card for stack in s.ship for card in stack]
    s.ship = [[] for _ in SECTIONS]
    if s.winter:
        warriors = [card for card in cleared if card.kind is Kind.WARRIOR]
        s.deck[:0] = warriors
        s.discard_pile.extend(card for card in cleared if card.kind is not Kind.WARRIOR)
        events.append(ShipCleared(len(cleared)))
        if warriors:
            events.append(WarriorsReturned(len(warriors)))
    else:
        s.discard_pile.extend(cleared)
        events.append(ShipCleared(len(cleared)))

    if s.percussionist is not None:
        s.percussionist = s.percussionist.other()
        events.append(PercussionistFlipped(s.percussionist.value))
    if len(s.islands_found) >= ISLANDS_TO_WIN:
        s.result, s.reason = WON, "The crew found the third island."


def discard(state: DrakkarState, player: str, card: Card | str) -> tuple[DrakkarState, list[Event]]:
    """``player`` discards ``card`` of their choice to meet the hand limit.

    Raises
    ------
    IllegalPlay
        If the player owes no discard or does not hold the card.
    """
    card = _as_card(card)
    reason = _common_refusal(state, player)
    if reason:
        raise IllegalPlay(reason)
    if not state.pending_discards.get(player):
        raise IllegalPlay(f"{_name(player)} has nothing to discard.")
    if card not in state.hands[player]:
        raise IllegalPlay(f"{_name(player)} does not hold {_a(card)}.")
    s = state.copy()
    s.hands[player].remove(card)
    s.discard_pile.append(card)
    s.pending_discards[player] -= 1
    if not s.pending_discards[player]:
        del s.pending_discards[player]
    return s, [Discarded(player, str(card))]


def default_discards(state: DrakkarState) -> tuple[DrakkarState, list[Event]]:
    """Settle every owed discard with the most recently received cards.

    The documented default when nobody says which cards go (e.g. a record
    without discard events): in seat order, each player drops the last
    cards they received.
    """
    events: list[Event] = []
    for name in state.players:
        while state.pending_discards.get(name):
            state, more = discard(state, name, state.hands[name][-1])
            events += more
    return state, events


def state_to_dict(state: DrakkarState) -> dict:
    """The whole state as plain JSON data (private hands and the deck included)."""
    return {
        "players": list(state.players),
        "hands": {p: [str(c) for c in state.hands[p]] for p in state.players},
        "deck": [str(c) for c in state.deck],
        "ship": [[str(c) for c in stack] for stack in state.ship],
        "sections": [section_name(stack) for stack in state.ship],
        "discard": [str(c) for c in state.discard_pile],
        "islands_found": [i.name for i in state.islands_found],
        "islands_hidden": [i.name for i in state.islands_hidden],
        "direction": state.direction,
        "active": state.turn,
        "hand_limit": state.hand_limit,
        "reversed": state.reversed,
        "percussionist": state.percussionist.value if state.percussionist else None,
        "pending_discards": {p: n for p, n in state.pending_discards.items() if n},
        "song": state.song.text,
        "tums": state.song.tums,
        "result": state.result,
        "reason": state.reason,
    }
