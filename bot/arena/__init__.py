"""The RPS Poker bot arena: the seed's tournament controller for Python and JavaScript bots.

`umpire arena` runs `bot.arena.cli:main`. The rules come from games.rps_poker.rules.
"""
