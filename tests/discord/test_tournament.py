"""`/tournament` on the fake Discord: an 8-player single elimination from sign-up to
champion, with a walkover and a restart in the middle of a round; every match started
through the `/match start` launch (room and tables), ended with the hosts' `/match award`;
the show message is edited, never posted again."""

from __future__ import annotations

import json
from typing import Any

from bot.discord.marker import read_mark
from bot.tournament import store
from bot.tournament.record import verify_event
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Interaction, User
from tests.discord.conftest import REVEAL, World, bot_posts, channel_of, lines, umpire
from tests.support.driver import drive


async def say(world: World, user: User, command: str, **options: Any) -> str:
    inter: Interaction = await world.fake.slash_command(user, world.general,
                                                        f"tournament {command}", options)
    await world.fake.wait_for(lambda: inter.answer is not None and inter.finished, 10)
    assert inter.answer is not None and inter.answer.ephemeral
    return str(inter.answer.content)


async def export(world: World, event_id: int) -> dict[str, Any]:
    """`/tournament export` by the host: the attached record (no event open: the newest)."""
    inter = await world.fake.slash_command(world.host, world.general, "tournament export", {})
    await world.fake.wait_for(lambda: inter.answer is not None and inter.finished, 10)
    assert inter.answer is not None and inter.answer.ephemeral
    [attached] = inter.answer.attachments
    assert attached.filename == f"event-{event_id}.json"
    return dict(json.loads(attached.data))


PEOPLE: dict[int, User] = {}


def person(player_id: str) -> User:
    return PEOPLE[int(player_id.split(":", 1)[1])]


def running(up: Any, event_id: int) -> list[Any]:
    return [m for m in drive(up.service).matches()
            if m.transport.get("event") == event_id and m.status == "active"]


async def award_round(world: World, up: Any, event_id: int, count: int) -> list[Any]:
    """The hosts award each running match of the event to its seat-0 player."""
    fake = world.fake
    await fake.wait_for(lambda: len(running(up, event_id)) == count, 20)
    matches = running(up, event_id)
    for match in matches:
        room = channel_of(world, match, "public")  # a room and tables, as /match start
        assert room and channel_of(world, match, "seat0") and channel_of(world, match, "seat1")
        winner = person(match.players[0].id)
        inter = await fake.slash_command(world.host, world.general, "match award",
                                         player=winner, match=match.id)
        await fake.wait_for(lambda inter=inter: inter.finished, 10)
    return matches


