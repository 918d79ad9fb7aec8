"""The host log batched per server: 20 concurrent matches on one server, the bot's own
intervals under Discord's real limits. Every entry reaches the log within 10 s of being
written, in order per match, one batch per 5 s of at most 4 posts (Discord allows 5
messages per 5 s in a channel) and no 429;
a match whose players could read the log has no entry in a batch."""

from __future__ import annotations

import asyncio
import random
import re
from datetime import UTC
from types import SimpleNamespace
from typing import Any

from bot.discord.host_log import (
    LOG_BATCH_SECONDS,
    LOG_PARTS_PER_BATCH,
    LOG_PIECE,
    LOG_QUIET_FACTOR,
    LOG_WINDOW_SECONDS,
    fit,
    posts_of,
)
from bot.discord.marker import read_mark
from testbed.fake_discord import permissions as P
from testbed.fake_discord.limits import RateLimits
from tests.discord.conftest import (
    World,
    assert_log_has,
    bot_posts,
    channel_of,
    log_lines,
    umpire,
)
from tests.support.driver import drive

ENTRY = re.compile(r"\n(?=\*\*#\d+\*\* <t:)")


async def start(world: World, up: Any, p0: Any, p1: Any) -> Any:
    fake = world.fake
    before = set(up.service.matches)
    inter = await fake.slash_command(world.host, world.general, "match start",
                                     game="rps-poker", player1=p0, player2=p1)
    await fake.wait_for(lambda: inter.original is not None and "started" in
                        (inter.original.content or ""), 20)
    [match_id] = set(up.service.matches) - before
    return up.service.matches[match_id]


async def start_pairs(world: World, up: Any, count: int) -> list[Any]:
    """`count` matches on the server between new members, started and settled."""
    members = [world.fake.add_member(world.guild, f"p{i}") for i in range(2 * count)]
    matches = [await start(world, up, members[2 * i], members[2 * i + 1])
               for i in range(count)]
    await up.idle(world.fake)
    return matches


async def play(up: Any, match: Any, moves: int, rng: random.Random,
               pace: tuple[float, float] = (0.5, 2.5)) -> None:
    """`moves` random moves, each `pace` seconds after the last (a brisk person's)."""
    for _ in range(moves):
        if match.status != "active" or not match.prompts:
            return
        prompt = rng.choice(match.prompts)
        await asyncio.sleep(rng.uniform(*pace))
        command = match.game.random_command(match.state, prompt, rng)
        await up.service.submit_command(match.id, prompt.seat, command)


async def test_twenty_matches_on_one_server_every_log_entry_within_ten_seconds(
        world: World) -> None:
    fake, rng = world.fake, random.Random(3)
    async with umpire(world) as up:
        matches = await start_pairs(world, up, 20)
        # the play on Discord's real numbers and the bot's own intervals (the starts above
        # on the suite's scale: 80 channels made at Discord's pace would take 80 s)
        fake.limits = RateLimits()
        up.transport.pacer.window = 1.0
        up.transport.host_log.batch_seconds = LOG_BATCH_SECONDS
        up.transport.host_log.window = LOG_WINDOW_SECONDS
        first = len(bot_posts(world, channel_of(world, matches[0], "umpire")))
        await asyncio.gather(*(play(up, m, 10, rng) for m in matches))
        try:
            await fake.wait_for(lambda: drive(up.service).idle(), 30)
        except TimeoutError:
            d = drive(up.service)
            print("DEBUG", d.sending(), d.down(),
                  {c: len(v) for c, v in up.transport.host_log._pending.items()},
                  up.transport.host_log._flushers, d.failures[:3])
            raise
        await up.idle(fake)
        log = channel_of(world, matches[0], "umpire")
        posts = bot_posts(world, log)
        # one batch per 5 s at most, of at most 4 posts (Discord allows 5 messages per 5 s
        # in a channel): Discord never answered 429
        times = sorted(p.timestamp for p in posts[first:])
        starts = [i for i, t in enumerate(times)
                  if i == 0 or (t - times[i - 1]).total_seconds() > 1]
        assert all((times[b] - times[a]).total_seconds() >= LOG_BATCH_SECONDS - 0.5
                   for a, b in zip(starts, starts[1:], strict=False))
        sizes = [b - a for a, b in zip(starts, [*starts[1:], len(times)], strict=True)]
        assert max(sizes) <= LOG_PARTS_PER_BATCH and len(starts) >= 3
        assert fake.limits.limited == 0
        late, entries = [], 0
        for match in matches:
            outbox = [m for m in await drive(up.service).messages(match.id)
                      if m.audience == "umpire"]
            assert assert_log_has(world, match, outbox) == len(outbox) > 3  # in order
            entries += len(outbox)
            arrived = [post.timestamp for post in posts
                       for entry in ENTRY.split("\n".join([read_mark(post.content)[0], *(
                           e.get("description", "") for e in post.embeds)]))
                       if entry.startswith(f"**#{match.id}** ")]
            for message, at in zip(outbox, arrived, strict=True):
                created = message.created_at.replace(tzinfo=message.created_at.tzinfo or UTC)
                if (at - created).total_seconds() > 10:
                    late.append((match.id, message.id, (at - created).total_seconds()))
        assert late == []
        assert len(posts) < entries / 3  # batched: many entries to a post


