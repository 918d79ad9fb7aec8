# cython: annotation_typing=False
"""Players in the seed's bot API (the arena's API), in plain Python.

A player object has `draft_pick(cards) -> index`, `draft_receive(card)`,
`main_play(cards, base) -> index` and `main_postprocess(card)`, with cards as the seed's
2-character strings ("R3"). A new object plays each match. These are the built-in bots of
the arena (bot/arena) and, through `bots.ArenaSeat`, of the Discord game.

- MinimalValid and Simple are the seed's two example bots, ported exactly.
- BasicOdds tracks every card it has seen and plays the card with the best odds of winning
  against the opponent's possible plays.
- Saver does the same but weighs a card's value for the later games against its chance now.

The file is written in Cython's pure-Python mode: the arena's build (setup.py) compiles it,
as it is, into a twin module whose classes are C types (players.pxd declares their methods
and attributes), and the compiled arena core calls those methods directly, not through
Python's call protocol. In Python the decorators do nothing. Two things follow from the
compiled form, and hold in both: no closures in the methods (a lambda inside a method that
the core calls directly does not compile), and the instance attributes are the declared ones.
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed only to build the compiled twin
    from games import cython_shim as cython

from games.rps_poker.codes import CARDS, INDEX
from games.rps_poker.rules import DRAFT_ROUNDS, WIN_VS

FULL = (1 << len(CARDS)) - 1
BIT = {c: 1 << i for i, c in enumerate(CARDS)}
# WIN_BY_CARD[card][base] is WIN_VS[base][card]: a card's wins against every base.
WIN_BY_CARD = tuple(tuple(WIN_VS[base][card] for base in range(len(CARDS)))
                    for card in range(len(CARDS)))


@cython.cclass
class Player:
    """The arena's bot API: the base of the built-in bots, so that the compiled core knows
    their methods' C entry points. A bot need not derive from it (any object with the four
    methods plays); a Python subclass's own methods are the ones called."""

    name = "Player"

    def draft_pick(self, cards: list[str]) -> int:
        raise NotImplementedError

    def draft_receive(self, card: str) -> None:
        pass

    def main_play(self, cards: list[str], base: str) -> int:
        raise NotImplementedError

    def main_postprocess(self, card: str) -> None:
        pass


@cython.cclass
class MinimalValid(Player):
    """The seed's MinimalValid: always the first card."""

    name = "MinimalValid"

    def draft_pick(self, cards: list[str]) -> int:
        return 0

    def draft_receive(self, card: str) -> None:
        pass

    def main_play(self, cards: list[str], base: str) -> int:
        return 0

    def main_postprocess(self, card: str) -> None:
        pass


@cython.cclass
class Simple(Player):
    """The seed's Simple: keeps the higher-numbered card, plays the first card of its hand."""

    name = "Simple"

    def __init__(self) -> None:
        self.my_deck: set[str] = set()

    def draft_pick(self, cards: list[str]) -> int:
        card_id = 1 if cards[0][1] < cards[1][1] else 0
        self.my_deck.add(cards[card_id])
        return card_id

    def draft_receive(self, card: str) -> None:
        self.my_deck.add(card)

    def main_play(self, cards: list[str], base: str) -> int:
        self.my_deck.discard(cards[0])
        return 0

    def main_postprocess(self, card: str) -> None:
        pass


@cython.cclass
class Tracker(Player):
    """Remembers every card seen and estimates where the unseen ones are.

    Opponent's unplayed cards: the ones we passed them (certain) and, for each card we
    have not seen anywhere, a share k/U of one card (k of their kept cards still unseen
    among U unseen cards: the rest of the unseen cards are undrawn base cards).
    """

    name = "Tracker"

    def __init__(self) -> None:
        self.mine = 0  # bit masks over card indices
        self.passed = 0
        self.bases = 0
        self.opp_played = 0

    def draft_pick(self, cards: list[str]) -> int:
        pick = self.choose_draft(cards)
        self.mine |= BIT[cards[pick]]
        self.passed |= BIT[cards[1 - pick]]
        return pick

    def choose_draft(self, cards: list[str]) -> int:
        """Keep the higher number (ties: the first card)."""
        return 1 if cards[1][1] > cards[0][1] else 0

    def draft_receive(self, card: str) -> None:
        self.mine |= BIT[card]

    def main_postprocess(self, card: str) -> None:
        self.opp_played |= BIT[card]

    def odds_parts(self) -> tuple[int, int, float, int]:
        """What every card's odds share, whatever the base: (known opponent cards, unknown
        cards, the share k/U of each unknown card, the opponent's cards in all)."""
        known = self.passed & ~self.opp_played
        unknown = FULL & ~(self.mine | self.passed | self.bases | self.opp_played)
        k = DRAFT_ROUNDS - (self.opp_played & ~self.passed).bit_count()
        u = unknown.bit_count()
        return known, unknown, k / u if u else 0.0, known.bit_count() + k

    def odds(self, cards: list[str], base: int) -> list[float]:
        """Each card's chance of winning the current game against the opponent's play."""
        known, unknown, share, total = self.odds_parts()
        row = WIN_VS[base]
        out = []
        for c in cards:
            wins = row[INDEX[c]]
            out.append(((wins & known).bit_count() + share * (wins & unknown).bit_count()) / total
                       if total else 1.0)
        return out


@cython.cclass
class BasicOdds(Tracker):
    """Plays the card with the best odds now (ties: the lowest number, to keep strength)."""

    name = "BasicOdds"

    def main_play(self, cards: list[str], base: str) -> int:
        b = INDEX[base]
        self.bases |= 1 << b
        odds = self.odds(cards, b)
        ranks = [(odds[i], -INDEX[c] % 10) for i, c in enumerate(cards)]
        return ranks.index(max(ranks))  # the first best, as max(range, key=...) gives it


@cython.cclass
class Saver(Tracker):
    """Plays the card that maximises its odds now minus `keep` times its value later.

    A card's value later is its average odds against the opponent's possible plays over the
    base cards still possible; the last game (nothing left to save for) is pure odds.
    """

    name = "Saver"
    keep = 0.5

    def main_play(self, cards: list[str], base: str) -> int:
        b = INDEX[base]
        self.bases |= 1 << b
        odds = self.odds(cards, b)
        if len(cards) == 1:
            return 0
        future_bases = [i for i in range(len(CARDS))
                        if not (self.mine | self.passed | self.bases | self.opp_played) >> i & 1]
        later = [0.0] * len(cards)
        if future_bases:
            # `odds(cards, fb)` for every future base, with what does not depend on the base
            # computed once: the same expression per card and base, summed per card in the
            # same order of bases, so the same floats as calling `odds` once per base.
            known, unknown, share, total = self.odds_parts()
            n = len(future_bases)
            if total:
                for i, c in enumerate(cards):
                    column = WIN_BY_CARD[INDEX[c]]
                    acc = 0.0
                    for fb in future_bases:
                        wins = column[fb]
                        acc += ((wins & known).bit_count()
                                + share * (wins & unknown).bit_count()) / total
                    later[i] = acc / n
            else:
                later = [float(n) / n] * len(cards)
        keep = self.keep
        values = [odds[i] - keep * later[i] for i in range(len(cards))]
        return values.index(max(values))  # the first best, as max(range, key=...) gives it


PLAYERS: dict[str, type] = {
    "saver": Saver,
    "basic-odds": BasicOdds,
    "simple": Simple,
    "minimal-valid": MinimalValid,
}
