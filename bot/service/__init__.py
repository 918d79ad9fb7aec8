"""The pieces of the match service (`bot.umpire.MatchService` is their facade): the match
table, the clock keeper, the built-in bot runner, the command path, the hosts' actions,
resume, and the readers. Each gets what it needs explicitly; none imports `bot.umpire`."""