def batch_starts(posts: list[Any], apart: float) -> list[Any]:
    """When each batch went: the first post of every run of posts less than `apart` s apart
    (a batch of several posts goes at once)."""
    times = sorted(p.timestamp for p in posts)
    return [t for i, t in enumerate(times) if i == 0 or (t - times[i - 1]).total_seconds() > apart]


async def entry_lags(world: World, up: Any, match: Any, posts: list[Any]) -> list[float]:
    """Seconds from each of the match's log entries being written to its post."""
    outbox = [m for m in await drive(up.service).messages(match.id) if m.audience == "umpire"]
    assert assert_log_has(world, match, outbox) == len(outbox)  # all there, in order
    arrived = [post.timestamp for post in posts
               for entry in ENTRY.split("\n".join([read_mark(post.content)[0], *(
                   e.get("description", "") for e in post.embeds)]))
               if entry.startswith(f"**#{match.id}** ")]
    return [(at - m.created_at.replace(tzinfo=m.created_at.tzinfo or UTC)).total_seconds()
            for m, at in zip(outbox, arrived, strict=True)]


async def test_a_match_alone_on_its_server_posts_its_log_every_one_and_a_half_intervals(
        world: World) -> None:
    """A quiet log (one match) waits LOG_QUIET_FACTOR intervals between batches, here 1.5 s
    at an interval of 1 s, where a busy one keeps 1 s: fewer posts per move for a match
    played alone; no entry waits longer than those 1.5 s (and the post's own time)."""
    fake, rng = world.fake, random.Random(7)
    interval = 1.0
    async with umpire(world, log_batch_seconds=interval) as up:
        match = await start(world, up, world.alice, world.bob)
        await up.idle(fake)
        log = channel_of(world, match, "umpire")
        first = len(bot_posts(world, log))
        await play(up, match, 40, rng, pace=(0.1, 0.5))
        await up.idle(fake)
        posts = bot_posts(world, log)[first:]
        starts = batch_starts(posts, 0.3)
        gaps = sorted((b - a).total_seconds() for a, b in zip(starts, starts[1:], strict=False))
        # (an entry written while its match's last one was being posted may bring a batch
        # forward: the median, not every gap)
        assert len(gaps) >= 3 and gaps[len(gaps) // 2] >= interval * LOG_QUIET_FACTOR - 0.1, gaps
        lags = await entry_lags(world, up, match, bot_posts(world, log))
        assert max(lags) <= interval * LOG_QUIET_FACTOR + 0.5, lags


async def test_a_log_of_three_matches_is_busy_and_keeps_its_interval(world: World) -> None:
    """Three matches on one server (more than LOG_QUIET_MATCHES): the log takes a batch once
    per interval, not once per 1.5 intervals."""
    fake, rng = world.fake, random.Random(8)
    interval = 1.0
    async with umpire(world, log_batch_seconds=interval) as up:
        matches = await start_pairs(world, up, 3)
        log = channel_of(world, matches[0], "umpire")
        first = len(bot_posts(world, log))
        await asyncio.gather(*(play(up, m, 20, rng, pace=(0.05, 0.25)) for m in matches))
        await up.idle(fake)
        starts = batch_starts(bot_posts(world, log)[first:], 0.3)
        gaps = sorted((b - a).total_seconds() for a, b in zip(starts, starts[1:], strict=False))
        assert len(gaps) >= 3 and gaps[len(gaps) // 2] < interval * LOG_QUIET_FACTOR - 0.2, gaps


async def test_a_batch_leaves_out_the_entries_of_a_match_whose_player_reads_the_log(
        world: World) -> None:
    """bob (a player of match A) is made Administrator: A's entries are held, match B's on
    the same server still go out in the server's batches; A's follow once bob lost it."""
    fake, rng = world.fake, random.Random(5)
    p0, p1 = fake.add_member(world.guild, "p0"), fake.add_member(world.guild, "p1")
    async with umpire(world) as up:
        a = await start(world, up, world.alice, world.bob)
        b = await start(world, up, p0, p1)
        await up.idle(fake)
        log = channel_of(world, a, "umpire")

        def entries(match: Any) -> int:
            return sum(1 for line in log_lines(world, log) if line.startswith(f"**#{match.id}** "))

        assert entries(a) > 0 and entries(b) > 0
        admins = fake.add_role(world.guild, "Admins", permissions=P.ADMINISTRATOR)
        fake.add_member_role(world.guild, world.bob, admins)
        await fake.sync()
        assert fake.can_view(world.bob, log)
        seen_a, seen_b = entries(a), entries(b)
        await play(up, a, 2, rng)
        await play(up, b, 2, rng)
        await fake.wait_for(lambda: entries(b) > seen_b, 10)
        await fake.wait_for(lambda: drive(up.service).down_since(a.id, "umpire"), 10)
        await asyncio.sleep(1)  # a few batches later
        assert entries(a) == seen_a  # nothing of A while bob reads the log
        fake.remove_member_role(world.guild, world.bob, admins)
        await fake.wait_for(lambda: entries(a) > seen_a, 20)
        await up.idle(fake)
        assert assert_log_has(world, a, [m for m in await drive(up.service).messages(a.id)
                                         if m.audience == "umpire"]) > seen_a


async def test_a_batch_waits_for_entries_whose_hand_over_is_slow(world: World) -> None:
    """Three matches on one server; the privacy check of one of them, as its entries are
    handed over, takes 0.3 s (a request or two under load), where `batch_due` returns only
    0.1 s before the batch and the other two hand theirs over at once: the batch waits for
    the slow match, whose entries never go one batch later."""
    fake, rng = world.fake, random.Random(9)
    interval = 1.0
    async with umpire(world, log_batch_seconds=interval) as up:
        matches = await start_pairs(world, up, 3)
        log = channel_of(world, matches[0], "umpire")
        check, slow, slowed = up.transport.check, matches[0].id, []

        async def slow_hand_over(match: Any, audience: str, channel_id: int) -> None:
            task = asyncio.current_task()
            if match.id == slow and audience == "umpire" and task is not None and \
                    not task.get_name().startswith("log-"):  # (not the batch's own check)
                slowed.append(match.id)
                await asyncio.sleep(0.3)
            await check(match, audience, channel_id)

        up.transport.check = slow_hand_over
        await asyncio.gather(*(play(up, m, 12, rng, pace=(0.05, 0.4)) for m in matches))
        await up.idle(fake)
        lags = await entry_lags(world, up, matches[0], bot_posts(world, log))
        assert len(slowed) >= 2 and len(lags) > 10
        assert max(lags) <= interval + 0.7, sorted(lags)[-5:]


def test_a_batch_over_its_budget_takes_every_entry_that_fits_its_posts() -> None:
    """A batch with more entries than its posts left in the window hold takes the most that
    fit, by the posts' own split (a busy log is near its budget: an entry left out that
    fitted waits a whole batch more), and never splits off an entry that did not fit."""
    line = "x" * 69
    entries: list[Any] = [SimpleNamespace(text="\n".join([f"**#{i}** {line}", *[line] * 5]))
                          for i in range(60)]
    for parts in (1, 2, 3):
        fitted, rest = fit(entries, parts)
        assert fitted + rest == entries
        posts = posts_of
        assert len(posts("\n".join(e.text for e in fitted))) <= parts
        assert len(posts("\n".join(e.text for e in entries[:len(fitted) + 1]))) > parts
        # (more than the old estimate of 90 % of each post's characters took)
        assert len(fitted) > parts * 4 * LOG_PIECE * 9 // 10 // (len(entries[0].text) + 1)
    assert fit(entries[:1], 1) == (entries[:1], [])
