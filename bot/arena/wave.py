"""The state of a lockstep wave's matches, as bytes: the records sent and the answers applied.

`lockstep.py` keeps which matches are live and who plays them; this module keeps, for each
match of a wave (its place `w` in the wave), the cards as indices (`codes.py`), in one
bytearray of STRIDE bytes per match: the deal's full deck and base cards, both seats'
arrangements, their decks, hands and pending notification cards, seat 0's answer of the
step and seat 1's points. It builds each step's records (the same fixed-width text as the
hosts read: `hostloop.answer_batch`) and applies a batch of answers (draft picks, or plays:
judged, notified and drawn as in `match.play_match`, from the same tables).

The compiled core: setup.py compiles this very file with Cython (pure-Python mode, like
match.py) into bot/arena/_wave_c, whose loops read and write the bytes through C pointers;
the end of this module takes that twin's `Wave` when it was built from this file as it is.
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # Cython is needed only to build the compiled core
    from games import cython_shim as cython

from bot.arena.core import COMPILED, PURE, compiled
from games.rps_poker.codes import CARDS, DECK_SIZE, INDEX
from games.rps_poker.rules import DRAFT_ROUNDS, GAMES, HAND_SIZE, JUDGE, PLAYER_DECK

# Where a match's bytes lie, from its start: the full deck (30 card indices, as Deal.full),
# the base cards (10, as Deal.terms), each seat's arrangement of its 10 cards (positions,
# as Deal.arrange), each seat's deck in draft order (kept cards, then received) and as
# arranged (opening hand first, then the draws), hand, pending notification card (NONE:
# none yet), seat 0's answer, seat 1's points.
# (C constants in the compiled core: wave.pxd.)
TERMS = 30
ARR0 = 40
ARR1 = 50
DECK0 = 60
DECK1 = 70
OWN0 = 80
OWN1 = 90
HAND0 = 100
HAND1 = 103
NOTE0 = 106
NOTE1 = 107
PICK0 = 108
SCORE1 = 109
STRIDE = 110
NONE = 255
_LAST_ROUND = DRAFT_ROUNDS - 1
_GAMES = GAMES
_HAND = HAND_SIZE
_DECK = PLAYER_DECK
_CARDS = DECK_SIZE
assert DECK_SIZE == 30 and PLAYER_DECK == 10 and HAND_SIZE == 3 and GAMES == 10
NAMES = "".join(CARDS).encode()  # card c's two characters at 2c
_NAME = [c.encode() for c in CARDS] + [b""] * (NONE + 1 - DECK_SIZE)  # (NONE: nothing)
_IDENTITY = tuple(range(PLAYER_DECK))


def deal_bytes(deal: object) -> bytes:
    """The FULL..ARR1 bytes of a match of `deal` (a `match.Deal`)."""
    arrange0, arrange1 = deal.arrange  # type: ignore[attr-defined]
    return (bytes([INDEX[c] for c in deal.full]) + deal.terms  # type: ignore[attr-defined]
            + bytes(arrange0(_IDENTITY)) + bytes(arrange1(_IDENTITY)))


@cython.cfunc
@cython.inline
def _ptr(data: object) -> cython.p_uchar:
    """The bytes of a bytes or bytearray object, for the compiled loops (in Python: itself)."""
    return cython.cast(cython.p_uchar, cython.cast(cython.p_char, data))


if not cython.compiled:
    def _ptr(data: object) -> object:  # noqa: F811
        return data


@cython.cclass
class Wave:
    """The cards of a wave's matches (see the module's docstring)."""

    state: bytearray
    draft: bytes
    games: bytes
    judge: bytes

    def __init__(self, matches: int, draft: bytes, games: bytes) -> None:
        """`draft` and `games`: match._DRAFT_BYTES and _GAMES_BYTES (the draft's positions,
        the games' hand sizes and drawn positions)."""
        self.state = bytearray([NONE]) * (matches * STRIDE)
        self.draft, self.games, self.judge = draft, games, JUDGE
        for w in range(matches):
            self.state[w * STRIDE + PICK0] = 0
            self.state[w * STRIDE + SCORE1] = 0

    def deal(self, w: cython.Py_ssize_t, blob: bytes) -> None:
        """Match w plays the deal whose `deal_bytes` are `blob`."""
        self.state[w * STRIDE:w * STRIDE + DECK0] = blob

    def score1(self, w: cython.Py_ssize_t) -> int:
        """Seat 1's points in match w so far."""
        return self.state[w * STRIDE + SCORE1]

    def notice(self, w: cython.Py_ssize_t, seat: cython.Py_ssize_t) -> bytes:
        """The card seat `seat` of match w is to be notified of next, as its record has it."""
        return _NAME[self.state[w * STRIDE + NOTE0 + seat]]

    def set_pick(self, w: cython.Py_ssize_t, i: cython.Py_ssize_t) -> None:
        """Seat 0's answer in match w in this step."""
        self.state[w * STRIDE + PICK0] = i

    def records(self, kind: str, step: cython.Py_ssize_t, seat: cython.Py_ssize_t,
                ws: list) -> bytes:
        """The records of step `step` (`kind` "d": a draft round, "m": a game) for seat
        `seat` of the matches `ws`: the pending notification's card (none before the first
        pick), then the two cards offered, or the base card and the hand."""
        k: cython.Py_ssize_t
        w: cython.Py_ssize_t
        o: cython.Py_ssize_t
        a: cython.Py_ssize_t
        b: cython.Py_ssize_t
        n: cython.Py_ssize_t
        q: cython.Py_ssize_t
        j: cython.Py_ssize_t
        c: cython.Py_ssize_t
        note: cython.Py_ssize_t
        hand: cython.Py_ssize_t
        draft: cython.bint = kind == "d"
        note = NOTE0 + seat
        hand = HAND0 + 3 * seat
        if draft:
            a = self.draft[14 * step + 2 + 2 * seat]
            b = self.draft[14 * step + 3 + 2 * seat]
            n = 3 if step else 2
        else:
            n = 2 + self.games[step]
        if not cython.compiled:  # (byte by byte is slower in Python than joining names)
            p = self.state
            parts = []
            for w in ws:
                o = w * STRIDE
                if draft:
                    parts += (_NAME[p[o + note]], _NAME[p[o + a]], _NAME[p[o + b]])
                else:
                    parts += (_NAME[p[o + note]], _NAME[p[o + TERMS + step]],
                              *[_NAME[c] for c in p[o + hand:o + hand + n - 2]])
            return b"".join(parts)
        cards = cython.declare(cython.Py_ssize_t[5])
        out = bytearray(2 * n * len(ws))
        op: cython.p_uchar = _ptr(out)
        sp: cython.p_uchar = _ptr(self.state)
        names: bytes = NAMES
        np: cython.p_uchar = _ptr(names)
        q = 0
        for k in range(len(ws)):
            w = ws[k]
            o = w * STRIDE
            if draft:
                cards[0], cards[1], cards[2] = sp[o + note], sp[o + a], sp[o + b]
                if not step:
                    cards[0] = cards[1]
                    cards[1] = cards[2]
            else:
                cards[0], cards[1] = sp[o + note], sp[o + TERMS + step]
                for j in range(n - 2):
                    cards[2 + j] = sp[o + hand + j]
            for j in range(n):
                c = cards[j]
                op[q] = np[2 * c]
                op[q + 1] = np[2 * c + 1]
                q += 2
        return bytes(out)

    def picks(self, ws: list, chars: str) -> None:
        """Seat 0's answers, one digit per match of `ws` (every one a valid index)."""
        k: cython.Py_ssize_t
        w: cython.Py_ssize_t
        sp: cython.p_uchar = _ptr(self.state)
        for k in range(len(ws)):
            w = ws[k]
            sp[w * STRIDE + PICK0] = ord(chars[k]) - 48

    def plays(self, kind: str, step: cython.Py_ssize_t, ws: list, chars: str) -> None:
        """Seat 1's answers, one digit per match of `ws` (every one a valid index): the
        step's picks or plays are made, with seat 0's answers already set."""
        k: cython.Py_ssize_t
        if kind == "d":
            for k in range(len(ws)):
                self.drafted(ws[k], step, ord(chars[k]) - 48)
        else:
            for k in range(len(ws)):
                self.played(ws[k], step, ord(chars[k]) - 48)

    @cython.ccall
    def drafted(self, w: cython.Py_ssize_t, r: cython.Py_ssize_t,
                i1: cython.Py_ssize_t) -> None:
        """Both picks of draft round r are in (seat 0's set): keep, pass, note what each seat
        receives; after the last round, arrange both decks and deal the hands."""
        i: cython.Py_ssize_t
        o: cython.Py_ssize_t = w * STRIDE
        sp: cython.p_uchar = _ptr(self.state)
        # the draft's positions of round r (match._DRAFT_BYTES): the card each pick keeps
        # (k) and the one it passes (q), by the pick
        dp: cython.p_uchar = _ptr(self.draft)
        at0: cython.Py_ssize_t = 14 * r + 6 + 2 * sp[o + PICK0]
        at1: cython.Py_ssize_t = 14 * r + 10 + 2 * i1
        received: cython.Py_ssize_t = dp[14 * r + 1]
        sp[o + DECK0 + r] = sp[o + dp[at0]]
        sp[o + DECK1 + r] = sp[o + dp[at1]]
        sp[o + DECK0 + received] = sp[o + NOTE0] = sp[o + dp[at1 + 1]]
        sp[o + DECK1 + received] = sp[o + NOTE1] = sp[o + dp[at0 + 1]]
        if r == _LAST_ROUND:  # each deck as start_main shuffles it; the opening hands
            for i in range(_DECK):
                sp[o + OWN0 + i] = sp[o + DECK0 + sp[o + ARR0 + i]]
                sp[o + OWN1 + i] = sp[o + DECK1 + sp[o + ARR1 + i]]
            for i in range(_HAND):
                sp[o + HAND0 + i] = sp[o + OWN0 + i]
                sp[o + HAND1 + i] = sp[o + OWN1 + i]

    @cython.ccall
    def played(self, w: cython.Py_ssize_t, g: cython.Py_ssize_t,
               i1: cython.Py_ssize_t) -> None:
        """Both plays of game g are in (seat 0's set): judge, note each seat's card for the
        other, and draw (the card played leaves the hand, the drawn one goes last)."""
        o: cython.Py_ssize_t = w * STRIDE
        i: cython.Py_ssize_t
        n: cython.Py_ssize_t
        drawn: cython.Py_ssize_t
        c0: cython.Py_ssize_t
        c1: cython.Py_ssize_t
        sp: cython.p_uchar = _ptr(self.state)
        gp: cython.p_uchar = _ptr(self.games)
        jp: cython.p_uchar = _ptr(self.judge)
        i0: cython.Py_ssize_t = sp[o + PICK0]
        n, drawn = gp[g], gp[_GAMES + g]
        c0, c1 = sp[o + HAND0 + i0], sp[o + HAND1 + i1]
        sp[o + NOTE1] = c0
        sp[o + NOTE0] = c1
        sp[o + SCORE1] += jp[c0 * 900 + c1 * _CARDS + sp[o + TERMS + g]]
        for i in range(i0, n - 1):
            sp[o + HAND0 + i] = sp[o + HAND0 + i + 1]
        for i in range(i1, n - 1):
            sp[o + HAND1 + i] = sp[o + HAND1 + i + 1]
        if drawn:
            sp[o + HAND0 + n - 1] = sp[o + OWN0 + drawn]
            sp[o + HAND1 + n - 1] = sp[o + OWN1 + drawn]


CORE = PURE
if not cython.compiled:  # the pure module: take the compiled twin's code if it is current
    _twin = compiled("bot.arena._wave_c", __file__)
    if _twin is not None:
        Wave, CORE = _twin.Wave, COMPILED  # noqa: F811
