"""One arena match, as fast as plain CPython allows: the seed's controller loop.

The rules come from games.rps_poker.rules (the same functions and judge table as the
Discord engine): `new_full_deck`, `draft_offers`, `draft_pass`, `remaining_after_draft`,
`start_main`, `draw`, `JUDGE`. This file only drives them: it calls the two bots in the
seed's order, checks every answer, times every call, and turns a failure into a
disqualification.

Chance: every deal gets 256 bits from BLAKE2b(tournament seed, deal number). They are cut
into one uniform integer below 30! (the full-deck shuffle) and three below 10! (the shuffles
of both player decks and the remaining deck, as rules.start_main does them), each decoded
into a Fisher-Yates shuffle by its mixed-radix digits. Rejection sampling keeps every shuffle
exactly uniform (a rejection, probability about 1e-5 per deal, takes the next hash block).

A shuffle moves positions whatever the cards are, and the bots' choices never change which
shuffles are drawn, so one `Deal` is built per deal and shared by every match that plays it
(each pair plays each deal from both seats): `deal()` runs the rules functions once on the
real full deck, and `start_main` once on decks of placeholder positions, which records where
each of a player's ten cards (five kept, then five received) ends up. A match then places
its own cards by those positions. The draws of the main phase are recorded the same way,
once, from `rules.draw` (`DRAWN`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from math import factorial
from operator import itemgetter
from time import perf_counter
from typing import Any

from games.rps_poker.cards import CARDS, INDEX
from games.rps_poker.rules import (
    DRAFT_ROUNDS,
    GAMES,
    HAND_SIZE,
    JUDGE,
    PLAYER_DECK,
    draft_offers,
    draft_pass,
    draw,
    new_full_deck,
    remaining_after_draft,
    start_main,
)

F30, F10 = factorial(30), factorial(10)
_LIM30 = (1 << 128) // F30 * F30  # accept a 128-bit draw below this, then take it mod 30!
_LIM10 = (1 << 40) // F10 * F10
_M128, _M40 = (1 << 128) - 1, (1 << 40) - 1
# JUDGE[a * 900 + b * 30 + base] on card codes: the first two terms by a dict lookup each.
_J900 = {c: i * 900 for c, i in INDEX.items()}
_J30 = {c: i * 30 for c, i in INDEX.items()}
# (seat, method) of each call site, by the number the loop keeps in `at`.
_CALLS = ((0, "draft_pick"), (1, "draft_pick"), (0, "draft_receive"), (1, "draft_receive"),
          (0, "main_play"), (1, "main_play"), (0, "main_postprocess"), (1, "main_postprocess"),
          (0, "arena_sync"), (1, "arena_sync"))


class Disqualified(Exception):
    """A bot broke the controller's rules; `side` (0/1) is the culprit, args[0] the reason."""

    def __init__(self, side: int, reason: str) -> None:
        super().__init__(reason)
        self.side = side
        self.reason = reason


class CallTimeout(Exception):
    """Raised into a bot call that ran past the limit (by the watchdog, or a JS bot's pipe)."""


class _Bits:
    """Uniform integers below n! for one deal, from a BLAKE2b stream."""

    __slots__ = ("key", "block", "pool", "left")

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.block = 0
        self.pool = 0
        self.left = 0

    def take(self, bits: int, mask: int, limit: int, modulus: int) -> int:
        while True:
            if self.left < bits:
                self.pool = int.from_bytes(hashlib.blake2b(
                    self.block.to_bytes(4, "little"), key=self.key, digest_size=32).digest(),
                    "little")
                self.block += 1
                self.left = 256
            value = self.pool & mask
            self.pool >>= bits
            self.left -= bits
            if value < limit:
                return value % modulus


def match_key(tournament_seed: int, deal: int) -> bytes:
    """The BLAKE2b key of one deal: a function of the tournament seed and the deal number."""
    return hashlib.blake2b(f"rps-arena:{tournament_seed}:{deal}".encode(),
                           digest_size=32).digest()


