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
(each pair plays each deal from both seats). It holds what `new_full_deck`,
`remaining_after_draft` and `start_main` make with the deal's shuffles (`shuffler`, which
the tests use as the reference), computed straight from the four permutations: the full
deck, the base cards, and where each of a player's ten cards (five kept, then five
received) ends up; a match then places its own cards by those positions. Where the draft
takes and passes cards (`DRAFT`) and what each game draws (`DRAWN`) depend on no chance at
all: they are recorded once, at import, by running `draft_offers`, `draft_pass` and `draw`
on placeholders.

Per-call timing: see `play_match`. Empty notification methods are not called (`pyload._Inert`).

The compiled core: setup.py compiles this very file with Cython (pure-Python mode: the
`cython.*` annotations of locals are C types there, plain annotations here) into
bot/arena/_match_c, and the end of this module takes that twin's functions when it was built
from this file as it is on disk (`bot.arena.core`). `CORE` says which one runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import reduce
from math import factorial, prod
from operator import itemgetter
from time import get_clock_info, perf_counter
from typing import Any

try:
    import cython
except ImportError:  # Cython is needed only to build the compiled core
    from games import cython_shim as cython

from bot.arena.builtins import BORROWERS  # (and `_notice` knows the compiled built-ins)
from bot.arena.core import COMPILED, PURE, compiled
from bot.arena.faults import CallTimeout, Disqualified
from bot.arena.pyload import _notice
from games.rps_poker.codes import CARDS, DECK_SIZE, INDEX
from games.rps_poker.rules import (
    DRAFT_DEAL,
    DRAFT_ROUNDS,
    GAMES,
    HAND_SIZE,
    JUDGE,
    PLAYER_DECK,
    draft_offers,
    draft_pass,
    draw,
    remaining_after_draft,
)

if cython.compiled:
    from cython.cimports.cpython.ref import Py_INCREF
    from cython.cimports.cpython.tuple import PyTuple_New, PyTuple_SET_ITEM
    from cython.cimports.games.rps_poker._players_c import Player
    from cython.cimports.posix.time import clock_getres, clock_gettime, timespec

    # The loop's two compiled forms: for two built-in bots (instances of the compiled
    # players' classes), whose methods it calls in C, and for any other pair.
    Seats = cython.fused_type(Player, object)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _now() -> cython.double:
    """The clock of the call times, read in C by the compiled core: the coarse monotonic
    clock where the system has one (match.pxd), on perf_counter's time base."""
    ts = cython.declare(timespec)
    clock_gettime(UMPIRE_CALL_CLOCK, cython.address(ts))  # noqa: F821 (match.pxd)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def _tick() -> float:
    """The resolution of `_now` in seconds (a call is timed to within it)."""
    if cython.compiled:
        ts = cython.declare(timespec)
        clock_getres(UMPIRE_CALL_CLOCK, cython.address(ts))  # noqa: F821 (match.pxd)
        return ts.tv_sec + ts.tv_nsec * 1e-9
    return get_clock_info("perf_counter").resolution


if not cython.compiled:
    _now = perf_counter  # noqa: F811

F30, F10 = factorial(30), factorial(10)
_LIM30 = (1 << 128) // F30 * F30  # accept a 128-bit draw below this, then take it mod 30!
_LIM10 = (1 << 40) // F10 * F10
_M128, _M40 = (1 << 128) - 1, (1 << 40) - 1
# _BY_CARDS[a][b][base] is JUDGE[a * 900 + b * 30 + base] by the cards' codes: two dict
# lookups and a tuple subscript, all three specialised by CPython 3.11 (4% of a match).
_BY_CARDS = {a: {b: tuple(JUDGE[ia * 900 + ib * 30:ia * 900 + ib * 30 + DECK_SIZE])
                 for b, ib in INDEX.items()} for a, ia in INDEX.items()}
