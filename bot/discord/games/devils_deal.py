"""Devil's Deal on Discord: text moves plus generic choice buttons (yes/no, bets, takes)."""

from __future__ import annotations

from bot.discord.games import GameHooks

HOOKS = GameHooks(
    slug="devils-deal",
    summary=(
        "**Devil's Deal** in one breath: refill your pool by dividing random cards into piles "
        "of equal sum, then play 3-card poker with two betting phases; the first player who "
        "cannot go on loses. Public decisions (refills, takes, bets) go in the game room, your "
        "private cards in your table channel."
    ),
)