def shuffler(key: bytes) -> Callable[[list], None]:
    """The four shuffles of one deal, in rule order (full deck, deck 0, deck 1, remaining)."""
    bits = _Bits(key)

    def shuffle(items: list) -> None:
        n = len(items)
        r = bits.take(128, _M128, _LIM30, F30) if n == 30 else bits.take(40, _M40, _LIM10, F10)
        for i in range(n - 1, 0, -1):
            r, j = divmod(r, i + 1)
            items[i], items[j] = items[j], items[i]

    return shuffle


def _draw_schedule() -> tuple[int, ...]:
    """For each game, the position (in a player's shuffled deck, opening hand first) of the
    card drawn after it, or 0 for no draw: `rules.draw` played once on placeholder cards."""
    arranged = list(range(PLAYER_DECK))
    hand, pile = arranged[:HAND_SIZE], arranged[HAND_SIZE:]
    drawn = []
    for _ in range(GAMES):
        hand.pop()
        before = len(hand)
        draw(pile, hand)
        drawn.append(hand[-1] if len(hand) > before else 0)
    return tuple(drawn)


DRAWN = _draw_schedule()


class Deal:
    """The chance of one deal, drawn once and shared by every match that plays it.

    `rounds[r]` is (offer to seat 0, offer to seat 1, draft_pass of each possible pick for
    seat 0, the same for seat 1) of draft round r; `arrange[s](deck)` orders seat s's ten
    cards (five kept, then five received, in draft order) as `start_main` shuffles them,
    opening hand first; `games[g]` is (base card, its JUDGE term, position drawn after it).
    """

    __slots__ = ("rounds", "arrange", "games")

    def __init__(self, key: bytes) -> None:
        shuffle = shuffler(key)
        full = [CARDS[i] for i in new_full_deck(shuffle)]
        rounds = []
        for r in range(DRAFT_ROUNDS):
            o0, o1 = draft_offers(full, r)
            rounds.append((tuple(o0), tuple(o1), (draft_pass(o0, 0), draft_pass(o0, 1)),
                           (draft_pass(o1, 0), draft_pass(o1, 1))))
        self.rounds = tuple(rounds)
        remaining = remaining_after_draft(full)
        decks = list(range(PLAYER_DECK)), list(range(PLAYER_DECK))
        hands = start_main(decks[0], decks[1], remaining, shuffle)
        self.arrange = tuple(itemgetter(*hand, *deck) for hand, deck in zip(hands, decks, strict=True))
        self.games = tuple(zip(remaining, [INDEX[c] for c in remaining], DRAWN, strict=True))