# Calls per draft round and per game: the times are compared with the limit (and the
# watchdog's beat written) once per round or game.
CALLS_PER_ROUND = 4
# (seat, method) of each call site, by the number the loop keeps in `at`.
_CALLS = ((0, "draft_pick"), (1, "draft_pick"), (0, "draft_receive"), (1, "draft_receive"),
          (0, "main_play"), (1, "main_play"), (0, "main_postprocess"), (1, "main_postprocess"),
          (0, "arena_sync"), (1, "arena_sync"))


__all__ = ["CORE", "CallTimeout", "Deal", "Disqualified", "match_key", "permutation",
           "play_match", "quiet_notices", "shuffler", "shuffles"]


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


def _numbers(key: bytes) -> tuple[int, int, int, int]:
    """The deal's four uniform numbers, below 30! then three below 10!, as `_Bits` takes them
    (one hash block is enough unless a draw is rejected). The shortcut leaves them
    unreduced (below a multiple of 30! or 10!): the shuffles use only their remainders."""
    pool = int.from_bytes(hashlib.blake2b(b"\0\0\0\0", key=key, digest_size=32).digest(),
                          "little")
    r, a, b, c = pool & _M128, pool >> 128 & _M40, pool >> 168 & _M40, pool >> 208 & _M40
    if r < _LIM30 and a < _LIM10 and b < _LIM10 and c < _LIM10:
        return r, a, b, c
    bits = _Bits(key)
    return (bits.take(128, _M128, _LIM30, F30), *(bits.take(40, _M40, _LIM10, F10)
                                                  for _ in range(3)))


def _groups(n: int, most: int) -> list[list[int]]:
    """The Fisher-Yates steps of a shuffle of n items (i = n-1 down to 1), in groups whose
    radices (i + 1) multiply to at most `most`."""
    groups, steps = [], list(range(n - 1, 0, -1))
    while steps:
        group = [steps.pop(0)]
        while steps and prod(i + 1 for i in group) * (steps[0] + 1) <= most:
            group.append(steps.pop(0))
        groups.append(group)
    return groups


def _translations(n: int, group: list[int]) -> tuple[bytes, ...]:
    """The steps `group` of a shuffle of n items (step i swaps items[i] and items[j]) as
    whole permutations p (the swaps make items into [items[p[k]] for k]), by the
    mixed-radix number of their digits j (the first step's digit lowest, as the shuffle's
    number gives them), each as a bytes.translate table (the identity from n to 255)."""
    perms, radix = [list(range(n))], 1
    for i in group:
        grown: list = [None] * (radix * (i + 1))
        for j in range(i + 1):
            for x, p in enumerate(perms):
                q = p[:]
                q[i], q[j] = q[j], q[i]
                grown[x + radix * j] = q
        perms, radix = grown, radix * (i + 1)
    tail = bytes(range(n, 256))
    return tuple(bytes(p) + tail for p in perms)


# For 30 cards 13 groups (6,096 tables), for 10 two (5,040 and 720): 3 MB, 10 ms, built at
# the first pure-Python deal (the compiled core does without them).
_GROUPING = {DECK_SIZE: 1000, PLAYER_DECK: 5040}
_TABLES: dict[int, tuple] = {}
_IDENTITY = {n: bytes(range(n)) for n in _GROUPING}


def _tables(n: int) -> tuple:
    """The tables of `permutation` for n items, built once."""
    _TABLES[n] = tuple((prod(i + 1 for i in group), _translations(n, group))
                       for group in _groups(n, _GROUPING[n]))
    return _TABLES[n]


def permutation(r: int, n: int) -> bytes:
    """The Fisher-Yates shuffle of n items (30 or 10) by the digits of the number r (step
    i = n-1 down to 1 swaps items[i] with items[j], j = r % (i + 1), then r //= i + 1; any
    r below a multiple of n! gives the shuffle of r % n!) as the permutation P that makes
    items into [items[k] for k in P]. One table per group of steps, and the groups composed
    by bytes.translate (the last group first): a C call per group, not a Python swap per
    step (pure Python; the compiled core swaps step by step: `_swapped`)."""
    if cython.compiled:
        return _swapped(r, n)
    return _by_tables(r, n)


