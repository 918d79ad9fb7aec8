"""Decoder on Discord: text moves plus generic choice buttons and menus."""

from __future__ import annotations

from bot.discord.games import GameHooks

HOOKS = GameHooks(
    slug="decoder",
    summary=(
        "**Decoder** in one breath: earn letter tiles from your puzzle times, then take turns "
        "asking for words; guess and sabotage to empty the opponent's tanks. Setup choices go "
        "in your table channel; hosts lock setup with `/match lock`."
    ),
)
