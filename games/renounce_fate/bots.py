"""Built-in players: uniformly random legal play, and a heuristic player ("fate-reader").

Both decide from the seat's view only (`RenounceFateView`). The heuristic player estimates its
chance of winning the showdown over every hand the opponent can hold (two different cards
among the nine it cannot see: the opponent's hand and the seven unused cards):
- with the community cards known, exactly (win, plus a quarter for a tie);
- while renouncing, by looking ahead over every pair of picks to the end of renouncing: its
  own picks chosen to maximise the chance, the opponent's taken as uniformly random;
- it renounces the fate card with the best such chance, and bets by it: big raises with a
  strong hand, small raises with a fair one, calls when the pot pays for the risk, folds
  otherwise.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from pydantic import BaseModel

from games.core import poker
from games.core.contract import BotFactory, Command, Prompt
from games.renounce_fate import rules
from games.renounce_fate.cards import DECK, number, suit
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.random_play import random_from_view
from games.renounce_fate.settings import RenounceFateSettings
from games.renounce_fate.views import RenounceFateView


class RandomBot:
    """Uniformly random legal play."""

    name = "random"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, RenounceFateView)
        return random_from_view(view, prompt, rng)


@lru_cache(maxsize=200_000)
def _rank(cards: tuple[str, ...], order: tuple[str, ...], tiebreak: str) -> poker.HandRank:
    return poker.rank_hand(cards, order, number=number, suit=suit, wrap=False,
                           tiebreak=tiebreak, low=1, high=5)  # type: ignore[arg-type]  # (settings.tiebreak: one of poker's)


def best_rank(hand: Sequence[str], community: Sequence[str],
              settings: RenounceFateSettings) -> poker.HandRank:
    order = settings.ranking(rules.hand_size(len(community)))
    return _best_rank(tuple(sorted(hand)), tuple(sorted(community)), order, settings.tiebreak)


@lru_cache(maxsize=200_000)
def _best_rank(hand: tuple[str, ...], community: tuple[str, ...], order: tuple[str, ...],
               tiebreak: str) -> poker.HandRank:
    return max(_rank(tuple(sorted(option)), order, tiebreak)
               for option in rules.hand_options(hand, community))


def opponent_hands(unseen: Sequence[str]) -> list[tuple[str, str]]:
    """Every hand the opponent may hold, once per pair of physical cards (so equally likely)."""
    return [(a, b) for a, b in combinations(unseen, 2) if a != b]


class Estimator:
    """Win chances of one hand against the unseen cards, memoised for one round's deal.

    The look-ahead over renouncing runs on 9-bit masks: bit 3*i + j is card j of set i still
    in play, so a pick is one bit and both outcomes of a step are two bit operations.
    """

    def __init__(self, hand: Sequence[str], dealt: Sequence[Sequence[str]],
                 settings: RenounceFateSettings) -> None:
        fate = [c for s in dealt for c in s]
        unseen = Counter(DECK) - Counter(hand) - Counter(fate)
        self.hand = tuple(hand)
        self.cards = fate  # by bit position
        self.opponents = opponent_hands(sorted(unseen.elements()))
        self.settings = settings
        self._equity: dict[tuple[str, ...], float] = {}
        self._value: dict[int, float] = {}

    def equity(self, community: Sequence[str]) -> float:
        key = tuple(sorted(community))
        if key not in self._equity:
            mine = best_rank(self.hand, key, self.settings)
            score = 0.0
            for opp in self.opponents:
                theirs = best_rank(opp, key, self.settings)
                score += 1.0 if mine > theirs else 0.25 if mine == theirs else 0.0
            self._equity[key] = score / len(self.opponents)
        return self._equity[key]

    def mask(self, remaining: Sequence[Sequence[str]]) -> int:
        out = 0
        for i, cards in enumerate(remaining):
            for j in range(3):
                if self.cards[3 * i + j] in cards:
                    out |= 1 << (3 * i + j)
        return out

    def value(self, mask: int) -> float:
        """The chance once renouncing ends (best own picks, the opponent's random)."""
        found = self._value.get(mask)
        if found is None:
            picks = _legal_bits(mask)
            if not picks:
                found = self.equity([self.cards[b] for b in range(9) if mask >> b & 1])
            else:
                found = max(self._pick_value(mask, bit, picks) for bit in picks)
            self._value[mask] = found
        return found

    def _pick_value(self, mask: int, mine: int, picks: Sequence[int]) -> float:
        total = 0.0
        for theirs in picks:
            if mine == theirs:  # locked: the rest of its set is discarded
                after = (mask & ~(7 << (mine // 3 * 3))) | (1 << mine)
            else:
                after = mask & ~(1 << mine) & ~(1 << theirs)
            total += self.value(after)
        return total / len(picks)

    def pick_values(self, remaining: Sequence[Sequence[str]]) -> dict[tuple[int, str], float]:
        """For each legal pick (set number, card): the chance, the opponent's pick random."""
        mask = self.mask(remaining)
        picks = _legal_bits(mask)
        return {(bit // 3 + 1, self.cards[bit]): self._pick_value(mask, bit, picks)
                for bit in picks}


def _legal_bits(mask: int) -> list[int]:
    """Bits of cards in sets that still hold more than one card."""
    out: list[int] = []
    for i in range(3):
        group = mask >> (3 * i) & 7
        if group & (group - 1):  # two or more bits
            out.extend(3 * i + j for j in range(3) if group >> j & 1)
    return out


class HeuristicBot:
    """Bets and renounces by its estimated chance of winning the showdown."""

    name = "fate-reader"

    def __init__(self, settings: RenounceFateSettings | None = None) -> None:
        self.settings = settings or RenounceFateSettings()
        self._key: tuple[object, ...] | None = None
        self._est: Estimator | None = None

    def estimator(self, view: RenounceFateView) -> Estimator:
        hand = tuple(view.my_hand or ())
        dealt = tuple(tuple(s.dealt) for s in view.sets)
        key = (view.round, hand, dealt)
        if self._key != key or self._est is None:
            self._key, self._est = key, Estimator(hand, dealt, self.settings)
        return self._est

    def strength(self, view: RenounceFateView) -> float:
        est = self.estimator(view)
        if view.community is not None:
            return est.equity(view.community)
        return est.value(est.mask([s.remaining for s in view.sets]))

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, RenounceFateView)
        if prompt.kind == "choose_starter":
            return ChooseStarter(starter=view.seat if view.seat is not None else 0)
        if prompt.kind == "renounce":
            values = self.estimator(view).pick_values([s.remaining for s in view.sets])
            best = max(values.values())
            top = [pick for pick, v in values.items() if v >= best - 1e-9]
            set_no, card = rng.choice(top)
            return Renounce(set_no=set_no, card=card)
        if prompt.kind == "bet":
            return self.bet(view, self.strength(view))
        return random_from_view(view, prompt, rng)

    @staticmethod
    def bet(view: RenounceFateView, chance: float) -> Command:
        b = view.bet
        assert b is not None
        can_raise = b.min_raise is not None and b.max_raise is not None
        if can_raise and chance >= 0.62:
            assert b.min_raise is not None and b.max_raise is not None
            want = b.max_raise if chance >= 0.8 else 4 if chance >= 0.7 else 2
            return Bet(action="raise", amount=max(b.min_raise, min(want, b.max_raise)))
        if b.can_call:
            # Call when the pot pays for the risk (a call for 0 always).
            pot_after = view.pot + b.to_call
            if b.to_call == 0 or chance * pot_after >= b.to_call:
                return Bet(action="call")
            return Bet(action="fold")
        if can_raise and chance >= 0.3:
            assert b.min_raise is not None
            return Bet(action="raise", amount=b.min_raise)
        return Bet(action="fold")


BOTS: dict[str, BotFactory] = {"fate-reader": HeuristicBot, "random": RandomBot}
