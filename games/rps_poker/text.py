"""The wording of events and prompts (plain text, players as {P0}/{P1}, cards as emoji)."""

from __future__ import annotations

from games.core import seat_name
from games.rps_poker.cards import render, render_all
from games.rps_poker.rules import DRAFT_ROUNDS, GAMES, HIGHER, PAIR

REASONS = {
    PAIR: "a pair with the base card",
    HIGHER: "the higher number",
    "rps": "rock-paper-scissors",
}


def cards_phrase(cards: list[str]) -> str:
    return " and ".join(render(c) for c in cards) if len(cards) == 2 else render_all(cards, ", ")


def numbered(cards: list[str]) -> str:
    return "  ".join(f"{i}) {render(c)}" for i, c in enumerate(cards, 1))


def draft_dealt_private(round_no: int, seat: int, offer: list[str]) -> str:
    return (f"Draft round {round_no} of {DRAFT_ROUNDS}: you are given {cards_phrase(offer)}. "
            f"Keep one; the other goes to {seat_name(1 - seat)}.")


def draft_dealt_public(round_no: int) -> str:
    return f"Draft round {round_no} of {DRAFT_ROUNDS}: each player is given two cards."


def draft_prompt(round_no: int, seat: int, offer: list[str]) -> str:
    return (f"Draft round {round_no} of {DRAFT_ROUNDS}: keep {render(offer[0])} or "
            f"{render(offer[1])} (the other goes to {seat_name(1 - seat)}). "
            f"Type keep {render(offer[0])} (or keep {offer[0]}, or its number alone where the "
            f"other card has another), or a position #1 or #2.")


def draft_brief(round_no: int, offer: list[str]) -> str:
    return f"draft {round_no}/{DRAFT_ROUNDS}: keep {render(offer[0])} or {render(offer[1])}."


def play_brief(game_no: int, base: str, hand: list[str], score: list[int]) -> str:
    return (f"game {game_no}/{GAMES}, base {render(base)}, score {score[0]}-{score[1]}. "
            f"Hand: {numbered(hand)}.")


def play_prompt(game_no: int, base: str, hand: list[str], score: list[int]) -> str:
    positions = "#1" if len(hand) == 1 else f"#1 to #{len(hand)}"
    return (f"Game {game_no} of {GAMES}, base card {render(base)}, score {score[0]}-{score[1]}. "
            f"Your hand: {numbered(hand)}. Type play {render(hand[0])} (or play {hand[0]}, or "
            f"its number alone where no other card has it), or a position {positions}.")


def game_result(game_no: int, base: str, plays: list[str], winner: int, reason: str,
                score: list[int]) -> str:
    return (f"Game {game_no} of {GAMES}, base {render(base)}: {seat_name(0)} plays "
            f"{render(plays[0])}, {seat_name(1)} plays {render(plays[1])}. "
            f"{seat_name(winner)} wins with {REASONS[reason]}. "
            f"Score {seat_name(0)} {score[0]} - {score[1]} {seat_name(1)}.")


def match_result(score: list[int], winner: int | None) -> str:
    if winner is None:
        return f"The match is over: {score[0]}-{score[1]}, a drawn match."
    return (f"The match is over: {seat_name(winner)} wins {max(score)}-{min(score)} "
            f"({seat_name(0)} {score[0]} - {score[1]} {seat_name(1)}).")
