"""Wording of Double or Nothing events and prompts (plain text; players as {P0}/{P1})."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from games.core.contract import seat_name
from games.double_or_nothing.rules import JOKER, hand_line, render_set


def p(seat: int) -> str:
    return seat_name(seat)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def table_text(table: Sequence[str], values: Sequence[int]) -> str:
    """The table set with the jokers' fixed values: "5-J(6)-7", or "empty"."""
    if not table:
        return "empty (any set beats it)"
    return render_set(table, values)


def score_text(score: Sequence[int], target: int) -> str:
    return f"{p(0)} {score[0]}, {p(1)} {score[1]} (first to {target})"


def hand_token(seat: int, hand: Sequence[str]) -> str:
    """A short fingerprint of a seat's hand and its order ("h0x3f9a1c2b"): it appears only
    in that seat's own view, so the leak check can look for it everywhere else (short,
    because the check compiles a pattern of the secrets after every step). The two-world
    harness is the real check that nothing about a hand reaches the opponent."""
    digest = hashlib.blake2b(".".join(hand).encode(), digest_size=4).hexdigest()
    return f"h{seat}x{digest}"


def hand_text(seat: int, hand: Sequence[str]) -> str:
    """The private hand line a player reads after each move (positions 1-based)."""
    return f"Your hand ({plural(len(hand), 'card')}, position:card): {hand_line(hand)}"


def card_name(card: str) -> str:
    return "a joker" if card == JOKER else f"the {card}"


def where(hand: Sequence[str], position: int) -> str:
    """Where position `position` (0-based) of the hand after placing lies: "between 5 and 7"."""
    left = hand[position - 1] if position > 0 else None
    right = hand[position] if position < len(hand) else None
    if left is None and right is None:
        return "as your only card"
    if left is None:
        return f"at the front, before {right}"
    if right is None:
        return f"at the end, after {left}"
    return f"between {left} and {right}"