async def test_eight_player_single_elimination_from_signup_to_champion(world: World) -> None:
    fake = world.fake
    members = [world.alice, world.bob, world.eve] + [
        fake.add_member(world.guild, name) for name in ("fay", "gus", "hal", "ivy", "jon")]
    late = fake.add_member(world.guild, "kit")
    PEOPLE.update({u.id: u for u in members})
    async with umpire(world) as up:
        answer = await say(world, world.alice, "create", name="DM Colosseum 2",
                           game="rps-poker", format="single", cap=8, break_seconds=0)
        assert "Only hosts" in answer
        answer = await say(world, world.host, "create", name="DM Colosseum 2",
                           game="rps-poker", format="single", cap=8, break_seconds=0)
        assert "created" in answer
        [event] = await store.of_guild(drive(up.service).engine, world.guild.id)
        assert any(event.commitment in m.content for m in fake.messages(world.general))
        assert "closed" in await say(world, world.alice, "join")
        await say(world, world.host, "open")
        for member in members:
            assert "signed up" in await say(world, member, "join")
        assert "full (8 players)" in await say(world, late, "join")
        await say(world, world.host, "close")
        assert "Seeded by the committed random draw" in await say(
            world, world.host, "seed", method="random")
        assert "edited as the event goes" in await say(world, world.eve, "show")
        shows = [m for m in fake.messages(world.general) if m.embeds]
        assert len(shows) == 1
        await say(world, world.host, "start")
        # round 1: 4 matches; one player drops (a walkover), the hosts award the rest
        await fake.wait_for(lambda: len(running(up, event.id)) == 4, 20)
        dropped = running(up, event.id)[0]
        gone = person(dropped.players[1].id)
        assert "walkover" in await say(world, world.host, "replace", player=gone)
        await fake.wait_for(lambda: dropped.status == "aborted", 10)
        await award_round(world, up, event.id, 3)
        stored = await store.load(drive(up.service).engine, event.id)
        assert stored is not None
        results = stored.state["results"]  # type: ignore[index]
        walkover = results[stored.matches and next(
            p for p, m in stored.matches.items() if m == dropped.id)]
        assert walkover["walkover"] and walkover["winner"] == dropped.players[0].id
        await fake.wait_for(lambda: len(running(up, event.id)) == 2, 20)
    # a restart in the middle of round 2: the event and its matches are taken up again
    async with umpire(world) as up:
        await fake.wait_for(lambda: len(running(up, event.id)) == 2, 20)
        await award_round(world, up, event.id, 2)
        [final] = await award_round(world, up, event.id, 1)
        champion = final.players[0].name
        await fake.wait_for(lambda: any(
            f"{champion} is the champion" in m.content for m in fake.messages(world.general)), 20)
        ended = await store.load(drive(up.service).engine, event.id)
        assert ended is not None and ended.status == "ended"
        await up.idle(fake)
        shows = [m for m in fake.messages(world.general) if m.embeds]
        assert len(shows) == 1  # edited, never posted again
        embed = shows[0].embeds[0]
        fields = {f["name"]: f["value"] for f in embed.get("fields", [])}
        assert fields.get("Champion") == champion
        history = await say(world, world.host, "history", member=person(final.players[0].id))
        assert "DM Colosseum 2" in history and "rank 1" in history
        # its record verifies: the withdrawal's stopped match is a walkover
        record = await export(world, event.id)
        assert len(record["matches"]) == 7
        checked, ok = verify_event(record)
        assert ok, checked
        assert not any("run again" in line for line in checked)  # (not after a withdrawal)


async def test_six_player_swiss_of_three_rounds(world: World) -> None:
    fake = world.fake
    members = [world.alice, world.bob, world.eve] + [
        fake.add_member(world.guild, name) for name in ("lea", "mo", "nat")]
    PEOPLE.update({u.id: u for u in members})
    async with umpire(world) as up:
        await say(world, world.host, "create", name="Swiss Night", game="rps-poker",
                  format="swiss", rounds=3, break_seconds=0, rated=False)
        [event] = await store.of_guild(drive(up.service).engine, world.guild.id)
        await say(world, world.host, "open")
        for member in members:
            await say(world, member, "join")
        await say(world, world.host, "close")
        await say(world, world.host, "seed", method="rating")
        await say(world, world.host, "start")
        met: set[frozenset[str]] = set()
        for _ in range(3):
            for match in await award_round(world, up, event.id, 3):
                pair = frozenset(p.id for p in match.players)
                assert pair not in met  # Swiss: no rematch while another pairing exists
                met.add(pair)
                assert match.transport.get("unrated")  # rated:False
        await fake.wait_for(lambda: any("Swiss Night is over" in m.content
                                        for m in fake.messages(world.general)), 20)
        ended = await store.load(drive(up.service).engine, event.id)
        assert ended is not None and ended.status == "ended" and len(met) == 9
        assert not running(up, event.id)


