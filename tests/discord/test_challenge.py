"""Challenges and rematches on the fake Discord: `/challenge` with Accept / Decline starts a
friendly match without a host where the server allows it (advantage by a coin flip from the
seed, announced); the Rematch button posted when a match ends starts the next one once
every player pressed it, also across a restart."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from bot.discord.friendly import NO_FRIENDLIES, coin_flip, limits_of
from bot.store.models import ChallengeRow
from testbed.fake_discord.models import Message
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive


def _ids(message: Message) -> list[str]:
    return [str(c.get("custom_id")) for c in message.iter_components()]


def shown(message: Message) -> str:
    """A message's text and its embeds' (where a Rematch's state is shown)."""
    return "\n".join([message.content, *(str(e.get("description", "")) for e in message.embeds)])


async def _challenge(world: World) -> Message:
    inter = await world.fake.slash_command(world.alice, world.general, "challenge",
                                           member=world.bob, game="rps-poker")
    assert inter.answer is not None and inter.answer.ephemeral
    message = bot_posts(world, world.general)[-1]
    assert "alice challenges <@" in message.content and [u.id for u in message.mentions] == [world.bob.id]
    return message


async def test_challenge_accepted_starts_a_friendly_match_with_a_coin_flip(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        message = await _challenge(world)
        accept = next(i for i in _ids(message) if i.endswith(":a"))
        stranger = await fake.click_button(world.eve, message, accept)
        assert "not yours" in stranger.followups[0].content and stranger.followups[0].ephemeral
        own = await fake.click_button(world.alice, message, accept)
        assert "Only the challenged member" in own.followups[0].content
        assert not up.service.matches
        await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: up.service.matches, 10)
        [match] = drive(up.service).matches()
        assert match.transport["friendly"] is True
        # The rule as announced, computed here on its own: the first byte of
        # SHA-256("<seed>:advantage") even for alice (the challenger), odd for bob.
        byte = hashlib.sha256(f"{match.seed}:advantage".encode()).digest()[0]
        first = "alice" if byte % 2 == 0 else "bob"
        assert coin_flip(match.seed) == byte % 2
        assert match.players[0].name == first  # seat 0 holds the advantage
        await fake.wait_for(lambda: "Coin flip" in fake.messages(world.general)[-1].content)
        edited = fake.messages(world.general)[-1]
        assert f"**{first}** holds the advantage" in edited.content
        assert "even for alice, odd for bob" in edited.content and not _ids(edited)
        await up.idle(fake)
        assert bot_posts(world, channel_of(world, match, "public"))


async def test_challenge_declined_starts_nothing(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        message = await _challenge(world)
        decline = next(i for i in _ids(message) if i.endswith(":d"))
        await fake.click_button(world.bob, message, decline)
        await fake.wait_for(lambda: "declined" in fake.messages(world.general)[-1].content)
        assert not _ids(fake.messages(world.general)[-1]) and not up.service.matches


async def test_no_challenge_where_friendly_matches_are_off(world: World) -> None:
    async with umpire(world) as up:
        inter = await world.fake.slash_command(world.alice, world.general, "challenge",
                                               member=world.bob, game="rps-poker")
        assert inter.answer.content == NO_FRIENDLIES and not up.service.matches


async def test_rematch_needs_both_players_and_survives_a_restart(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        await fake.slash_command(world.host, world.general, "match award", player=world.bob,
                                 match=match.id)
        offer: Any = None

        def offered() -> bool:
            nonlocal offer
            offer = next((m for m in fake.messages(room) if f"ump:rm:{match.id}" in _ids(m)),
                         None)
            return offer is not None
        await fake.wait_for(offered, 10)
        eve = await fake.click_button(world.eve, offer, f"ump:rm:{match.id}")
        assert "Only the players" in eve.followups[0].content
        await fake.click_button(world.alice, offer, f"ump:rm:{match.id}")
        await fake.wait_for(lambda: "waiting for bob" in shown(offer))
        assert set(up.service.matches) == {match.id}

    async with umpire(world, friendly_matches=True) as up:  # a restart between the presses
        again = await fake.click_button(world.alice, offer, f"ump:rm:{match.id}")
        assert not again.followups or "waiting for bob" in shown(offer)
        pressed = await fake.click_button(world.bob, offer, f"ump:rm:{match.id}")
        assert not pressed.followups, pressed.followups[0].content
        await fake.wait_for(lambda: len(up.service.matches) == 2, 10)
        new = max(drive(up.service).matches(), key=lambda m: m.id)
        assert {p.name for p in new.players} == {"alice", "bob"}
        assert new.transport["rematch_of"] == match.id
        await fake.wait_for(lambda: "Rematch of match" in shown(offer))
        assert "awarded the match to" in offer.content  # the final message's text stays
        stored = await drive(up.service).stored(match.id)
        assert stored is not None and stored.row.transport["rematch_match"] == new.id
        assert stored.row.transport.get("closed") is True
        await up.idle(fake)


async def test_a_challenge_accepted_after_a_restart(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True):
        message = await _challenge(world)
    async with umpire(world, friendly_matches=True) as up:
        accept = next(i for i in _ids(message) if i.endswith(":a"))
        await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: up.service.matches, 10)
        [match] = drive(up.service).matches()
        assert {p.name for p in match.players} == {"alice", "bob"}
        await fake.wait_for(lambda: "accepted" in fake.messages(world.general)[-1].content)
        await up.idle(fake)


def test_the_coin_flip_is_the_announced_rule_for_any_seed() -> None:
    """Even first byte of SHA-256("<seed>:advantage"): the first named player; odd: the other;
    both happen."""
    flips = {f"seed-{i}": coin_flip(f"seed-{i}") for i in range(40)}
    for seed, flip in flips.items():
        assert flip == hashlib.sha256(f"{seed}:advantage".encode()).digest()[0] % 2, seed
    assert set(flips.values()) == {0, 1}


async def test_open_challenges_and_the_cooldown_survive_a_restart(world: World) -> None:
    """After a restart the pair's open challenge still blocks another (either way) and the
    challenger's cooldown still holds; both answers are private and post nothing."""
    fake = world.fake
    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=3600):
        await _challenge(world)
    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=3600) as up:
        posts = len(bot_posts(world, world.general))
        for who, whom, said in ((world.alice, world.bob, "still open"),
                                (world.bob, world.alice, "already challenged you"),
                                (world.alice, world.eve, "try again in")):
            again = await fake.slash_command(who, world.general, "challenge", member=whom,
                                             game="rps-poker")
            await fake.wait_for(lambda a=again: a.answer is not None or a.followups, 10)
            text = (again.followups[0] if again.followups else again.answer).content
            assert said in text, text
            assert (again.followups[0] if again.followups else again.answer).ephemeral
        await fake.settle()
        assert len(bot_posts(world, world.general)) == posts and not up.service.matches