def _by_tables(r: int, n: int) -> bytes:
    """`permutation` by the tables, in pure Python."""
    chosen = []
    for radix, tables in _TABLES.get(n) or _tables(n):
        r, x = divmod(r, radix)
        chosen.append(tables[x])
    return reduce(bytes.translate, reversed(chosen), _IDENTITY[n])


@cython.ccall  # called from permutation in C, and from Python by the tests
def _swapped(r: int, n: cython.Py_ssize_t) -> bytes:
    """`permutation` step by step, for r below 2**128: the compiled core's way, where a
    swap is a C statement and r's digits come from four 32-bit limbs, divided in C (in
    pure Python, the tables are about five times faster than this loop)."""
    high: cython.ulonglong = r >> 64  # two operations on the Python int, the rest in C
    low: cython.ulonglong = r & 0xFFFFFFFFFFFFFFFF
    if cython.compiled:
        out = cython.declare(cython.uchar[32])
        _shuffle_limbs(high >> 32, high & 0xFFFFFFFF, low >> 32, low & 0xFFFFFFFF, n, out)
        return cython.cast(cython.p_char, out)[:n]
    else:
        items = bytearray(n)
        _shuffle_limbs(high >> 32, high & 0xFFFFFFFF, low >> 32, low & 0xFFFFFFFF, n, items)
        return bytes(items)


@cython.cfunc
@cython.cdivision(True)  # C's division: no checks for zero or for negative operands
@cython.exceptval(check=False)
def _shuffle_limbs(l0: cython.ulonglong, l1: cython.ulonglong, l2: cython.ulonglong,
                   l3: cython.ulonglong, n: cython.Py_ssize_t, out: cython.p_uchar
                   ) -> cython.void:
    """The Fisher-Yates shuffle of n items by the digits of the number whose 32-bit limbs
    are l0 (the highest) to l3, into out[0:n] as `permutation` gives it (compiled only)."""
    i: cython.Py_ssize_t
    radix: cython.ulonglong
    rem: cython.ulonglong
    cur: cython.ulonglong
    _identity(out, n)
    for i in range(n - 1, 0, -1):
        radix = i + 1
        cur = l0  # the leading limbs become 0 as the number shrinks: no division there
        if cur >= radix:
            l0, rem = cur // radix, cur % radix
        else:
            l0, rem = 0, cur
        cur = rem << 32 | l1
        if cur >= radix:
            l1, rem = cur // radix, cur % radix
        else:
            l1, rem = 0, cur
        cur = rem << 32 | l2
        l2, rem = cur // radix, cur % radix
        cur = rem << 32 | l3
        l3, rem = cur // radix, cur % radix
        _swap(out, i, rem)


@cython.cfunc
@cython.cdivision(True)
@cython.exceptval(check=False)
def _shuffle_word(r: cython.ulonglong, n: cython.Py_ssize_t, out: cython.p_uchar
                  ) -> cython.void:
    """`_shuffle_limbs` for a number that fits in 64 bits: one division per step (the
    limbs' form would take four)."""
    i: cython.Py_ssize_t
    _identity(out, n)
    for i in range(n - 1, 0, -1):
        _swap(out, i, r % (i + 1))
        r //= i + 1


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _identity(out: cython.p_uchar, n: cython.Py_ssize_t) -> cython.void:
    """out[0:n] = 0, 1, ..., n - 1: where a shuffle starts."""
    i: cython.Py_ssize_t
    for i in range(n):
        out[i] = i


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _swap(out: cython.p_uchar, i: cython.Py_ssize_t, j: cython.Py_ssize_t) -> cython.void:
    """One step of a Fisher-Yates shuffle: out[i] and out[j] change places."""
    out[i], out[j] = out[j], out[i]


