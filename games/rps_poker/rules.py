"""The rules of Turn-based RPS Poker as small pure functions, shared by the Discord engine
and the bot arena (bot/arena). Inner functions work on integer card indices (see cards.py)
and plain lists so the arena can run them hundreds of thousands of times a second.

Seed: a 30-card full deck; the draft deals each player two cards from the top five times,
each keeps one and passes the other to the opponent; then each player's deck and the
remaining ten cards are shuffled, each player draws three, and ten games are played against
a base card from the remaining deck. Winner of a game: pair with the base > higher played
number > RPS (R beats S, S beats P, P beats R).
"""

from __future__ import annotations

from collections.abc import Callable

from games.rps_poker.codes import CARDS, DECK_SIZE, INDEX

DRAFT_ROUNDS = 5
DRAFT_DEAL = 2  # cards each player is given per draft round
PLAYER_DECK = DRAFT_ROUNDS * 2  # 10: five kept + five received
REMAINING = DECK_SIZE - 2 * PLAYER_DECK  # 10 cards left for base cards
HAND_SIZE = 3
GAMES = 10
POINTS_PER_MATCH = GAMES

# Why a game was won, as returned by `win_reason`.
PAIR, HIGHER, RPS = "pair", "higher", "rps"


def beats(symbol_a: int, symbol_b: int) -> bool:
    """RPS on symbol indices (R=0, P=1, S=2): R beats S, S beats P, P beats R."""
    return (symbol_a - symbol_b) % 3 == 1


def judge_index(a: int, b: int, base: int) -> int:
    """The winner (0: the player of `a`, 1: of `b`) of one game, on card indices.

    The three cards must be distinct (they always are: every card is unique).
    """
    na, nb, nbase = a % 10, b % 10, base % 10
    pair_a, pair_b = na == nbase, nb == nbase
    if pair_a != pair_b:
        return 0 if pair_a else 1
    if na != nb:
        return 0 if na > nb else 1
    return 0 if beats(a // 10, b // 10) else 1


def _reason_index(a: int, b: int, base: int) -> str:
    na, nb, nbase = a % 10, b % 10, base % 10
    if (na == nbase) != (nb == nbase):
        return PAIR
    return HIGHER if na != nb else RPS


def _judge_table() -> bytes:
    """JUDGE, one row (a, b) at a time: a game's winner depends on the base's number only,
    so each row is judge_index on the ten numbers, three times over, with 2 where the base
    repeats a or b (a third of the calls of one per entry: `umpire arena` starts faster)."""
    rows: list[bytes | bytearray] = []
    for a in range(DECK_SIZE):
        for b in range(DECK_SIZE):
            if a == b:
                rows.append(b"\2" * DECK_SIZE)
                continue
            row = bytearray(bytes(judge_index(a, b, n) for n in range(10)) * (DECK_SIZE // 10))
            row[a] = row[b] = 2
            rows.append(row)
    return b"".join(rows)


# JUDGE[a * 900 + b * 30 + base] is judge_index(a, b, base); 2 for impossible (repeated) cards.
JUDGE: bytes = _judge_table()
# WIN_VS[base][a] is the set of cards b that `a` beats with this base (as a 30-bit mask): the
# entries JUDGE[a * 900 + b * 30 + base] for b = 0..29 as the binary digits of b (0: a wins).
_WINS = bytes.maketrans(b"\0\1\2", b"100")
WIN_VS: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(JUDGE[a * 900 + base:(a + 1) * 900:DECK_SIZE].translate(_WINS)[::-1], 2)
          for a in range(DECK_SIZE))
    for base in range(DECK_SIZE)
)


def _indices(a: str, b: str, base: str) -> tuple[int, int, int]:
    try:
        ia, ib, ic = INDEX[a], INDEX[b], INDEX[base]
    except KeyError as exc:
        raise ValueError(f"not a card: {exc.args[0]!r}") from None
    if len({ia, ib, ic}) != 3:
        raise ValueError(f"cards must be distinct: {a}, {b}, {base}")
    return ia, ib, ic


def judge(a: str, b: str, base: str) -> int:
    """The winner (0 or 1) of one game where player 0 plays `a`, player 1 `b` ("R3" codes)."""
    ia, ib, ic = _indices(a, b, base)
    return JUDGE[ia * 900 + ib * 30 + ic]


def win_reason(a: str, b: str, base: str) -> str:
    """Which rule decided the game: PAIR, HIGHER or RPS."""
    return _reason_index(*_indices(a, b, base))


# --- dealing ------------------------------------------------------------------------------
def new_full_deck(shuffle: Callable[[list[int]], None]) -> list[int]:
    """The 30-card full deck in index order, shuffled in place by `shuffle`; top = index 0."""
    deck = list(range(DECK_SIZE))
    shuffle(deck)
    return deck


def draft_offers(full_deck: list[int] | list[str], draft_round: int) -> tuple[list, list]:
    """The two cards each player is given in draft round `draft_round` (0-4).

    House ruling: from the top of the shuffled full deck, player 0 (the advantage holder)
    is given the first two cards of the round and player 1 the next two.
    """
    top = draft_round * 2 * DRAFT_DEAL
    return full_deck[top:top + 2], full_deck[top + 2:top + 4]


def remaining_after_draft(full_deck: list[int] | list[str]) -> list:
    """The ten cards of the full deck that nobody drafted (they become the base cards)."""
    return full_deck[DRAFT_ROUNDS * 2 * DRAFT_DEAL:]


def draft_pass(offer: list, pick: int) -> tuple:
    """(kept, passed): the picked card stays, the other goes to the opponent."""
    return offer[pick], offer[1 - pick]


def start_main(deck0: list, deck1: list, remaining: list,
               shuffle: Callable[[list], None]) -> tuple[list, list]:
    """Shuffle both player decks and the remaining deck (in that order, in place) and draw
    the opening hands: returns (hand0, hand1); the decks keep their undrawn cards, top first."""
    shuffle(deck0)
    shuffle(deck1)
    shuffle(remaining)
    hand0, hand1 = deck0[:HAND_SIZE], deck1[:HAND_SIZE]
    del deck0[:HAND_SIZE], deck1[:HAND_SIZE]
    return hand0, hand1


def draw(deck: list, hand: list) -> None:
    """Draw the top card of `deck` into `hand`, unless there is nothing to draw."""
    if deck:
        hand.append(deck.pop(0))


def match_winner(score0: int, score1: int) -> int | None:
    """More points wins the match; 5-5 is a drawn match (None)."""
    if score0 == score1:
        return None
    return 0 if score0 > score1 else 1


__all__ = [
    "CARDS", "DRAFT_ROUNDS", "GAMES", "HAND_SIZE", "HIGHER", "JUDGE", "PAIR", "PLAYER_DECK",
    "POINTS_PER_MATCH", "REMAINING", "RPS", "WIN_VS", "beats", "draft_offers", "draft_pass",
    "draw", "judge", "judge_index", "match_winner", "new_full_deck", "remaining_after_draft",
    "start_main", "win_reason",
]