def play_match(bot0: Any, bot1: Any, deal: Deal, limit: float, beat: list,
               sync: tuple[bool, bool] = (False, False)) -> int:
    """Play one match; return seat 0's score (seat 1 has the rest of the 10 points).

    Raises Disqualified for the first bot (in call order) that raises, returns an invalid
    index, or takes longer than `limit` seconds for one call. A call is timed from the end
    of the previous call (so a few microseconds of this loop count too). `beat`
    ([call start, fired]) is shared with the worker's watchdog: the start of each call is
    written to beat[0]. `sync[s]`: call the bot's `arena_sync()` at the end (JS bots).
    """
    pc = perf_counter
    judge, j900, j30 = JUDGE, _J900, _J30
    at = 0
    beat[0] = t0 = pc()
    try:
        pick0, pick1 = bot0.draft_pick, bot1.draft_pick
        recv0, recv1 = bot0.draft_receive, bot1.draft_receive
        deck0: list = [None] * PLAYER_DECK
        deck1: list = [None] * PLAYER_DECK
        for r, (o0, o1, pass0, pass1) in enumerate(deal.rounds):
            at = 0
            i0 = pick0([*o0])
            t1 = pc()
            if t1 - t0 > limit:
                raise Disqualified(0, _slow(at, t1 - t0, limit))
            beat[0] = t1
            if type(i0) is not int or not 0 <= i0 < 2:
                raise Disqualified(0, _invalid(at, i0, 2))
            at = 1
            i1 = pick1([*o1])
            t0 = pc()
            if t0 - t1 > limit:
                raise Disqualified(1, _slow(at, t0 - t1, limit))
            beat[0] = t0
            if type(i1) is not int or not 0 <= i1 < 2:
                raise Disqualified(1, _invalid(at, i1, 2))
            deck0[r], p0 = pass0[i0]
            deck1[r], p1 = pass1[i1]
            deck0[r + DRAFT_ROUNDS] = p1
            deck1[r + DRAFT_ROUNDS] = p0
            at = 2
            recv0(p1)
            t1 = pc()
            if t1 - t0 > limit:
                raise Disqualified(0, _slow(at, t1 - t0, limit))
            beat[0] = t1
            at = 3
            recv1(p0)
            t0 = pc()
            if t0 - t1 > limit:
                raise Disqualified(1, _slow(at, t0 - t1, limit))
            beat[0] = t0
        play0, play1 = bot0.main_play, bot1.main_play
        post0, post1 = bot0.main_postprocess, bot1.main_postprocess
        arrange0, arrange1 = deal.arrange
        deck0, deck1 = arrange0(deck0), arrange1(deck1)
        hand0, hand1 = [*deck0[:HAND_SIZE]], [*deck1[:HAND_SIZE]]
        s1 = 0
        for base, term, drawn in deal.games:
            n = len(hand0)
            at = 4
            i0 = play0(hand0[:], base)
            t1 = pc()
            if t1 - t0 > limit:
                raise Disqualified(0, _slow(at, t1 - t0, limit))
            beat[0] = t1
            if type(i0) is not int or not 0 <= i0 < n:
                raise Disqualified(0, _invalid(at, i0, n))
            at = 5
            i1 = play1(hand1[:], base)
            t0 = pc()
            if t0 - t1 > limit:
                raise Disqualified(1, _slow(at, t0 - t1, limit))
            beat[0] = t0
            if type(i1) is not int or not 0 <= i1 < n:
                raise Disqualified(1, _invalid(at, i1, n))
            c0 = hand0.pop(i0)
            c1 = hand1.pop(i1)
            s1 += judge[j900[c0] + j30[c1] + term]
            at = 6
            post0(c1)
            t1 = pc()
            if t1 - t0 > limit:
                raise Disqualified(0, _slow(at, t1 - t0, limit))
            beat[0] = t1
            at = 7
            post1(c0)
            t0 = pc()
            if t0 - t1 > limit:
                raise Disqualified(1, _slow(at, t0 - t1, limit))
            beat[0] = t0
            if drawn:
                hand0.append(deck0[drawn])
                hand1.append(deck1[drawn])
        if sync[0]:
            at = 8
            bot0.arena_sync()
        if sync[1]:
            at = 9
            bot1.arena_sync()
        return GAMES - s1
    except Disqualified:
        raise
    except KeyboardInterrupt:
        if not beat[1]:
            raise
        beat[1] = False
        side, where = _CALLS[at]
        raise Disqualified(side, f"exceeded the call time limit in {where} ({limit:g} s): "
                                 "the call never returned and was stopped") from None
    except CallTimeout as exc:
        raise Disqualified(_CALLS[at][0], str(exc)) from None
    except Exception as exc:  # any failure of the bot's own code
        side, where = _CALLS[at]
        reason = getattr(exc, "arena_reason", None) or \
            f"raised {type(exc).__name__}: {exc} in {where}"
        raise Disqualified(side, reason[:300]) from None


def _slow(at: int, took: float, limit: float) -> str:
    return f"exceeded the call time limit in {_CALLS[at][1]} ({took:.3f} s > {limit:g} s)"


def _invalid(at: int, index: object, size: int) -> str:
    where = _CALLS[at][1]
    hand = f" (hand of {size})" if where == "main_play" else ""
    return f"returned an invalid index {index!r} from {where}{hand}"