@cython.cfunc
def _fill(deal: Deal, key: bytes) -> cython.bint:
    """What `Deal.__init__` makes, from the deal's first hash block, in C (compiled only):
    the four numbers read from the digest's bytes as `_numbers` cuts them, the shuffles
    into C arrays. False when a number is rejected (about 1e-5 of deals): then the Python
    way, which reads the next block."""
    digest: bytes = hashlib.blake2b(b"\0\0\0\0", key=key, digest_size=32).digest()
    d: cython.p_uchar = cython.cast(cython.p_uchar, cython.cast(cython.p_char, digest))
    w = cython.declare(cython.ulonglong[4])
    deck = cython.declare(cython.uchar[32])
    own = cython.declare(cython.uchar[32])
    rest = cython.declare(cython.uchar[32])
    i: cython.Py_ssize_t
    q: cython.Py_ssize_t
    for q in range(4):  # the digest as a little-endian number, in 64-bit words
        w[q] = 0
        for i in range(7, -1, -1):
            w[q] = w[q] << 8 | d[8 * q + i]
    a: cython.ulonglong = w[2] & _M40C
    b: cython.ulonglong = (w[2] >> 40 | w[3] << 24) & _M40C
    c: cython.ulonglong = (w[3] >> 16) & _M40C
    if not (w[1] < _LIM30_HIGH or w[1] == _LIM30_HIGH and w[0] < _LIM30_LOW) or \
            a >= _LIM10C or b >= _LIM10C or c >= _LIM10C:
        return False
    _shuffle_limbs(w[1] >> 32, w[1] & 0xFFFFFFFF, w[0] >> 32, w[0] & 0xFFFFFFFF,
                   DECK_SIZE, deck)
    deal.full = _picked(CARDS, deck, DECK_SIZE)
    _shuffle_word(a, PLAYER_DECK, own)
    arrange0 = itemgetter(*_picked(_NUMBERS, own, PLAYER_DECK))
    _shuffle_word(b, PLAYER_DECK, own)
    deal.arrange = (arrange0, itemgetter(*_picked(_NUMBERS, own, PLAYER_DECK)))
    _shuffle_word(c, PLAYER_DECK, rest)
    for i in range(PLAYER_DECK):
        rest[i] = deck[_REST_START + rest[i]]
    deal.terms = cython.cast(cython.p_char, rest)[:PLAYER_DECK]
    deal.bases = _picked(CARDS, rest, PLAYER_DECK)
    return True


@cython.cfunc
def _picked(items: tuple, at: cython.p_uchar, n: cython.Py_ssize_t) -> tuple:
    """(items[at[0]], ..., items[at[n - 1]]), built in C (compiled only)."""
    out = PyTuple_New(n)
    i: cython.Py_ssize_t
    for i in range(n):
        item = items[at[i]]
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, i, item)
    return out


def shuffler(key: bytes) -> Callable[[list], None]:
    """The shuffles of one deal: the first of 30 cards (the full deck) takes the number below
    30!, each of 10 cards (deck 0, deck 1, remaining, in rule order) the next below 10!;
    each is the Fisher-Yates shuffle by the digits of its number (`permutation`)."""
    return shuffles(*_numbers(key))


def shuffles(r30: int, *r10: int) -> Callable[[list], None]:
    """The shuffle of `shuffler` for given numbers (any below a multiple of 30! or 10!), in
    place, for the rules functions (`Deal` uses the permutations directly)."""
    numbers = {DECK_SIZE: iter((r30,)), PLAYER_DECK: iter(r10)}

    def shuffle(items: list) -> None:
        items[:] = itemgetter(*permutation(next(numbers[len(items)]), len(items)))(items)

    return shuffle


def _draft_positions() -> tuple[tuple, ...]:
    """Where each draft round takes its cards, by position in the shuffled full deck: (round,
    its received card's place in a player's deck, the two cards offered to seat 0, the two
    offered to seat 1, (kept, passed) for each pick of seat 0, the same for seat 1), from
    `rules.draft_offers` and `rules.draft_pass` played once on placeholder positions."""
    positions = list(range(DECK_SIZE))
    rounds = []
    for r in range(DRAFT_ROUNDS):
        offers = draft_offers(positions, r)
        assert all(len(o) == DRAFT_DEAL == 2 for o in offers)
        rounds.append((r, DRAFT_ROUNDS + r, *offers[0], *offers[1],
                       *(tuple(draft_pass(o, i) for i in range(DRAFT_DEAL)) for o in offers)))
    return tuple(rounds)