async def test_an_events_feed_shows_every_match_of_it(world: World) -> None:
    """`/tournament create feed:#channel`: checked as a match's feed (only the bot writes
    there), stored with the event, and every match the event starts posts its room there.
    Then `/tournament export` gives the hosts the event's record, which verifies."""
    fake = world.fake
    feed = fake.add_text_channel(world.guild, "colosseum-feed")
    PEOPLE.update({u.id: u for u in (world.alice, world.bob)})
    async with umpire(world) as up:
        refused = await say(world, world.host, "create", name="Feed Cup", game="rps-poker",
                            format="single", break_seconds=0, feed=feed)
        assert "can be written in by everyone" in refused
        assert await store.of_guild(drive(up.service).engine, world.guild.id) == []
        fake.set_overwrite(feed, world.guild.everyone, deny=P.SEND_MESSAGES |
                           P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS)
        fake.set_overwrite(feed, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
        assert "created" in await say(world, world.host, "create", name="Feed Cup",
                                      game="rps-poker", format="single", break_seconds=0,
                                      feed=feed)
        [event] = await store.of_guild(drive(up.service).engine, world.guild.id)
        assert event.place.get("feed") == feed.id
        await say(world, world.host, "open")
        for member in (world.alice, world.bob):
            await say(world, member, "join")
        await say(world, world.host, "close")
        await say(world, world.host, "start")
        [match] = await award_round(world, up, event.id, 1)
        assert channel_of(world, match, "feed") is feed
        pairing = match.transport["pairing"]
        await up.idle(fake)
        room = channel_of(world, match, "public")
        said = lines(world, room)
        label = f"**Feed Cup, {pairing}: {match.players[0].name} vs {match.players[1].name}**"
        posts = [read_mark(m.content)[0] for m in bot_posts(world, feed)]
        assert posts and all(p.startswith(label) for p in posts)  # each post says whose
        shown = [t for t in lines(world, feed) if not t.startswith(REVEAL) and t != label]
        assert said and shown[:len(said)] == said  # the room, then the hosts' end's reveal
        assert f"Match #{match.id}" in shown[0]
        # /tournament export: the event's full record, verifiable match by match (hosts)
        assert "Only hosts" in await say(world, world.alice, "export", event=event.id)
        record = await export(world, event.id)
        assert [m["match"] for m in record["matches"]] == [match.id]
        assert record["pairings"][0]["result"]["walkover"]  # awarded by the hosts
        checked, ok = verify_event(record)
        assert ok, checked


async def test_a_drawn_match_of_an_event_is_announced_in_its_channel(world: World,
                                                                    monkeypatch: Any) -> None:
    """A draw was never announced (the runner made a note only for a winner, and Discord
    posts the runner's notes). Four built-in bots in a round robin; the matches' seeds are
    fixed so that some end drawn."""
    import bot.discord.launch as launching
    from bot.console.tournament import _signed_up, entrants

    real = launching.launch

    async def seeded(bot: Any, guild: Any, found: Any, members: Any, refs: Any, parsed: Any,
                     seed: Any, **kw: Any) -> Any:
        return await real(bot, guild, found, members, refs, parsed,
                          f"{DRAW_SEED}:{kw['extra']['pairing']}", **kw)
    monkeypatch.setattr(launching, "launch", seeded)  # (the cog calls it through its module)
    async with umpire(world) as up:
        await say(world, world.host, "create", name="Draw Night", game="rps-poker",
                  format="roundrobin", break_seconds=0, rated=False)
        [event] = await store.of_guild(drive(up.service).engine, world.guild.id)
        cog = up.bot.get_cog("Tournament")
        await cog.runner.change(event.id, lambda e: (  # type: ignore[union-attr]
            _signed_up(e, entrants("rps-poker", ["random"] * 4)), None))
        await say(world, world.host, "start")
        await world.fake.wait_for(lambda: any("Draw Night is over" in m.content for m in
                                              world.fake.messages(world.general)), 60)
        ended = await store.load(drive(up.service).engine, event.id)
        assert ended is not None and ended.state is not None
    said = [m.content for m in world.fake.messages(world.general)]
    draws = [p for p, r in ended.state["results"].items()
             if r["winner"] is None and not r["walkover"]]
    assert draws  # (the seed gives some)
    for pairing in draws:
        assert any(f", {pairing}: " in line and "is a draw" in line and "half a point each"
                   in line for line in said), (pairing, said)


DRAW_SEED = "draws"
