"""One arena match, as fast as plain CPython allows: the seed's controller loop.

The rules come from games.rps_poker.rules (the same functions and judge table as the
Discord engine): `draft_offers`, `draft_pass`, `start_main`, `draw`, `JUDGE`. This file only
drives them: it calls the two bots in the seed's order, checks every answer, times every
call, and turns a failure into a disqualification.

Chance: every match gets 256 bits from BLAKE2b(tournament seed, deal number). They are cut
into one uniform integer below 30! (the full-deck shuffle) and three below 10! (the shuffles
of both player decks and the remaining deck, as rules.start_main does them), each decoded
into a Fisher-Yates shuffle by its mixed-radix digits. Rejection sampling keeps every shuffle
exactly uniform (a rejection, probability about 1e-5 per match, takes the next hash block).
"""

from __future__ import annotations

import hashlib
from math import factorial
from time import perf_counter

from games.rps_poker.cards import CARDS, INDEX
from games.rps_poker.rules import (
    DRAFT_ROUNDS,
    GAMES,
    JUDGE,
    draft_offers,
    draft_pass,
    draw,
    start_main,
)

F30, F10 = factorial(30), factorial(10)
_LIM30 = (1 << 128) // F30 * F30  # accept a 128-bit draw below this, then take it mod 30!
_LIM10 = (1 << 40) // F10 * F10
_M128, _M40 = (1 << 128) - 1, (1 << 40) - 1
_IDX30 = INDEX


class Disqualified(Exception):
    """A bot broke the controller's rules; `side` (0/1) is the culprit, args[0] the reason."""

    def __init__(self, side: int, reason: str) -> None:
        super().__init__(reason)
        self.side = side
        self.reason = reason


class _Bits:
    """Uniform integers below n! for one match, from a BLAKE2b stream."""

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


def shuffler(key: bytes):
    """The four shuffles of one match, in rule order (full deck, deck 0, deck 1, remaining)."""
    bits = _Bits(key)

    def shuffle(items: list) -> None:
        n = len(items)
        r = bits.take(128, _M128, _LIM30, F30) if n == 30 else bits.take(40, _M40, _LIM10, F10)
        for i in range(n - 1, 0, -1):
            r, j = divmod(r, i + 1)
            items[i], items[j] = items[j], items[i]

    return shuffle


def play_match(bot0, bot1, key: bytes, limit: float,
               beat: list | None = None) -> tuple[int, int]:
    """Play one match; return the two scores (they sum to 10).

    Raises Disqualified for the first bot (in call order) that raises, returns an invalid
    index, or takes longer than `limit` seconds for one call. `beat` ([call start, fired])
    is shared with the worker's watchdog: each call's start time is written to beat[0].
    """
    if beat is None:
        beat = [0.0, False]
    shuffle = shuffler(key)
    deck = list(CARDS)
    shuffle(deck)
    pc = perf_counter
    side = 0
    where = "draft_pick"
    kept0: list[str] = []
    kept1: list[str] = []
    recv0: list[str] = []
    recv1: list[str] = []
    try:
        for rnd in range(DRAFT_ROUNDS):
            o0, o1 = draft_offers(deck, rnd)
            where = "draft_pick"
            side = 0
            beat[0] = t = pc()
            i0 = bot0.draft_pick(o0[:])
            beat[0] = u = pc()
            if u - t > limit:
                raise Disqualified(0, _slow(where, u - t, limit))
            if type(i0) is not int or not 0 <= i0 < 2:
                raise Disqualified(0, f"returned an invalid index {i0!r} from draft_pick")
            side = 1
            i1 = bot1.draft_pick(o1[:])
            beat[0] = t = pc()
            if t - u > limit:
                raise Disqualified(1, _slow(where, t - u, limit))
            if type(i1) is not int or not 0 <= i1 < 2:
                raise Disqualified(1, f"returned an invalid index {i1!r} from draft_pick")
            k0, p0 = draft_pass(o0, i0)
            k1, p1 = draft_pass(o1, i1)
            kept0.append(k0)
            kept1.append(k1)
            recv0.append(p1)
            recv1.append(p0)
            where = "draft_receive"
            side = 0
            bot0.draft_receive(p1)
            beat[0] = u = pc()
            if u - t > limit:
                raise Disqualified(0, _slow(where, u - t, limit))
            side = 1
            bot1.draft_receive(p0)
            beat[0] = t = pc()
            if t - u > limit:
                raise Disqualified(1, _slow(where, t - u, limit))
        deck0, deck1 = kept0 + recv0, kept1 + recv1
        remaining = deck[2 * 2 * DRAFT_ROUNDS:]
        hand0, hand1 = start_main(deck0, deck1, remaining, shuffle)
        s0 = 0
        idx = _IDX30
        for g in range(GAMES):
            base = remaining[g]
            where = "main_play"
            side = 0
            beat[0] = t = pc()
            i0 = bot0.main_play(hand0[:], base)
            beat[0] = u = pc()
            if u - t > limit:
                raise Disqualified(0, _slow(where, u - t, limit))
            if type(i0) is not int or not 0 <= i0 < len(hand0):
                raise Disqualified(0, f"returned an invalid index {i0!r} from main_play "
                                      f"(hand of {len(hand0)})")
            side = 1
            i1 = bot1.main_play(hand1[:], base)
            beat[0] = t = pc()
            if t - u > limit:
                raise Disqualified(1, _slow(where, t - u, limit))
            if type(i1) is not int or not 0 <= i1 < len(hand1):
                raise Disqualified(1, f"returned an invalid index {i1!r} from main_play "
                                      f"(hand of {len(hand1)})")
            c0 = hand0.pop(i0)
            c1 = hand1.pop(i1)
            if JUDGE[idx[c0] * 900 + idx[c1] * 30 + idx[base]] == 0:
                s0 += 1
            where = "main_postprocess"
            side = 0
            bot0.main_postprocess(c1)
            beat[0] = u = pc()
            if u - t > limit:
                raise Disqualified(0, _slow(where, u - t, limit))
            side = 1
            bot1.main_postprocess(c0)
            beat[0] = t = pc()
            if t - u > limit:
                raise Disqualified(1, _slow(where, t - u, limit))
            draw(deck0, hand0)
            draw(deck1, hand1)
        sync = getattr(bot0, "arena_sync", None)
        if sync is not None:
            side = 0
            sync()
        sync = getattr(bot1, "arena_sync", None)
        if sync is not None:
            side = 1
            sync()
        return s0, GAMES - s0
    except Disqualified:
        raise
    except KeyboardInterrupt:
        if not beat[1]:
            raise
        beat[1] = False
        raise Disqualified(side, f"exceeded the call time limit in {where} ({limit:g} s): "
                                 "the call never returned and was stopped") from None
    except CallTimeout as exc:
        raise Disqualified(side, str(exc)) from None
    except Exception as exc:  # any failure of the bot's own code
        reason = getattr(exc, "arena_reason", None) or \
            f"raised {type(exc).__name__}: {exc} in {where}"
        raise Disqualified(side, reason[:300]) from None


class CallTimeout(Exception):
    """Raised into a bot call that ran past the limit (by the watchdog, or a JS bot's pipe)."""


def _slow(where: str, took: float, limit: float) -> str:
    return f"exceeded the call time limit in {where} ({took:.3f} s > {limit:g} s)"