def _draw_schedule() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each game: the hand size, and the position (in a player's deck as `Deal.arrange`
    orders it, opening hand first) of the card drawn after it, 0 for none: `rules.draw`
    played once on placeholder cards."""
    arranged = list(range(PLAYER_DECK))
    hand, pile = arranged[:HAND_SIZE], arranged[HAND_SIZE:]
    sizes, drawn = [], []
    for _ in range(GAMES):
        sizes.append(len(hand))
        hand.pop()
        draw(pile, hand)
        drawn.append(hand[-1] if len(hand) == sizes[-1] else 0)
    return tuple(sizes), tuple(drawn)


DRAFT = _draft_positions()
# The valid answers, as objects: in CPython the integers -5 to 256 exist once each, so
# `i is _0 or i is _1` is `type(i) is int and 0 <= i < 2` at under half the cost, and True,
# 1.0 or an int subclass's 1 are other objects (invalid, as the seed's Number.isInteger
# check has it for "1" and true). A hand has at most three cards.
_0, _1, _2 = 0, 1, 2
assert DRAFT_DEAL == 2 and HAND_SIZE == 3 and int("2") is _2
SIZES, DRAWN = _draw_schedule()
# The same tables as bytes, which the compiled loop reads through C pointers: per draft
# round r, 14 bytes from 14 * r (r, rr, a0, b0, a1, b1, then (kept, passed) for seat 0's
# picks 0 and 1, then seat 1's); the games' hand sizes, then their drawn positions; the
# judge by card indices (JUDGE).
_DRAFT_BYTES = bytes([x for row in DRAFT for x in (*row[:6], *row[6][0], *row[6][1],
                                                   *row[7][0], *row[7][1])])
_GAMES_BYTES, _JUDGE_BYTES = bytes(SIZES + DRAWN), bytes(JUDGE)
assert len(_DRAFT_BYTES) == 14 * DRAFT_ROUNDS and max(_DRAFT_BYTES) < DECK_SIZE


# The remaining deck's positions in the full deck (the base cards, before their shuffle).
_REST = remaining_after_draft(range(DECK_SIZE))
assert _REST.stop == DECK_SIZE and _REST.step == 1 and len(_REST) == PLAYER_DECK
_PAD = bytes(256 - len(_REST))  # (a bytes.translate table is 256 long)
_REST_START: cython.Py_ssize_t = _REST.start
_NUMBERS = tuple(range(DECK_SIZE))  # (for `_picked`: the ints of positions)
# The limits of `_numbers` in C words, for the compiled deal (`_fill`).
_LIM30_HIGH: cython.ulonglong = _LIM30 >> 64
_LIM30_LOW: cython.ulonglong = _LIM30 & 0xFFFFFFFFFFFFFFFF
_LIM10C: cython.ulonglong = _LIM10
_M40C: cython.ulonglong = _M40


class Deal:
    """The chance of one deal, drawn once and shared by every match that plays it: what
    `new_full_deck`, `remaining_after_draft` and `start_main` make with `shuffler(key)`
    (a test compares them deal by deal), computed from the four permutations.

    `full` is the shuffled full deck (`DRAFT` says where the draft takes its cards);
    `arrange[s](deck)` orders seat s's ten cards (five kept, then five received, in draft
    order) as `start_main` shuffles them, opening hand first; `bases` are the base cards of
    the ten games, `terms` their indices (the judge's third term).
    """

    __slots__ = ("full", "arrange", "bases", "terms")

    def __init__(self, key: bytes) -> None:
        if cython.compiled and _fill(self, key):
            return
        r30, r0, r1, rest = _numbers(key)
        deck = permutation(r30, DECK_SIZE)  # the full deck: card indices, top first
        self.full = itemgetter(*deck)(CARDS)
        # start_main shuffles deck 0, deck 1, then the remaining deck, and a seat's deck in
        # its new order is its opening hand and then what it draws.
        self.arrange = (itemgetter(*permutation(r0, PLAYER_DECK)),
                        itemgetter(*permutation(r1, PLAYER_DECK)))
        self.terms = terms = permutation(rest, PLAYER_DECK).translate(deck[_REST.start:] + _PAD)
        self.bases = itemgetter(*terms)(CARDS)


def play_match(bot0: Any, bot1: Any, deal: Deal, limit: float, beat: list,
               sync: tuple[bool, bool] = (False, False),
               quiet: tuple[bool, bool, bool, bool] | None = None) -> int:
    """Play one match; return seat 0's score (seat 1 has the rest of the 10 points).

    Raises Disqualified for the first bot (in call order) that raises, returns an invalid
    index, or takes longer than `limit` seconds for one call. Every call is timed, from the
    end of the previous call (so a few microseconds of this loop count too); the times are
    compared with the limit once per draft round and once per game (four calls each), and
    one by one only when the round or game as a whole took longer than the limit, or a call
    failed. `beat` ([start of the round or game in progress, fired]) is shared with the
    worker's watchdog. `sync[s]`: call the bot's `arena_sync()` at the end (JS bots).
    `quiet`: whether draft_receive and main_postprocess of seat 0, then of seat 1, are empty
    (`_notice`), given by the caller for bots whose methods it knows (built-in classes: no
    instance shadows them), so that they are not looked up for every match.

    Compiled, two built-in bots (the compiled players' classes) have their methods called
    in C; the calls, answers and times are the same as through Python's call protocol.
    """
    if cython.compiled and isinstance(bot0, Player) and isinstance(bot1, Player):
        return _play(cython.cast(Player, bot0), cython.cast(Player, bot1), deal, limit, beat,
                     sync, quiet)
    return _play(bot0, bot1, deal, limit, beat, sync, quiet)


@cython.cfunc
def _play(bot0: Seats, bot1: Seats, deal: Deal, limit: float, beat: list,
          sync: tuple, quiet: tuple | None) -> int:
    """`play_match`'s loop."""
    # C types when compiled (plain annotations, not evaluated, in pure Python).
    t: cython.double
    t0: cython.double
    t1: cython.double
    t2: cython.double
    t3: cython.double
    at: cython.Py_ssize_t
    s1: cython.Py_ssize_t
    n: cython.Py_ssize_t
    r: cython.Py_ssize_t
    rr: cython.Py_ssize_t
    a0: cython.Py_ssize_t
    b0: cython.Py_ssize_t
    a1: cython.Py_ssize_t
    b1: cython.Py_ssize_t
    drawn: cython.Py_ssize_t
    recv0: cython.bint
    recv1: cython.bint
    lend0: cython.bint
    lend1: cython.bint
    offer0: list
    offer1: list
    post0: cython.bint
    post1: cython.bint
    term: cython.Py_ssize_t
    g: cython.Py_ssize_t
    o: cython.Py_ssize_t
    x: cython.Py_ssize_t
    dp: cython.p_uchar
    jp: cython.p_uchar
    draft_bytes: bytes = _DRAFT_BYTES  # (held here while the loop reads them in C)
    judge_bytes: bytes = _JUDGE_BYTES
    games_bytes: bytes = _GAMES_BYTES
    terms: bytes
    tp: cython.p_uchar
    gp: cython.p_uchar
    bases: tuple
    full: tuple
    deck0: list
    deck1: list
    hand0: list
    hand1: list
    judge = _BY_CARDS
    at = 0
    beat[0] = t = t0 = t1 = t2 = _now()
    try:
        if quiet is None:
            quiet = quiet_notices(bot0) + quiet_notices(bot1)
        recv0, post0, recv1, post1 = not quiet[0], not quiet[1], not quiet[2], not quiet[3]
        # A built-in bot (its class exactly) only reads the list it is given, during the
        # call: it gets the loop's own list, not a copy (`builtins.BORROWERS`).
        lend0, lend1 = type(bot0) in BORROWERS, type(bot1) in BORROWERS
        offer0, offer1 = [None, None], [None, None]
        deck0: list = [None] * PLAYER_DECK
        deck1: list = [None] * PLAYER_DECK
        full = deal.full
        if cython.compiled:  # the tables in C (see _DRAFT_BYTES)
            dp = cython.cast(cython.p_uchar, cython.cast(cython.p_char, draft_bytes))
            jp = cython.cast(cython.p_uchar, cython.cast(cython.p_char, judge_bytes))
        for r in range(DRAFT_ROUNDS):
            if cython.compiled:
                o = 14 * r
                rr, a0, b0, a1, b1 = dp[o + 1], dp[o + 2], dp[o + 3], dp[o + 4], dp[o + 5]
            else:
                _, rr, a0, b0, a1, b1, kp0, kp1 = DRAFT[r]
            at = 0
            if lend0:
                offer0[0], offer0[1] = full[a0], full[b0]
                i0 = bot0.draft_pick(offer0)
            else:
                i0 = bot0.draft_pick([full[a0], full[b0]])
            t0 = _now()
            if i0 is not _0 and i0 is not _1:
                raise _bad(at, (t, t0), limit, i0, DRAFT_DEAL)
            at = 1
            if lend1:
                offer1[0], offer1[1] = full[a1], full[b1]
                i1 = bot1.draft_pick(offer1)
            else:
                i1 = bot1.draft_pick([full[a1], full[b1]])
            t1 = _now()
            if i1 is not _0 and i1 is not _1:
                raise _bad(at, (t, t0, t1), limit, i1, DRAFT_DEAL)
            if cython.compiled:
                x = i0
                k0, q0 = dp[o + 6 + 2 * x], dp[o + 7 + 2 * x]
                x = i1
                k1, q1 = dp[o + 10 + 2 * x], dp[o + 11 + 2 * x]
            else:
                k0, q0 = kp0[i0]
                k1, q1 = kp1[i1]
            deck0[r] = full[k0]
            deck1[r] = full[k1]
            deck0[rr] = p1 = full[q1]
            deck1[rr] = p0 = full[q0]
            if not recv0:  # an empty method (_Inert): nothing to call or time
                t2 = t1
            else:
                at = 2
                bot0.draft_receive(p1)
                t2 = _now()
            if not recv1:
                t3 = t2
            else:
                at = 3
                bot1.draft_receive(p0)
                t3 = _now()
            if t3 - t > limit and (late := _first_slow(0, (t, t0, t1, t2, t3), limit)):
                raise late
            beat[0] = t = t3
        arrange0, arrange1 = deal.arrange
        own0, own1 = arrange0(deck0), arrange1(deck1)
        hand0, hand1 = [*own0[:HAND_SIZE]], [*own1[:HAND_SIZE]]
        s1 = 0
        bases, terms = deal.bases, deal.terms
        if cython.compiled:
            tp = cython.cast(cython.p_uchar, cython.cast(cython.p_char, terms))
            gp = cython.cast(cython.p_uchar, cython.cast(cython.p_char, games_bytes))
        for g in range(GAMES):
            if cython.compiled:
                base, term, n, drawn = bases[g], tp[g], gp[g], gp[GAMES + g]
            else:
                base, term, n, drawn = bases[g], terms[g], SIZES[g], DRAWN[g]
            at = 4
            i0 = bot0.main_play(hand0 if lend0 else [*hand0], base)
            t0 = _now()
            if i0 is not _0 and i0 is not _1 and i0 is not _2 or i0 >= n:
                raise _bad(at, (t, t0), limit, i0, n)
            at = 5
            i1 = bot1.main_play(hand1 if lend1 else [*hand1], base)
            t1 = _now()
            if i1 is not _0 and i1 is not _1 and i1 is not _2 or i1 >= n:
                raise _bad(at, (t, t0, t1), limit, i1, n)
            c0 = hand0.pop(i0)
            c1 = hand1.pop(i1)
            if cython.compiled:
                s1 += jp[_card_index(c0) * 900 + _card_index(c1) * DECK_SIZE + term]
            else:
                s1 += judge[c0][c1][term]
            if not post0:
                t2 = t1
            else:
                at = 6
                bot0.main_postprocess(c1)
                t2 = _now()
            if not post1:
                t3 = t2
            else:
                at = 7
                bot1.main_postprocess(c0)
                t3 = _now()
            if t3 - t > limit and (late := _first_slow(CALLS_PER_ROUND, (t, t0, t1, t2, t3),
                                                       limit)):
                raise late
            beat[0] = t = t3
            if drawn:
                hand0.append(own0[drawn])
                hand1.append(own1[drawn])
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
        raise _earlier(at, (t, t0, t1, t2), limit) or Disqualified(
            side, f"exceeded the time limit of {limit:g} s in {where}: "
                  "the call never returned and was stopped") from None
    except CallTimeout as exc:
        raise _earlier(at, (t, t0, t1, t2), limit) or \
            Disqualified(_CALLS[at][0], str(exc)) from None
    except Exception as exc:  # any failure of the bot's own code
        side, where = _CALLS[at]
        reason = getattr(exc, "arena_reason", None) or \
            f"raised {type(exc).__name__}: {exc} in {where}"
        raise _earlier(at, (t, t0, t1, t2), limit) or \
            Disqualified(side, reason[:300]) from None


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _card_index(card: str) -> cython.Py_ssize_t:
    """A card's index in CARDS from its two characters (codes.py: symbol * 10 + number),
    for the compiled judge: a card of the deal is always one of CARDS."""
    symbol: cython.Py_ssize_t = ord(card[0])
    number: cython.Py_ssize_t = ord(card[1]) - ord("0")
    return (0 if symbol == ord("R") else 10 if symbol == ord("P") else 20) + number


def quiet_notices(bot: Any) -> tuple[bool, bool]:
    """Whether `bot`'s draft_receive and main_postprocess are empty (see `play_match`)."""
    return _notice(bot.draft_receive) is None, _notice(bot.main_postprocess) is None


def _first_slow(first: int, stamps: tuple[float, ...], limit: float) -> Disqualified | None:
    """The disqualification of the first call over the limit, if any, among the calls
    `first`, `first` + 1, ... of `_CALLS` that ended at stamps[1], stamps[2], ... (stamps[0]:
    when the first of them started)."""
    for k in range(len(stamps) - 1):
        took = stamps[k + 1] - stamps[k]
        if took > limit:
            at = first + k
            return Disqualified(_CALLS[at][0], f"exceeded the time limit of {limit:g} s in "
                                               f"{_CALLS[at][1]}: took {took:.3f} s")
    return None


def _earlier(at: int, stamps: tuple[float, ...], limit: float) -> Disqualified | None:
    """A call before call `at` in the same round or game that was over the limit: it came
    first, so it is the one disqualified (those calls were not compared yet)."""
    if at >= 2 * CALLS_PER_ROUND:  # arena_sync: every round and game was compared already
        return None
    first = at - at % CALLS_PER_ROUND
    return _first_slow(first, stamps[:at - first + 1], limit)


def _bad(at: int, stamps: tuple[float, ...], limit: float, index: object,
         size: int) -> Disqualified:
    """Call `at` returned an invalid index: it, or an earlier call that was too slow."""
    late = _first_slow(at - at % CALLS_PER_ROUND, stamps, limit)
    if late is not None:
        return late
    where = _CALLS[at][1]
    hand = f" (hand of {size})" if where == "main_play" else ""
    return Disqualified(_CALLS[at][0], f"returned an invalid index {index!r} from {where}{hand}")


# The core that runs, and the resolution of its call times (a call is timed to within it).
CORE, TICK = PURE, _tick()
if not cython.compiled:  # the pure module: take the compiled twin's code if it is current
    _twin = compiled("bot.arena._match_c", __file__)
    if _twin is not None:
        Deal, match_key, permutation, play_match, quiet_notices = (
            _twin.Deal, _twin.match_key, _twin.permutation, _twin.play_match,
            _twin.quiet_notices)
        CORE, TICK = COMPILED, _twin._tick()
