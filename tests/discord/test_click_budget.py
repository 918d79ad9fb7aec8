"""Every game played to its end one move at a time by two members who click wherever the
umpire offers a button or menu (and type only where it offers none; Devil's Deal and Decoder
against their built-in bot), through the fake Discord with its rate limits: the requests the
bot's global rate limit counts (all but interaction callbacks and follow-ups, as on
Discord), per accepted move over the match's whole life, start and close included (issue 40).

A click is answered in its interaction: its channel's next post as the response, what
follows there as follow-ups (bot/discord/answer.py). The bound is per game and leaves out
the host log, which posts on its own timer whatever the players click (about one batch a
move at this pace: tests/discord/test_log_batch.py); the figure with it is printed.
Measured 2026-12-02, without the log / with it (the log's figure is the tests' scale's:
its batch interval is 0.02 times Discord's while the moves come at the test's own pace, so
here it batches about once a move; at the bench's pace it is about 0.1 a move):

| game | clicks acknowledged, table's next post only | answered, follow-ups for 10 s | answered, follow-ups until the next decision (load 7) |
| RPS Poker | 2.00 / 3.04 | 1.57 / 2.61 | 1.54 / 2.57 |
| Devil's Deal | 1.67 / 2.00 | 0.83 / 1.17 | 0.61 / 0.94 |
| Decoder | 1.05 / 1.68 | 0.42 / 1.01 | 0.23 / 0.75 to 0.79 |
| Renounce Fate | 1.84 / 2.69 | 1.31 / 2.16 | 0.31 / 1.16 |
| Double or Nothing | 2.33 / 3.04 | 1.33 / 2.04 | 0.79 / 1.50 |

What is left: a table move the room must learn of (RPS Poker's "has chosen": a room post of
its own for every move, 29 of its 43 requests without the log), a table's post that follows
a move made in the room, the start and close (8 to 12 requests).
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from bench.clicks import click_move, component_message
from bench.discord import typed_move
from bot.discord.places import channel_for
from bot.live import LiveMatch
from games.core.contract import Prompt
from games.registry import PREFERRED_ORDER
from testbed.fake_discord.server import FakeDiscord
from tests.discord.conftest import (
    Umpire,
    World,
    assert_channels_match_outbox,
    channel_of,
    start_match,
    start_vs_bot,
    umpire,
)
from tests.support.driver import drive

pytestmark = pytest.mark.slow  # about 5 s a game on a quiet machine

#: Global requests per accepted move, the host log left out: the figures above (follow-ups
#: until the next decision) and about 20 % for timing (the moves are random, and a
#: response depends on how soon its post comes: the test is load-sensitive).
MOST_PER_MOVE = {"rps-poker": 1.85, "devils-deal": 0.75, "decoder": 0.3,
                 "renounce-fate": 0.4, "double-or-nothing": 0.95}
#: Each game's opponent (a built-in bot where two random players would take hundreds of
#: moves) and settings that keep the match short (the game's own rules otherwise).
OPPONENT = {"devils-deal": "dealer", "decoder": "deducer"}
SETTINGS = {
    "rps-poker": "",
    "devils-deal": "starting_chips=12 break_seconds=0",
    "decoder": "time_bank=60 lock_when_ready=true fix_seconds=0",
    "renounce-fate": "starting_chips=6 break_seconds=0",
    "double-or-nothing": "target=3 hand_size=6",
}
EXEMPT = ("/interactions/", "/webhooks/")  # outside the global limit, as on Discord


def global_requests(fake: FakeDiscord, start: int, match: LiveMatch) -> Counter[str]:
    """The requests from `start` on that the global limit counts, by where they went: the
    posts to the room, the tables and the host log, and the rest (a match's start and close:
    its channels, their permissions)."""
    kinds = {str(channel_for(match.transport, a)): a for a in ("public", "seat0", "seat1",
                                                                "umpire")}
    out: Counter[str] = Counter()
    for e in fake.request_log[start:]:
        if e.path.startswith(EXEMPT) or "/interactions/" in e.path:
            continue
        found = re.fullmatch(r"/channels/(\d+)/messages", e.path)
        out[kinds.get(found.group(1), "other") if found and e.method == "POST" else "other"] += 1
    return out


async def play_one_move(world: World, up: Umpire, match: LiveMatch, prompt: Prompt,
                        rng: random.Random) -> bool:
    """One move for `prompt`: clicked if its message has a component, else typed. Whether
    the umpire took it (a decision may refuse a repeat: Decoder's second "ready")."""
    users = (world.alice, world.bob)
    user = users[prompt.seat]
    channel = channel_of(world, match, f"seat{prompt.seat}" if prompt.private else "public")
    message = component_message(world.fake, channel, prompt.key)
    seq = match.seq
    if message is None or not await click_move(world.fake, user, message, prompt.key, rng):
        text = typed_move(match, prompt, rng)
        if text is None:
            return False
        await world.fake.send_user_message(user, channel, text)
    await world.fake.wait_for(lambda: match.seq != seq or match.status != "active", 10)
    return True


async def play_by_clicks(world: World, up: Umpire,
                         game: str) -> tuple[Counter[str], int, LiveMatch]:
    """(global requests by where, accepted moves, the match) of one match played to its
    end."""
    fake = world.fake
    rng = random.Random(f"clicks-{game}")
    start = len(fake.request_log)
    options = {"seed": f"clicks-{game}", **({"settings": SETTINGS[game]} if SETTINGS[game]
                                            else {})}
    match = await (start_vs_bot(world, up, game, OPPONENT[game], **options)
                   if game in OPPONENT else start_match(world, up, game, **options))
    for _ in range(600):
        await fake.wait_for(lambda: match.status != "active" or bool(match.prompts), 10)
        if match.status != "active":
            break
        await up.idle(fake)
        if match.status != "active" or not match.prompts:
            continue
        for prompt in list(match.prompts):
            if await play_one_move(world, up, match, prompt, rng):
                break
    assert match.status == "finished", (match.status, match.prompts, match.seq)
    await fake.wait_for(lambda: bool(match.transport.get("closed")), 10)
    await up.idle(fake)
    moves = len(await drive(up.service).actions(match.id))
    return global_requests(fake, start, match), moves, match


@pytest.mark.parametrize("game", PREFERRED_ORDER)
async def test_every_game_clicked_to_its_end_within_the_budget(world: World, game: str) -> None:
    async with umpire(world) as up:
        requests, moves, match = await play_by_clicks(world, up, game)
        await assert_channels_match_outbox(world, up, match)  # each post exactly once
        total = sum(requests.values())
        answers = up.transport.answers
        print(f"\n{game}: {total} global requests, {moves} moves, {total / moves:.2f} per move "
              f"({dict(requests)}); {answers.responses} responses, "
              f"{answers.followups} follow-ups")
        per_move = (total - requests["umpire"]) / moves
        assert per_move <= MOST_PER_MOVE[game], (game, dict(requests), moves)
