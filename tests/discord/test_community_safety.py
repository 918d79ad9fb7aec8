"""Issue 26, findings 5-7 on the fake Discord: a channel serves one running match; the seed
commitment is salted and a host-chosen seed is announced and unrated; challenges and friendly
matches are limited per pair; names are escaped; a host who plays never referees their match;
autocomplete answers in time; settings errors name the setting; public reads have a cooldown."""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.console.records import transcript_text
from bot.ratings import history
from bot.store.models import ChallengeRow
from testbed.fake_discord.models import Interaction, Message, User
from testbed.fake_discord.server import FakeDiscord
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive


async def answer(fake: FakeDiscord, inter: Interaction) -> str:
    """The bot's (finished) answer to a command."""
    await fake.wait_for(lambda: inter.finished and inter.answer is not None, 10)
    assert inter.answer is not None
    return inter.answer.content or ""


async def test_a_running_matchs_room_or_table_cannot_serve_another_match(world: World) -> None:
    fake = world.fake
    carol = fake.add_member(world.guild, "carol")
    async with umpire(world) as up:
        first = await start_rps(world, up)
        room, table = channel_of(world, first, "public"), channel_of(world, first, "seat1")
        for option in ({"room": room}, {"table1": table}):
            before = {m.id for m in fake.messages(room)} | {m.id for m in fake.messages(table)}
            inter = await fake.slash_command(world.host, world.general, "match start",
                                             game="rps-poker", player1=carol, player2=world.eve,
                                             **option)
            text = await answer(fake, inter)
            assert inter.answer.ephemeral, "the refusal is for the host only"
            assert f"match #{first.id}" in text and "still running" in text, text
            assert list(up.service.matches) == [first.id]
            await up.idle(fake)
            after = {m.id for m in fake.messages(room)} | {m.id for m in fake.messages(table)}
            assert after == before, "nothing was posted in the held channels"
        # Once the first match is over, its room may serve another.
        done = await fake.slash_command(world.host, world.general, "match abort", match=first.id)
        await answer(fake, done)
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=carol, player2=world.eve,
                                         room=room)
        assert "started" in await answer(fake, inter)


async def test_a_host_chosen_short_seed_is_hidden_announced_and_unrated(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up, seed="11")
        header = bot_posts(world, channel_of(world, match, "public"))[0].content
        assert match.commitment in header
        assert hashlib.sha256(b"11").hexdigest() not in header
        assert match.salt is not None and len(bytes.fromhex(match.salt)) >= 16
        assert "chosen by a host" in header and "unrated" in header
        assert match.transport.get("unrated") is True
        assert match.salt not in header
        salt = match.salt
    async with umpire(world) as up:  # the salt is stored with the match
        assert up.service.matches[match.id].salt == salt
        done = await fake.slash_command(world.host, world.general, "match abort", match=match.id)
        await answer(fake, done)
        await up.idle(fake)
        last = bot_posts(world, channel_of(world, match, "public"))[-1].content
        assert f"`{salt}`" in last and "`11`" in last, last
        record = await up.service.export(match.id)
        assert (record["seed"], record["seed_salt"]) == ("11", salt)
        assert record["seed_commitment"] == hashlib.sha256(f"{salt}:11".encode()).hexdigest()


async def test_a_host_who_plays_cannot_referee_their_match_even_after_it_ended(
        world: World) -> None:
    fake = world.fake
    harriet = fake.add_member(world.guild, "harriet", roles=[world.host_role])
    hannah = world.host  # a host, and a player of this match
    async with umpire(world) as up:
        await fake.sync()
        inter = await fake.slash_command(harriet, world.general, "match start", game="rps-poker",
                                         player1=hannah, player2=world.bob)
        assert "started" in await answer(fake, inter)
        [match] = drive(up.service).matches()
        for command, options in [("match abort", {}), ("match unrated", {}),
                                 ("match export", {})]:
            inter = await fake.slash_command(hannah, world.general, command, match=match.id,
                                             **options)
            assert "You play in match" in await answer(fake, inter), command
            assert inter.answer.ephemeral and not inter.answer.attachments
        assert match.status == "active" and not match.transport.get("unrated")
        lost = await fake.slash_command(harriet, world.general, "match award", match=match.id,
                                        player=world.bob)
        await answer(fake, lost)
        assert match.status == "finished" and match.result["winner"] == 1
        await up.idle(fake)
        for command, options in [("match unrated", {}), ("match award", {"player": hannah}),
                                 ("match abort", {}), ("match export", {}),
                                 ("match delete", {})]:
            inter = await fake.slash_command(hannah, world.general, command, match=match.id,
                                             **options)
            text = await answer(fake, inter)
            assert "You play in match" in text and "another host" in text, (command, text)
            assert not inter.answer.attachments
        engine, pid = drive(up.service).engine, f"discord:{hannah.id}"
        [line] = await history(engine, world.guild.id, pid)
        assert line.rated and line.outcome == "loss", "the loss still counts"
        other = await fake.slash_command(harriet, world.general, "match unrated", match=match.id)
        assert "no longer counts" in await answer(fake, other)
        [line] = await history(engine, world.guild.id, pid)
        assert not line.rated


