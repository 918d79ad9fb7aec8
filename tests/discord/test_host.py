"""Host commands, the rules command, exports, unreachable channels, `umpire run` without token."""

from __future__ import annotations

import json

from bot.config import DiscordSettings, Settings
from bot.discord import runner
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_match,
    start_rps,
    umpire,
)
from tests.support.driver import drive


async def test_pause_extend_resume_status_and_abort(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        key = match.prompts[0].key
        limit = match.clocks[key].limit_at
        done = await fake.slash_command(world.host, room, "match pause")
        assert done.response.ephemeral and match.status == "paused"
        typed = await fake.send_user_message(world.alice, channel_of(world, match, "seat0"),
                                             match.prompts[0].choices[0])
        reply = await fake.wait_for_message(channel_of(world, match, "seat0"), from_bot=True,
                                            after=typed)
        assert "paused" in reply.content and match.seq == 0
        await fake.slash_command(world.host, room, "match resume")
        assert match.status == "active"
        await fake.slash_command(world.host, room, "match extend", seconds=60, player=world.bob)
        assert match.clocks[key].limit_at > limit  # alice's clock: shifted by the pause only
        bob_key = next(p.key for p in match.prompts if p.seat == 1)
        assert (match.clocks[bob_key].limit_at - match.clocks[key].limit_at).total_seconds() >= 59
        status = await fake.slash_command(world.host, world.general, "match status")
        assert "Waiting for alice" in status.response.content and status.response.ephemeral
        # Prefix form works as well: a ranged number typed is converted and checked.
        before = match.clocks[bob_key].limit_at
        typed = await fake.send_user_message(world.host, room, "!match extend 90")
        await fake.wait_for(lambda: match.clocks[bob_key].limit_at > before, 10)
        assert (match.clocks[bob_key].limit_at - before).total_seconds() >= 89
        typed = await fake.send_user_message(world.host, room, "!match extend 0")
        await fake.wait_for(lambda: any("seconds must be at least 1, at most 86400; 0 is not."
                                        in m.content and m.id > typed.id
                                        for m in bot_posts(world, room)), 10)
        typed = await fake.send_user_message(world.host, world.general, f"!match abort {match.id} cold feet")
        await fake.wait_for(lambda: match.status == "aborted")
        await up.idle(fake)
        assert "aborted the match (cold feet" in bot_posts(world, room)[-1].content
        assert match.seed in bot_posts(world, room)[-1].content


async def test_award_and_export_with_secrets_only_after_the_end(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        running = await fake.slash_command(world.host, world.general, "match export")
        await fake.wait_for(lambda: running.original is not None and running.original.attachments)
        files = {a.filename: a.data for a in running.original.attachments}
        record = json.loads(files[f"match-{match.id}.json"])
        assert record["seed"] is None and {m["audience"] for m in record["messages"]} == {"public"}
        assert running.original.ephemeral

        awarded = await fake.slash_command(world.host, world.general, "match award",
                                           player=world.bob, reason="alice left")
        assert awarded.response.ephemeral and match.status == "finished"
        assert match.result["winner"] == 1
        ended = await fake.slash_command(world.host, world.general, "match export",
                                         match=match.id)
        await fake.wait_for(lambda: ended.original is not None and ended.original.attachments)
        files = {a.filename: a.data for a in ended.original.attachments}
        record = json.loads(files[f"match-{match.id}.json"])
        assert record["seed"] == match.seed
        assert {m["audience"] for m in record["messages"]} == {"public", "seat0", "seat1", "umpire"}
        transcript = files[f"match-{match.id}.txt"].decode()
        assert f"Seed: {match.seed}" in transcript and "[table of alice]" in transcript
        assert "awarded the match to bob" in transcript
        from bot.console.records import verify  # the record a host gets verifies
        assert verify(record).startswith(f"verified: match #{match.id}")  # (failed: awarded
        # matches are finished by the hosts, which verify took for a contradiction)
        await up.idle(fake)


async def test_rules_command_for_anyone(world: World) -> None:
    async with umpire(world):
        inter = await world.fake.slash_command(world.eve, world.general, "rules", game="rps-poker")
        assert inter.response.ephemeral
        assert "Turn-based RPS Poker" in inter.response.content
        assert len(inter.response.content) <= 2000


async def test_an_unreachable_table_is_held_not_given_up_and_the_match_waits_for_it(
        world: World) -> None:
    """A table Discord refuses (403) is held, not given up: the messages are sent, in
    order, once it answers again (the hosts are told by delivery, see bot/delivery.py)."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table1 = channel_of(world, match, "seat1")
        fake.unreachable_channels.add(table1.id)
        for seat in (0, 1):
            prompt = next(p for p in match.prompts if p.seat == seat)
            user = [world.alice, world.bob][seat]
            await fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                         prompt.choices[0], check_permissions=seat == 0)
            await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts})
        await fake.wait_for(lambda: fake.count_requests(
            "POST", f"/channels/{table1.id}/messages") > 0, 10)
        assert match.seq == 2 and match.status == "active"
        assert not drive(up.service).failures
        fake.unreachable_channels.clear()
        drive(up.service).wake(match.id)
        await up.idle(fake)
        await assert_channels_match_outbox(world, up, match)


def test_run_without_a_token_says_how_to_provide_one(capsys, monkeypatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    code = runner.main(Settings(discord=DiscordSettings(token=None)))
    err = capsys.readouterr().err
    assert code == 2
    assert "DISCORD_TOKEN" in err and "[discord]" in err and "umpire play" in err
    assert "umpire demo" in err


async def test_a_host_awards_a_double_or_nothing_bout_and_the_match_goes_on(world: World) -> None:
    """Double or Nothing has no penalty for going over the time: the hosts may award the
    running bout (`part: bout`) or the match."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_match(world, up, "double-or-nothing")
        room = channel_of(world, match, "public")
        early = await fake.slash_command(world.host, world.general, "match award",
                                         player=world.bob, part="bout")
        assert early.response.ephemeral and "No bout is running" in early.response.content
        await fake.send_user_message(world.alice, room, "me")
        await fake.wait_for(lambda: match.state.bout == 1 and match.seq == 1)
        awarded = await fake.slash_command(world.host, world.general, "match award",
                                           player=world.bob, part="bout", reason="alice stalled")
        assert awarded.response.ephemeral and "running bout" in awarded.response.content
        assert match.state.score == [0, 1] and match.status == "active"
        await up.idle(fake)
        posts = [m.content for m in bot_posts(world, room)]
        assert any(f"award bout 1 to <@{world.bob.id}>: alice stalled" in c for c in posts), posts[-3:]
