"""The Discord layer: the match service on discord.py.

- `runner.main(settings)`: `umpire run`.
- `client.UmpireBot`: the bot (host commands, routing, per-game cogs, buttons).
- `transport.DiscordTransport`: delivers the service's outbox to the match's channels.
- `games/<slug>.py`: optional per-game hooks (rules summary, button labels).
"""