async def test_an_expired_challenge_says_so_privately_and_starts_nothing(world: World) -> None:
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        message = await _challenge(world)
        async with drive(up.service).engine.begin() as conn:  # posted two hours ago
            await conn.execute(update(ChallengeRow).values(
                created_at=datetime.now(UTC) - timedelta(hours=2)))
        accept = next(i for i in _ids(message) if i.endswith(":a"))
        pressed = await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: pressed.followups, 10)
        assert "expired" in pressed.followups[0].content and pressed.followups[0].ephemeral
        await fake.settle()
        assert not up.service.matches
        # no longer open: the pair may challenge again
        await _challenge(world)


async def test_a_challenge_answered_before_a_restart_stays_answered(world: World) -> None:
    """The answer is stored: a second press after a restart (the buttons still shown, e.g.
    the edit never reached Discord) is refused and starts nothing."""
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        message = await _challenge(world)
        buttons = list(message.components)
        accept = next(i for i in _ids(message) if i.endswith(":a"))
        decline = next(i for i in _ids(message) if i.endswith(":d"))
        await fake.click_button(world.bob, message, decline)
        await fake.wait_for(lambda: "declined" in fake.messages(world.general)[-1].content)
        stored = await limits_of(up.bot).store.get(message.id)
        assert stored is not None and stored.answered_at is not None
    message.components = buttons  # (as if the edit that removed them never arrived)
    async with umpire(world, friendly_matches=True) as up:
        pressed = await fake.click_button(world.bob, message, accept)
        await fake.wait_for(lambda: pressed.followups, 10)
        assert "already answered" in pressed.followups[0].content
        await fake.settle()
        assert not up.service.matches
