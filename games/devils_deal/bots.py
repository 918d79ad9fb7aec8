"""Built-in players: a uniformly random legal one and a heuristic one ("dealer").

Both decide from the seat's view only (`DevilsDealView`). The heuristic player:
- refills when its pool is thin (few different cards) and it can afford it;
- divides a refill by searching every equal-sum division (partition.best_division) for the
  one keeping the most useful cards, and discards its least useful cards;
- takes the most useful set-aside card;
- picks the private pair with the best chance against the hands the opponent can hold
  (from the public record of their pool), revealing its lower card first;
- bets by that chance given what has been revealed, folding only when calling is worse than
  losing the pot (and the high-card penalty).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations

from pydantic import BaseModel

from games.core.contract import BotFactory, Command, Prompt
from games.devils_deal import rules
from games.devils_deal.cards import DECK, number
from games.devils_deal.commands import (
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.partition import best_division, random_piles
from games.devils_deal.views import DevilsDealView


# --- random legal play -------------------------------------------------------------------
def random_from_view(view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
    """A random legal command for `prompt`, from what the deciding seat sees."""
    pool = list(view.my_pool or [])
    if prompt.kind == "choose_starter":
        return ChooseStarter(starter=rng.randrange(2))
    if prompt.kind == "refill_offer":
        return RefillAnswer(refill=rng.random() < 0.5)
    if prompt.kind == "division":
        if view.division is not None and rng.random() < 0.4 and _discards_complete(view):
            return LockDivision()
        if rng.random() < 0.15:
            return Division(lock=rng.random() < 0.5)
        piles, aside = random_piles(view.offered, rng)
        taken = [c for i, p in enumerate(piles) if i != aside for c in p]
        after = [*pool, *taken]
        need = max(0, len(after) - view.pool_limit)
        k = need if rng.random() < 0.8 else rng.randint(0, need)
        discards = rng.sample(after, k)
        lock = k == need and rng.random() < 0.5
        return Division(piles=tuple(piles), aside=aside, discards=tuple(discards), lock=lock)
    if prompt.kind == "take":
        options: list[str | None] = [None, *dict.fromkeys(view.set_aside)]
        card = rng.choice(options)
        if card is None:
            return Take()
        discard = rng.choice([*pool, card]) if len(pool) + 1 > view.pool_limit else None
        return Take(card=card, discard=discard)
    if prompt.kind == "private_cards":
        first, second = rng.choice(rules.pair_options(pool, view.community or ""))
        return PrivateCards(first=first, second=second)
    if prompt.kind == "bet":
        assert view.bet is not None
        b = view.bet
        kinds = ["fold"]
        if b.can_call:
            kinds.append("call")
        if b.min_raise is not None:
            kinds.append("raise")
        kind = rng.choice(kinds)
        if kind == "raise":
            assert b.max_raise is not None
            return Bet(action="raise", amount=rng.randint(b.min_raise or 1, b.max_raise))
        return Bet(action=kind)
    raise ValueError(f"unknown prompt kind {prompt.kind}")


def _discards_complete(view: DevilsDealView) -> bool:
    d = view.division
    if d is None:
        return False
    taken = sum(len(p) for i, p in enumerate(d.piles) if i != d.aside)
    return len(view.my_pool or []) + taken - len(d.discards) <= view.pool_limit


class RandomBot:
    name = "random"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DevilsDealView)
        return random_from_view(view, prompt, rng)


# --- heuristic play ----------------------------------------------------------------------
def card_values(pool: Sequence[str], candidates: Sequence[str]) -> list[float]:
    """How much each candidate card adds to a pool: a new different card is worth most,
    another copy of a card already held less; higher numbers a little more."""
    have = Counter(pool)
    out = []
    for c in candidates:
        base = 1.0 if have[c] == 0 else 0.45 / have[c]
        out.append(base + number(c) / 30)
    return out


def keep_values(cards: Sequence[str]) -> list[tuple[float, str]]:
    """Value of each card of a pool for deciding discards (duplicates are worth less)."""
    seen: Counter[str] = Counter()
    out = []
    for c in sorted(cards, key=number, reverse=True):
        seen[c] += 1
        out.append(((1.0 if seen[c] == 1 else 0.45 / (seen[c] - 1)) + number(c) / 30, c))
    return out


def worst_cards(cards: Sequence[str], k: int) -> list[str]:
    return [c for _, c in sorted(keep_values(cards))[:k]]


def opponent_pairs(view: DevilsDealView, seat: int) -> list[tuple[str, ...]]:
    """Hands (as card pairs) the opponent may hold, given their public pool record and
    whatever they have revealed this round."""
    opp = 1 - seat
    community = view.community or ""
    shown = view.revealed[opp]
    possible = sorted({c for c in view.possible_pools[opp] if c != community} | set(shown))
    if len(shown) == 2:
        return [tuple(shown)]
    if len(shown) == 1:
        return [(shown[0], c) for c in possible if c != shown[0]]
    pairs: list[tuple[str, ...]] = list(combinations(possible, 2))
    if not pairs:  # no information (should not happen): any two other cards
        others = [c for c in DECK if c != community]
        pairs = list(combinations(others, 2))
    return pairs


def equity(mine: Sequence[str], community: str, opp: Sequence[Sequence[str]]) -> float:
    """Chance of winning (ties count half) against an even spread over `opp` hands."""
    me = rules.hand_rank([*mine, community])
    score = 0.0
    for pair in opp:
        them = rules.hand_rank([*pair, community])
        score += 1.0 if me > them else 0.5 if me == them else 0.0
    return score / len(opp) if opp else 0.5


class HeuristicBot:
    """A careful practice opponent; see the module docstring."""

    name = "dealer"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DevilsDealView)
        handler: Callable[[DevilsDealView, Prompt, random.Random], Command] = getattr(
            self, f"_{prompt.kind}")
        return handler(view, prompt, rng)

    def _choose_starter(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        # Starting means refilling first and leading; holding more cards favours it.
        mine, theirs = view.pool_sizes[prompt.seat], view.pool_sizes[1 - prompt.seat]
        return ChooseStarter(starter=prompt.seat if mine >= theirs else 1 - prompt.seat)

    def _refill_offer(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        pool = view.my_pool or []
        distinct = len(set(pool))
        chips = view.chips[prompt.seat]
        spare = chips - view.refill_cost
        if distinct <= 2:
            return RefillAnswer(refill=spare >= 0)
        if distinct <= 4:
            return RefillAnswer(refill=spare >= view.ante + 4)
        if len(pool) <= 5:
            return RefillAnswer(refill=spare >= 15)
        return RefillAnswer(refill=False)

    def _division(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        pool = list(view.my_pool or [])
        values = card_values(pool, view.offered)
        piles, aside, _ = best_division(view.offered, values)
        if not piles:
            return Division(lock=True)
        taken = [c for i, p in enumerate(piles) if i != aside for c in p]
        after = [*pool, *taken]
        need = max(0, len(after) - view.pool_limit)
        return Division(piles=tuple(piles), aside=aside, discards=tuple(worst_cards(after, need)),
                        lock=True)

    def _take(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        pool = list(view.my_pool or [])
        if not view.set_aside:
            return Take()
        values = card_values(pool, view.set_aside)
        card = max(zip(values, view.set_aside, strict=True))[1]
        if len(pool) + 1 > view.pool_limit:
            discard = worst_cards([*pool, card], 1)[0]
            if discard == card:
                return Take()
            return Take(card=card, discard=discard)
        return Take(card=card)

    def _private_cards(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        pool = view.my_pool or []
        community = view.community or ""
        opp = opponent_pairs(view, prompt.seat)
        best: tuple[float, float, tuple[str, str]] | None = None
        for a, b in combinations(sorted(set(pool) - {community}), 2):
            e = equity((a, b), community, opp)
            # Among equal chances, spend cards the pool holds twice, then low ones.
            spare = -sum(number(c) for c in (a, b)) / 100 + 0.02 * sum(pool.count(c) > 1 for c in (a, b))
            key = (round(e, 3), spare, (a, b))
            if best is None or key[:2] > best[:2]:
                best = key
        assert best is not None
        a, b = best[2]
        first, second = (a, b) if number(a) <= number(b) else (b, a)
        return PrivateCards(first=first, second=second)

    def _bet(self, view: DevilsDealView, prompt: Prompt, rng: random.Random) -> Command:
        bet = view.bet
        assert bet is not None and view.my_private is not None and view.community is not None
        seat = prompt.seat
        mine = view.my_private
        e = equity(mine, view.community, opponent_pairs(view, seat))
        high_card = rules.is_high_card([*mine, view.community])
        fold_cost = view.fold_penalty if high_card else 0
        my_raises = sum(1 for i, a in enumerate(bet.actions)
                        if a.startswith("raise") and (i % 2 == 0) == (seat == view.starter))
        can_raise = bet.min_raise is not None and bet.max_raise is not None
        pot = view.pot
        if can_raise and e >= 0.72 and my_raises < 2:
            assert bet.max_raise is not None
            size = max(1, round((pot + bet.to_call) * (e - 0.5)))
            return Bet(action="raise", amount=min(bet.max_raise, size))
        step = bet.to_call if bet.can_call else (bet.min_raise or 1)
        if e * pot - (1 - e) * step > -fold_cost or e >= 0.45:
            if bet.can_call:
                return Bet(action="call")
            if can_raise:
                return Bet(action="raise", amount=bet.min_raise or 1)
        return Bet(action="fold")


BOTS: dict[str, BotFactory] = {"dealer": HeuristicBot, "random": RandomBot}
