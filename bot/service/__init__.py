"""The pieces of the match service, wired by its facade `bot.umpire.MatchService`: the
match table, the clock keeper and its channel stops, the built-in bot runner, the command
path, the hosts' actions, resume, the readers and the end hooks. Each gets what it needs
explicitly (the table, the repository, the delivery, a narrow callback); none imports
`bot.umpire` (tests/bot/test_import_graph.py)."""
