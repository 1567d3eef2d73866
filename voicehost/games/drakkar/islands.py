"""Island cards and their abilities.

Only three abilities are known (design.md section 1); an island without one
is "calm". Which islands exist, and how many of each, comes from the data
file, so a group can match its printed deck; the abilities themselves are
code, because each changes a rule.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bow and stern swap: the song becomes "Tum Tum Tum Drakkar".
WHIRLPOOL = "whirlpool"
#: Warriors among the cards cleared from the ship go back on top of the deck.
WINTER = "winter"
#: The hand limit drops (to two by default); larger hands discard the extra.
INHOSPITABLE = "inhospitable"

ABILITIES: tuple[str, ...] = (WHIRLPOOL, WINTER, INHOSPITABLE)

_SAY = {
    WHIRLPOOL: "bow and stern swap: from now on the song ends on Drakkar",
    WINTER: "from now on, warriors cleared from the ship go back on top of the voyage deck",
    INHOSPITABLE: "the hand limit drops to {limit}",
    None: "no special ability",
}


@dataclass(frozen=True)
class Island:
    """One island card.

    Parameters
    ----------
    name : str
        The record name (``"winter"``, ``"calm"`` ...).
    title : str
        What the host calls it aloud ("Winter Island").
    ability : str or None
        One of :data:`ABILITIES`, or None for an island without one.
    hand_limit : int or None
        For an inhospitable island, the new hand limit.
    """

    name: str
    title: str
    ability: str | None = None
    hand_limit: int | None = None

    def __post_init__(self) -> None:
        if self.ability is not None and self.ability not in ABILITIES:
            raise ValueError(
                f"Island {self.name!r} has unknown ability {self.ability!r}: "
                f"known abilities are {', '.join(ABILITIES)} (or null for none)."
            )
        if self.ability == INHOSPITABLE and (
            not isinstance(self.hand_limit, int) or self.hand_limit < 1
        ):
            raise ValueError(
                f"Island {self.name!r} is inhospitable and needs a hand_limit of at least 1."
            )

    def describe(self) -> str:
        """One short sentence for the host to say when it is revealed."""
        return _SAY[self.ability].format(limit=self.hand_limit)
