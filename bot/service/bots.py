"""The built-in bot runner: a bot seat's decision is made by a task of its own, through
the same `accept` path as a person's, and tried again when the store could not take it."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable

from bot.bots import resolve_bot
from bot.live import LiveMatch
from bot.service.clocks import in_break
from bot.service.errors import STORE_RETRY_SECONDS, NotStored
from bot.service.types import Accept
from bot.status import MatchStatus
from games.core import BotFactory, Command, Game, Prompt, Timeout
from games.core.contract import OnTimeout

log = logging.getLogger(__name__)

#: A bot seat's name to the factory of its player (None: no such bot).
BotResolver = Callable[[Game, str], BotFactory | None]


class BotRunner:
    """Moves for the built-in bots of the matches in `matches` (`think`: seconds a bot waits
    before its move; `resolve`: a bot's name to the factory that makes it)."""

    def __init__(self, matches: dict[int, LiveMatch], accept: Accept, *, think: float = 0.0,
                 resolve: BotResolver = resolve_bot) -> None:
        self.matches = matches
        self.accept = accept
        self.think = think
        self.resolve = resolve
        self.tasks: dict[tuple[int, str], asyncio.Task[None]] = {}
        self.tries: dict[tuple[int, str], int] = {}
        #: Whether this process may act on the match now (sharded: its shard's lease, by
        #: the wall clock: bot/store/fence.py); asked before a bot moves.
        self.acting: Callable[[LiveMatch], bool] = lambda match: True

    def schedule(self, match: LiveMatch) -> None:
        """Start a move for every pending decision of a bot seat (unless one is under way)."""
        if match.status != MatchStatus.ACTIVE:
            return
        for prompt in match.prompts:
            player = match.players[prompt.seat]
            key = (match.id, prompt.key)
            if player.bot is None or key in self.tasks or in_break(match, prompt.seat):
                continue
            self.start(match.id, prompt.key, player.bot, self.think)

    def settled(self, match_id: int, key: str) -> None:
        """The decision is closed: its tries are forgotten."""
        self.tries.pop((match_id, key), None)

    def forget(self, gone: set[int]) -> None:
        """Forget the tries of these matches (ended, or their shards lost)."""
        for key in [k for k in self.tries if k[0] in gone]:
            del self.tries[key]

    def cancel(self, gone: set[int] | None = None) -> list[asyncio.Task[None]]:
        """Cancel the moves under way (of these matches; None: all); the cancelled tasks."""
        tasks = [t for k, t in self.tasks.items() if gone is None or k[0] in gone]
        for task in tasks:
            task.cancel()
        return tasks

    def start(self, match_id: int, key: str, bot_name: str, delay: float) -> None:
        task = asyncio.create_task(self.move(match_id, key, bot_name, delay))
        token = (match_id, key)
        self.tasks[token] = task
        task.add_done_callback(
            lambda t, k=token: self.tasks.pop(k) if self.tasks.get(k) is t else None)  # type: ignore[misc]  # (mypy infers no lambda with defaults)

    async def move(self, match_id: int, key: str, bot_name: str, delay: float) -> None:
        await asyncio.sleep(delay)
        match = self.matches.get(match_id)
        if match is None or not self.acting(match):
            return
        async with match.lock:
            if not self.acting(match):
                return  # (its shard was lost while this waited for the lock)
            # Unregister first: after this move the same prompt may stay open (a resubmittable
            # decision), and the bot must then be scheduled again.
            self.tasks.pop((match_id, key), None)
            prompt = next((p for p in match.prompts if p.key == key), None)
            if prompt is None or match.status != MatchStatus.ACTIVE or \
                    in_break(match, prompt.seat):
                return  # (a bot held back by the break is scheduled when it ends)
            tries = self.tries.get((match_id, key), 0) + 1
            self.tries[(match_id, key)] = tries
            try:
                await self.step(match, prompt, bot_name, tries)
            except NotStored:  # nothing took effect: the bot tries the same move again later
                self.tries[(match_id, key)] = tries - 1
                self.start(match_id, key, bot_name, STORE_RETRY_SECONDS)

    async def step(self, match: LiveMatch, prompt: Prompt, bot_name: str, tries: int) -> None:
        """The bot's move for `prompt` (under the match lock), or the decision's timeout
        outcome when a bot cannot settle it, rather than leaving the match waiting."""
        key = prompt.key
        rng = random.Random(f"{match.seed}:{match.seq}:{key}")
        command = self.command(match, prompt, bot_name, rng) if tries <= 3 else None
        reply = await self.accept(match, prompt.seat, command, "bot") if command else None
        stuck = reply is None or not reply.accepted
        if stuck and prompt.on_timeout != OnTimeout.NOTHING and match.prompt_pending(key):
            await self.accept(match, prompt.seat, Timeout(prompt_key=key), "bot")

    def command(self, match: LiveMatch, prompt: Prompt, bot_name: str,
                rng: random.Random) -> Command | None:
        """The bot's decision, or the game's random player if the bot fails or is illegal."""
        factory = self.resolve(match.game, bot_name)
        if factory is not None:
            try:
                command = factory().choose(match.game.view(match.state, prompt.seat), prompt, rng)
                match.game.check(match.state, prompt.seat, command)
                return command
            except Exception:
                log.exception("bot %s failed in match %s; playing at random", bot_name, match.id)
        try:
            command = match.game.random_command(match.state, prompt, rng)
            match.game.check(match.state, prompt.seat, command)
            return command
        except Exception:
            log.exception("no legal random move for %s in match %s", prompt.key, match.id)
            return None
