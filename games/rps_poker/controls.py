"""How Turn-based RPS Poker's decisions are presented: card buttons for draft picks and
plays (`contract.Controls`)."""

from __future__ import annotations

from games.core.contract import Controls


def card_label(choice: str) -> str:
    """"keep 🪨7" -> "🪨7": the button shows the card; the full text is submitted."""
    verb, _, card = choice.partition(" ")
    return card if verb in ("keep", "play") and card else choice


CONTROLS = Controls(
    summary=(
        "**Turn-based RPS Poker** in one breath: a 5-round draft (keep one of two cards, pass "
        "the other), then 10 games: both play a card at the same time against a shown base "
        "card. A pair with the base wins; else the higher number; else 🪨 beats ✂️ beats 📄 "
        "beats 🪨. Make every choice in your table channel: type `keep 🪨7` / `play R7` (or "
        "its position `#1`, `#2`), or press a card button."
    ),
    label=card_label,
)