def _challenge_posts(world: World) -> list[Message]:
    return [m for m in bot_posts(world, world.general) if "⚔️" in m.content]


async def _challenge(world: World, who: User, whom: User) -> Interaction:
    return await world.fake.slash_command(who, world.general, "challenge", member=whom,
                                          game="rps-poker")


async def test_a_repeated_challenge_is_refused_privately_and_pings_no_one(world: World) -> None:
    fake = world.fake
    owner = fake.users[world.guild.owner_id]
    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=0) as up:
        first = await _challenge(world, world.alice, world.bob)
        await answer(fake, first)
        assert len(_challenge_posts(world)) == 1
        for who, whom in ((world.alice, world.bob), (world.bob, world.alice)):
            again = await _challenge(world, who, whom)
            text = await answer(fake, again)
            assert again.answer.ephemeral and ("still open" in text or "already challenged"
                                               in text), text
        await fake.settle()
        assert len(_challenge_posts(world)) == 1, "the repeat posted (and pinged) nothing"
        # The server's cooldown: one challenge per member every N seconds.
        saved = await fake.slash_command(owner, world.general, "umpire settings",
                                         challenge_cooldown=3600)
        assert "challenge cooldown: 3600 s" in await answer(fake, saved)
        other = await _challenge(world, world.alice, world.eve)
        text = await answer(fake, other)
        assert other.answer.ephemeral and "3600 s" in text and "try again" in text, text
        assert len(_challenge_posts(world)) == 1
        # Another member is not held by alice's cooldown.
        eve = await _challenge(world, world.eve, world.alice)
        assert "Challenge posted" in await answer(fake, eve)
        assert len(_challenge_posts(world)) == 2
        assert not up.service.matches


async def test_one_running_friendly_match_per_pair(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=0) as up:
        await answer(fake, await _challenge(world, world.alice, world.bob))
        message = _challenge_posts(world)[-1]
        accept = next(str(c["custom_id"]) for c in message.iter_components()
                      if str(c.get("custom_id", "")).endswith(":a"))
        await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: up.service.matches, 10)
        [match] = drive(up.service).matches()
        await up.idle(fake)
        channels_before = len(fake.channels)
        for who, whom in ((world.alice, world.bob), (world.bob, world.alice)):
            again = await _challenge(world, who, whom)
            text = await answer(fake, again)
            assert again.answer.ephemeral and f"friendly match #{match.id}" in text, text
        assert len(_challenge_posts(world)) == 1 and list(up.service.matches) == [match.id]
        assert len(fake.channels) == channels_before
        # With someone else, a friendly match is fine.
        assert "Challenge posted" in await answer(fake, await _challenge(world, world.alice,
                                                                          world.eve))


MASKED_LINK = re.compile(r"(?<!\\)\[[^\]\n]*\]\([^)\n]*\)")


async def test_a_masked_link_nickname_is_repeated_as_plain_text(world: World) -> None:
    fake = world.fake
    nick = "[gift](https://example.invalid/x)"
    mallory = fake.add_member(world.guild, "mallory", nick=nick)
    async with umpire(world, friendly_matches=True) as up:
        await answer(fake, await _challenge(world, mallory, world.bob))
        [posted] = _challenge_posts(world)
        assert "gift" in posted.content and not MASKED_LINK.search(posted.content), \
            posted.content
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=mallory, player2=world.bob)
        started = await answer(fake, inter)
        assert "gift" in started and not MASKED_LINK.search(started), started
        [match] = drive(up.service).matches()
        await up.idle(fake)
        room = channel_of(world, match, "public")
        board = await fake.slash_command(world.eve, room, "board")
        await answer(fake, board)
        [embed] = bot_posts(world, room)[-1].embeds
        shown = " ".join([embed.get("title", ""), embed.get("description", ""),
                          *(f["value"] for f in embed.get("fields", []))])
        assert "gift" in embed.get("title", "") and not MASKED_LINK.search(shown), shown
        record = await up.service.export(match.id)
        assert not MASKED_LINK.search(transcript_text(record, match.players))


async def test_board_has_a_per_member_cooldown_answered_privately(world: World) -> None:
    fake = world.fake
    async with umpire(world, read_cooldown_seconds=30) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        first = await fake.slash_command(world.eve, room, "board")
        assert "Board posted" in await answer(fake, first)
        boards = [m for m in bot_posts(world, room) if m.embeds]
        again = await fake.slash_command(world.eve, room, "board")
        text = await answer(fake, again)
        assert again.answer.ephemeral and "30 s" in text and "try again" in text, text
        for _ in range(2):  # told once: then silence until the cooldown ends
            more = await fake.slash_command(world.eve, room, "board")
            await fake.settle()
            assert more.original is None or more.original.deleted, more.original
        await fake.settle()
        assert [m for m in bot_posts(world, room) if m.embeds] == boards
        other = await fake.slash_command(world.host, room, "board")  # per member
        assert "Board posted" in await answer(fake, other)
        hist = await fake.slash_command(world.eve, room, "history")
        await answer(fake, hist)
        hist2 = await fake.slash_command(world.eve, room, "history")
        assert "try again" in await answer(fake, hist2)  # (its own cooldown, told once)


