"""What a player can deduce from their view: the opponent's possible hands and tank values.

Hands are bitmasks over A-Z. A hypothesis is a set of letters of the opponent's current hand
size; it is weighted by every clue so far. Clues asked since the opponent's last chance to swap
(our last wrong guess) are hard constraints; older clues, our wrong guesses and letters we were
offered are soft ones, because a swap may have changed one letter since.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass

from games.decoder.letters import ALPHABET
from games.decoder.rules import clue_answer, sabotaged
from games.decoder.views import DecoderView

BIT = {ch: 1 << i for i, ch in enumerate(ALPHABET)}
MAX_ENUMERATION = 40_000


def mask_of(letters: str | list[str] | set[str]) -> int:
    m = 0
    for ch in letters:
        m |= BIT[ch]
    return m


def word_masks(word: str) -> tuple[int, ...]:
    """Masks of the letters appearing at least once, twice, three times... in `word`:
    the count against a hand H is the sum of popcount(H & mask) over them."""
    counts: dict[str, int] = {}
    for ch in word.upper():
        counts[ch] = counts.get(ch, 0) + 1
    out = []
    for level in range(1, max(counts.values()) + 1):
        out.append(mask_of({ch for ch, n in counts.items() if n >= level}))
    return tuple(out)


def count(hand: int, masks: tuple[int, ...]) -> int:
    n = 0
    for m in masks:
        n += (hand & m).bit_count()
    return n


@dataclass(frozen=True)
class Constraint:
    masks: tuple[int, ...]
    clue: str
    answer: bool
    removed: int  # letters taken out of the hand since the clue (they counted then)
    soft: float  # weight kept when violated: 0.0 = hard


@dataclass
class Belief:
    hypotheses: list[tuple[int, float]]  # (hand mask, weight), weights sum to 1
    size: int
    candidates: list[str]

    def marginals(self) -> dict[str, float]:
        by_bit = [0.0] * len(ALPHABET)
        for hand, w in self.hypotheses:
            while hand:
                low = hand & -hand
                by_bit[low.bit_length() - 1] += w
                hand ^= low
        return {ch: by_bit[ALPHABET.index(ch)] for ch in self.candidates}

    def sample(self, n: int, rng: random.Random) -> list[tuple[int, float]]:
        """At most n hypotheses: all of them if few, else n drawn by weight (equal weights)."""
        if len(self.hypotheses) <= n:
            return self.hypotheses
        hands = [h for h, _ in self.hypotheses]
        weights = [w for _, w in self.hypotheses]
        picked = rng.choices(hands, weights=weights, k=n)
        return [(h, 1.0 / n) for h in picked]


def opponent_belief(view: DecoderView, rng: random.Random) -> Belief:
    """The weighted hands the opponent of `view.seat` may hold now."""
    me = view.seat
    assert me is not None
    opp = 1 - me
    size = view.players[opp].hand_size or 0
    banned = set(view.initial_tiles) | set(view.extra_tiles) | set(view.hand) | set(view.revealed)
    candidates = [ch for ch in ALPHABET if ch not in banned]

    finished = view.history
    my_wrong_turns = [r.number for r in finished if r.seat == me and r.action == "guess"
                      and r.correct is False]
    constraints: list[Constraint] = []
    for r in finished:
        if r.seat != me or r.action != "ask" or not r.answers or r.word is None:
            continue
        swaps_since = sum(1 for t in my_wrong_turns if t > r.number)
        removed = 0
        for later in finished:
            if later.number <= r.number:
                continue
            if later.seat == me and later.correct and later.letter:
                removed |= BIT[later.letter]
            if later.seat == opp and later.gave_up:
                removed |= BIT[later.gave_up]
        soft = 0.0 if swaps_since == 0 else min(0.9, 0.3 * swaps_since)
        for a in r.answers:
            constraints.append(Constraint(word_masks(r.word), a.clue, a.answer, removed, soft))
    constraints.sort(key=lambda c: c.soft)  # hard ones first: most hypotheses die early
    penalties: dict[str, float] = {}
    for r in finished:
        if r.seat == me and r.action == "guess" and r.correct is False and r.letter:
            penalties[r.letter] = 0.1
    for o in view.offers:
        if o.letter and o.letter in candidates:
            later_swaps = any(t > o.turn for t in my_wrong_turns)
            penalties[o.letter] = 0.1 if later_swaps else 0.0

    if size == 0 or len(candidates) < size:
        return Belief([(0, 1.0)], size, candidates)
    total = math.comb(len(candidates), size)
    if total <= MAX_ENUMERATION:
        bits = [BIT[ch] for ch in candidates]
        hands = (sum(combo) for combo in itertools.combinations(bits, size))
    else:
        hands = (mask_of(rng.sample(candidates, size)) for _ in range(MAX_ENUMERATION))
    pen = [(BIT[ch], w) for ch, w in penalties.items()]
    out: list[tuple[int, float]] = []
    for hand in hands:
        weight = 1.0
        for c in constraints:
            ok = clue_answer(c.clue, count(hand | c.removed, c.masks)) == c.answer  # type: ignore[arg-type]  # (a played clue: one of CLUES)
            if not ok:
                if c.soft == 0.0:
                    weight = 0.0
                    break
                weight *= c.soft
        if weight == 0.0:
            continue
        for bit, w in pen:
            if hand & bit:
                weight *= w
        if weight > 0.0:
            out.append((hand, weight))
    if not out:  # contradictory evidence (swaps we could not model): fall back to uniform
        out = [(mask_of(rng.sample(candidates, size)), 1.0) for _ in range(500)]
    s = sum(w for _, w in out)
    return Belief([(h, w / s) for h, w in out], size, candidates)


def entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def clue_probabilities(sample: list[tuple[int, float]], masks: tuple[int, ...]) -> dict[str, float]:
    """P(yes) of each clue for a word over weighted hypotheses."""
    p = {"ANY": 0.0, "ODD": 0.0, "TWO": 0.0}
    for hand, w in sample:
        n = 0
        for m in masks:
            n += (hand & m).bit_count()
        if n:
            p["ANY"] += w
        if n % 2:
            p["ODD"] += w
        if n == 2:
            p["TWO"] += w
    return p


def best_question(sample: list[tuple[int, float]], words: list[str],
                  both: bool = False) -> tuple[str, str, float]:
    """The word and refused clue that inform most when the opponent answers the clue that tells
    the least (or both remaining clues, with New Evidence). Returns (word, refused, bits)."""
    total = sum(w for _, w in sample) or 1.0
    norm = [(h, w / total) for h, w in sample]
    best = ("", "ANY", -1.0)
    for word in words:
        p = clue_probabilities(norm, word_masks(word))
        info = {c: entropy(v) for c, v in p.items()}
        for refused in ("ANY", "ODD", "TWO"):
            a, b = (c for c in ("ANY", "ODD", "TWO") if c != refused)
            score = info[a] + info[b] if both else min(info[a], info[b])
            if score > best[2]:
                best = (word, refused, score)
    return best


# ------------------------------------------------------------------------ tank values by timing
def estimate_opponent_tanks(view: DecoderView) -> dict[str, float]:
    """Estimated current recharge units of each opponent tank, from the turn order.

    Our own turns happen at exactly known times (we know our fills); each opponent turn lies
    between the known times around it in the sequence; an opponent tank's units are the gap to
    that player's next turn. Midpoints of those intervals give the estimates."""
    me = view.seat
    assert me is not None
    opp = 1 - me
    seq = [(r.number, r.seat, r.tank) for r in view.history]
    times: list[float | None] = []
    my_next = 0.0 if me == 0 else 1.0
    for number, seat, _tank in seq:
        if seat == me:
            times.append(my_next)
            my_next = my_next + view.fills.get(number, 0)
        else:
            times.append(None)
    lo: list[float] = []
    hi: list[float] = []
    floor = 0.0
    first_opp = True
    for i in range(len(seq)):
        t = times[i]
        if t is not None:
            floor = max(floor, t)
            lo.append(t)
            hi.append(t)
            continue
        if first_opp:
            exact = 0.0 if opp == 0 else 1.0
            lo.append(exact)
            hi.append(exact)
            first_opp = False
            continue
        later = [u for u in times[i + 1:] if u is not None]
        lo.append(floor)
        hi.append(min(later) if later else math.inf)
    opp_idx = [i for i, (_, s, _) in enumerate(seq) if s == opp]
    for a, b in itertools.pairwise(opp_idx):  # each gap is at least one unit
        lo[b] = max(lo[b], lo[a] + 1)
    estimates: dict[str, float] = {}
    for a, b in itertools.pairwise(opp_idx):
        if math.isinf(hi[b]) or math.isinf(hi[a]):
            continue
        gap = (lo[b] + hi[b]) / 2 - (lo[a] + hi[a]) / 2
        estimates[seq[a][2]] = max(1.0, min(30.0, gap))
    # Our sabotages of a restored tank after its last measured use raise it by half. (Unexpected
    # Sabotage needs no correction: the measured gap already used the raised value.)
    for r in view.history:
        if r.seat == opp and r.sabotaged and r.sabotaged in estimates:
            last_use = max((n for n, s, t in seq if s == opp and t == r.sabotaged), default=0)
            if r.number >= last_use:
                estimates[r.sabotaged] = float(sabotaged(round(estimates[r.sabotaged])))
    default = sum(estimates.values()) / len(estimates) if estimates else 8.0
    return {t.name: estimates.get(t.name, default) for t in view.players[opp].tanks}
