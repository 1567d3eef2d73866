"""Building the voyage deck and dealing, as the rulebook says.

Lists are top first: ``deck[0]`` is the next card drawn. All randomness
comes from the ``random.Random`` passed in, so a seed replays a setup.
"""

from __future__ import annotations

import random
from typing import Sequence

from .cards import Card, Kind
from .config import DrakkarConfig
from .islands import Island

LOOKOUT = Card(Kind.LOOKOUT)


def split_piles(cards: Sequence[Card], n: int) -> list[list[Card]]:
    """Split into ``n`` piles as even as possible, the first piles one larger."""
    size, extra = divmod(len(cards), n)
    piles, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        piles.append(list(cards[start:end]))
        start = end
    return piles


def build_voyage_deck(config: DrakkarConfig, rng: random.Random) -> list[Card]:
    """Shuffle the deck, split it into ``lookouts + 1`` piles, shuffle one
    lookout into each pile but the last, and stack those on top of the last.

    This keeps every lookout out of the bottom part of the deck, so the crew
    always has a chance to find all islands before the deck runs out.
    """
    cards = [card for card, count in config.deck for _ in range(count)]
    rng.shuffle(cards)
    piles = split_piles(cards, config.lookouts + 1)
    deck: list[Card] = []
    for pile in piles[:-1]:
        pile.append(LOOKOUT)
        rng.shuffle(pile)
        deck.extend(pile)
    deck.extend(piles[-1])
    return deck


def pick_islands(config: DrakkarConfig, rng: random.Random, n: int = 3) -> list[Island]:
    """Draw ``n`` island cards face down (copies of "calm" may repeat)."""
    return rng.sample(list(config.islands), n)


def deal(
    deck: Sequence[Card], players: Sequence[str], per_player: int
) -> tuple[dict[str, list[Card]], list[Card]]:
    """Deal one card at a time round-robin from ``players[0]``.

    Returns the hands (in the order each card was received) and the rest of
    the deck. Raises ValueError if the deck is too short.
    """
    needed = per_player * len(players)
    if len(deck) < needed:
        raise ValueError(
            f"The deck has {len(deck)} cards, too few to deal {per_player} "
            f"to each of {len(players)} players."
        )
    hands: dict[str, list[Card]] = {p: [] for p in players}
    for i in range(needed):
        hands[players[i % len(players)]].append(deck[i])
    return hands, list(deck[needed:])