class _SlowConnect:
    """`engine.connect()` whose opening takes 3 s (without blocking the event loop)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def __aenter__(self) -> Any:
        await asyncio.sleep(3)
        return await self.conn.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.conn.__aexit__(*exc)


async def test_match_autocomplete_answers_in_time_when_the_store_is_slow(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of the store takes 3 s: the choices still come inside Discord's 3 s (the
    fake answers "Unknown interaction" after that), from memory, with the running match."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        connect = AsyncEngine.connect
        monkeypatch.setattr(AsyncEngine, "connect", lambda self: _SlowConnect(connect(self)))
        began = time.monotonic()
        choices = await fake.autocomplete(world.host, world.general, "match status", "match",
                                          timeout=10)
        took = time.monotonic() - began
        assert took < 2.5, f"answered after {took:.1f} s"
        assert [c["value"] for c in choices] == [match.id]
        assert choices[0]["name"].startswith(f"#{match.id} rps-poker: alice vs bob")
        monkeypatch.undo()


async def test_a_settings_value_out_of_range_is_answered_with_the_setting_and_its_range(
        world: World) -> None:
    fake = world.fake
    owner = fake.users[world.guild.owner_id]
    async with umpire(world) as up:
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice,
                                         player2=world.bob, settings="decision_seconds=1e12")
        text = await answer(fake, inter)
        assert inter.answer.ephemeral
        assert "decision_seconds" in text and "more than 0" in text and "at most 86400" in text
        assert "went wrong" not in text and not up.service.matches
        saved = await fake.slash_command(owner, world.general, "umpire settings",
                                         game="devils-deal", game_settings="bet_seconds=-5")
        text = await answer(fake, saved)
        assert "Nothing was changed" in text and "bet_seconds" in text and \
            "at least 0, at most 86400" in text, text


async def test_an_accept_while_the_pair_plays_a_friendly_match_is_refused(world: World) -> None:
    """Two open challenges of the same pair (which /challenge no longer allows, even after a
    restart: the first is set aside in the store while the second is posted): accepting the
    second while the first one's match runs starts nothing."""
    fake = world.fake

    def accept_of(message: Message) -> str:
        return next(str(c["custom_id"]) for c in message.iter_components()
                    if str(c.get("custom_id", "")).endswith(":a"))

    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=0) as up:
        await answer(fake, await _challenge(world, world.alice, world.bob))
        rows = ChallengeRow.__table__
        async with drive(up.service).engine.begin() as conn:
            await conn.execute(rows.update().values(answered_at=datetime.now(UTC)))
        await answer(fake, await _challenge(world, world.alice, world.bob))
        first, second = _challenge_posts(world)
        async with drive(up.service).engine.begin() as conn:
            await conn.execute(rows.update().where(rows.c.message_id == int(first.id))
                               .values(answered_at=None))
        await fake.click_button(world.bob, first, accept_of(first))
        await fake.wait_for(lambda: up.service.matches, 10)
        [match] = drive(up.service).matches()
        await up.idle(fake)
        channels_before = len(fake.channels)
        refused = await fake.click_button(world.bob, second, accept_of(second))
        await fake.wait_for(lambda: refused.followups, 10)
        assert f"friendly match #{match.id}" in refused.followups[0].content
        assert refused.followups[0].ephemeral
        await up.idle(fake)
        assert list(up.service.matches) == [match.id] and len(fake.channels) == channels_before


async def test_an_open_challenge_stops_blocking_after_an_hour(tmp_path: Path) -> None:
    """(The open challenges are stored: the limits read them from the database, on a clock
    the test moves.)"""
    from types import SimpleNamespace

    from bot.discord.friendly import ChallengeLimits
    from bot.facade import UmpireApi
    from bot.store.challenges import ChallengeStore
    from bot.store.database import create_engine
    from bot.store.repository import Repository

    repo = Repository(create_engine(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"))
    await repo.migrate()
    bot = SimpleNamespace(api=UmpireApi(SimpleNamespace(matches={}, repo=repo)))  # type: ignore[arg-type]
    alice = SimpleNamespace(id=1, display_name="alice")
    bob = SimpleNamespace(id=2, display_name="bob")
    now = [datetime(2026, 11, 26, 12, tzinfo=UTC)]
    limits = ChallengeLimits(ChallengeStore(repo), now=lambda: now[0])
    posted = SimpleNamespace(id=9, jump_url="https://discord.com/channels/7/8/9")
    try:
        await limits.opened(7, 1, 2, "rps-poker", posted)  # type: ignore[arg-type]
        assert "still open" in (await limits.refusal(bot, 7, alice, bob, 0) or "")
        assert "already challenged you" in (await limits.refusal(bot, 7, bob, alice, 0) or "")
        assert await limits.refusal(bot, 8, alice, bob, 0) is None  # another server
        now[0] += timedelta(seconds=ChallengeLimits.PENDING_SECONDS + 1)
        assert await limits.refusal(bot, 7, alice, bob, 0) is None
    finally:
        await repo.close()
