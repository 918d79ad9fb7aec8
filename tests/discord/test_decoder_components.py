"""Decoder's own buttons and menus on Discord, pressed by two members (alice, seat 0, and bob,
seat 1) through the fake server as players would: the rarity buttons, the keep-six menu and the
`Drop X` buttons of the hand, `Insurance`, `No swap` / `Swap X`, the turn's restore menu and its
single `Restore with X` button, `Sabotage <tank>`, the clue buttons with Unexpected Sabotage and
`Unexpected Sabotage` / `Pass`.

Each test checks that the choice reaches the match state, that the right channels hear of it,
that secrets (hands, the compensation letter, a sabotaged tank's value) stay out of the room and
the opponent's table, and that a stale click or one by the wrong member is refused with a note
only the clicker sees and changes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.live import LiveMatch
from games.core import Prompt
from games.decoder.letters import ALPHABET, render_letters
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Channel, Interaction, Message, User
from tests.discord.clicks import accepted
from tests.discord.conftest import (
    Umpire,
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    embed_text,
    start_match,
    umpire,
    with_key,
)

PUZZLES = ("Arithmetic Box", "Bijective Matrix", "Cipher Wheel", "Domino Grid", "Encrypted Image",
           "Folding Map", "Gear Train")
EVEN = [[100] * 7, [100] * 7]  # 10 units each, equal: nobody earns an extra tile
STALE, NOT_PLAYING = "no longer open", "Only the players of this match"


# --- helpers ----------------------------------------------------------------------------------
async def start_decoder(world: World, up: Umpire, seed: str, **settings: Any) -> LiveMatch:
    settings.setdefault("lock_when_ready", True)  # the house option these tests rely on
    match = await start_match(world, up, "decoder", seed=seed,
                              settings=json.dumps(settings, separators=(",", ":")))
    await up.idle(world.fake)
    return match


class LiveSeat:
    """A seat of the match's live state, read afresh at each use: every step makes a new
    state live (store, then apply), so a seat object taken earlier keeps its old values."""

    def __init__(self, match: LiveMatch, seat: int) -> None:
        self._match, self._seat = match, seat

    def __getattr__(self, name: str) -> Any:
        return getattr(self._match.state.seats[self._seat], name)


def live_seats(match: LiveMatch) -> tuple[LiveSeat, LiveSeat]:
    return LiveSeat(match, 0), LiveSeat(match, 1)


def player(world: World, seat: int) -> User:
    return (world.alice, world.bob)[seat]


def pending(match: LiveMatch, seat: int, kind: str) -> Prompt:
    """Seat's pending decision, which must be of `kind`."""
    prompt = next((p for p in match.prompts if p.seat == seat), None)
    assert prompt is not None and prompt.kind == kind, (seat, kind, match.prompts)
    return prompt


async def typed(world: World, up: Umpire, match: LiveMatch, seat: int, kind: str,
                text: str) -> None:
    """Seat types `text` for its pending decision of `kind` where it is made; it is taken."""
    prompt = pending(match, seat, kind)
    where = channel_of(world, match, f"seat{seat}" if prompt.private else "public")
    await world.fake.send_user_message(player(world, seat), where, text)
    await world.fake.wait_for(lambda: not match.prompt_pending(prompt.key), 10)
    await up.idle(world.fake)


async def ready_both(world: World, up: Umpire, match: LiveMatch) -> None:
    """Alice says ready (it locks nothing: her tuning prompt stays open), then bob: with both
    ready, setup locks."""
    pending(match, 0, "tune")
    await world.fake.send_user_message(world.alice, channel_of(world, match, "seat0"), "ready")
    await world.fake.wait_for(lambda: match.state.seats[0].ready, 10)
    await up.idle(world.fake)
    assert any(p.seat == 0 and p.kind == "tune" for p in match.prompts)
    await typed(world, up, match, 1, "tune", "ready")


async def setup_typed(world: World, up: Umpire, match: LiveMatch) -> None:
    """Both ready; whoever earned extra tiles types the first rarity option and keeps the
    first six tiles; play begins."""
    await ready_both(world, up, match)
    for seat in (0, 1):
        if any(p.seat == seat and p.kind == "rarity" for p in match.prompts):
            await typed(world, up, match, seat, "rarity", pending(match, seat, "rarity").choices[0])
        if any(p.seat == seat and p.kind == "hand" for p in match.prompts):
            tiles = match.state.seats[seat].setup_letters
            await typed(world, up, match, seat, "hand", "keep " + "".join(tiles[:6]))
    assert match.state.phase == "play"


async def first_asks(world: World, up: Umpire, match: LiveMatch) -> None:
    """Setup typed, then alice and bob each ask a word with their Arithmetic Box (the other
    answers ODD); with bob's tanks no faster than hers, it is alice's turn next."""
    await setup_typed(world, up, match)
    await typed(world, up, match, 0, "turn", "use Arithmetic Box ask DECODER not ANY")
    await typed(world, up, match, 1, "clue", "ODD")
    await typed(world, up, match, 1, "turn", "use Arithmetic Box ask PUZZLE not ANY")
    await typed(world, up, match, 0, "clue", "ODD")


def buttons_of(message: Message) -> dict[str, dict[str, Any]]:
    return {c["label"]: c for c in message.iter_components() if c["type"] == 2}


def posts_text(world: World, channel: Channel, after: int = 0) -> str:
    """Everything the bot posted in a channel (its messages from the `after`-th on, with
    their notes)."""
    return "\n".join(m.content + "\n" + embed_text(m) for m in bot_posts(world, channel)[after:])


def refused(inter: Interaction, why: str) -> None:
    """A click answered only to the clicker, with the reason, and no menu or buttons."""
    answer = inter.answer
    assert answer is not None and answer.ephemeral, inter.responses
    assert why in answer.content, answer.content
    assert not answer.components


async def click(world: World, user: User, message: Message, label: str) -> Interaction:
    return await world.fake.click_button(user, message, buttons_of(message)[label]["custom_id"])


def let_see(world: World, up: Umpire, user: User, channel: Channel) -> None:
    """A member who could not see a table channel is let in (a host's mistake). The channel
    keeper, which would take that away at once (tests/discord/test_keeper.py), is kept from
    looking meanwhile, so that the member's click is made."""
    assert not world.fake.can_view(user, channel)
    up.bot.keeper.keep = lambda guild_id: None
    world.fake.set_overwrite(channel, user, allow=P.VIEW_CHANNEL)


def let_out(world: World, up: Umpire, user: User, channel: Channel) -> None:
    """The mistake undone (meanwhile the umpire posts nothing in that table: bob could read
    it, tests/discord/test_privacy.py)."""
    world.fake.remove_overwrite(channel, user)
    del up.bot.keeper.keep  # (the class's own again)


# --- setup: rarities, the keep-six menu, Drop X ---------------------------------------------
async def test_rarity_buttons_keep_six_menu_and_drop_buttons_choose_hands_privately(
        world: World) -> None:
    """Alice earns three extra tiles (nine tiles: a menu of six to keep), bob one (seven tiles:
    a `Drop X` button per tile); each picks a hand other than the default."""
    fake = world.fake
    times = [[10, 10, 10, 100, 100, 100, 100], [100, 100, 100, 10, 100, 100, 100]]
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-keep", times=times)
        room, table0, table1 = (channel_of(world, match, a) for a in ("public", "seat0", "seat1"))
        await ready_both(world, up, match)
        alice, bob = live_seats(match)
        assert (alice.extra_count, bob.extra_count) == (3, 1)

        # Rarities: one button per option in each table; alice takes one of each, bob a rare.
        message = with_key(world, table0, pending(match, 0, "rarity").key)
        assert list(buttons_of(message))[0] == "3 common"
        assert accepted(await click(world, world.alice, message,
                                    "1 common, 1 uncommon, 1 rare"))
        await fake.wait_for(lambda: alice.rarities is not None, 10)
        message = with_key(world, table1, pending(match, 1, "rarity").key)
        assert set(buttons_of(message)) == {"1 common", "1 uncommon", "1 rare"}
        await click(world, world.bob, message, "1 rare")
        await fake.wait_for(lambda: bob.rarities is not None, 10)
        await up.idle(fake)
        assert (alice.rarities, bob.rarities) == ((1, 1, 1), (0, 0, 1))
        tiles0, tiles1 = list(alice.setup_letters), list(bob.setup_letters)
        assert len(tiles0) == 9 and len(tiles1) == 7
        assert sum(ch in "JQXZ" for ch in tiles0) == 2 and sum(ch in "JQXZ" for ch in tiles1) == 2

        # Alice's nine tiles: a menu of exactly six to keep, her tiles only, in her table only.
        key0 = pending(match, 0, "hand").key
        message = with_key(world, table0, key0)
        [menu] = message.iter_components()
        assert menu["custom_id"].startswith("ump:m:")
        assert [o["value"] for o in menu["options"]] == tiles0
        assert menu["min_values"] == menu["max_values"] == 6
        seq = match.seq
        # Bob, let into her table by mistake, picks for her: refused, nothing changes.
        let_see(world, up, world.bob, table0)
        wrong = await fake.select(world.bob, message, menu["custom_id"], tiles0[:6])
        refused(wrong, "for alice, not for you")
        assert wrong.answer.visible_to == world.bob.id
        let_out(world, up, world.bob, table0)
        await up.idle(fake)
        assert match.seq == seq and not alice.hand_chosen and match.prompt_pending(key0)
        # Alice keeps her last six (the default would be the first six).
        kept = tiles0[3:]
        done = await fake.select(world.alice, message, menu["custom_id"], kept)
        assert accepted(done), done.responses
        await fake.wait_for(lambda: alice.hand_chosen, 10)
        await up.idle(fake)
        assert alice.hand == sorted(kept) and match.seq == seq + 1
        assert render_letters(sorted(kept)) in posts_text(world, table0)
        # Nothing of a setup step reaches the room (issue 29: the ruling on setup timing).
        assert "chosen their hand" not in posts_text(world, room)
        # The same menu again, the hand chosen: refused, the hand stays.
        stale = await fake.select(world.alice, message, menu["custom_id"], tiles0[:6])
        refused(stale, STALE)
        await up.idle(fake)
        assert alice.hand == sorted(kept) and match.seq == seq + 1

        # Bob's seven tiles: a Drop button per tile (no menu).
        key1 = pending(match, 1, "hand").key
        message = with_key(world, table1, key1)
        assert list(buttons_of(message)) == [f"Drop {ch}" for ch in tiles1]
        assert not any(c["type"] == 3 for c in message.iter_components())
        # The host sees every table but does not play: refused.
        wrong = await click(world, world.host, message, f"Drop {tiles1[0]}")
        refused(wrong, NOT_PLAYING)
        await up.idle(fake)
        assert match.seq == seq + 1 and not bob.hand_chosen
        done = await click(world, world.bob, message, f"Drop {tiles1[0]}")
        assert accepted(done), done.responses
        await fake.wait_for(lambda: match.state.phase == "play", 10)
        await up.idle(fake)
        assert bob.hand == sorted(tiles1[1:])
        stale = await click(world, world.bob, message, f"Drop {tiles1[-1]}")
        refused(stale, STALE)
        await up.idle(fake)
        assert bob.hand == sorted(tiles1[1:]) and match.seq == seq + 2

        # Each hand only in its owner's table: never in the room or the other table.
        hand0, hand1 = render_letters(alice.hand), render_letters(bob.hand)
        assert hand0 in posts_text(world, table0) and hand1 in posts_text(world, table1)
        for text in (posts_text(world, room), posts_text(world, table1)):
            assert hand0 not in text and render_letters(tiles0) not in text
        for text in (posts_text(world, room), posts_text(world, table0)):
            assert hand1 not in text and render_letters(tiles1) not in text
        for m in bot_posts(world, room):
            assert not m.components or not any(
                c["custom_id"].startswith("ump:m:") for c in m.iter_components())
        await assert_channels_match_outbox(world, up, match)


async def test_keep_menu_after_the_host_locks_setup_is_refused(world: World) -> None:
    """The hosts lock setup while alice's menu is open: the default hand (her first six tiles)
    stands, and her late pick is refused."""
    fake = world.fake
    times = [[10, 10, 100, 100, 100, 100, 100], [100] * 7]
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-lock", times=times)
        table0 = channel_of(world, match, "seat0")
        await ready_both(world, up, match)
        await typed(world, up, match, 0, "rarity", "2 common")
        alice = live_seats(match)[0]
        tiles = list(alice.setup_letters)
        message = with_key(world, table0, pending(match, 0, "hand").key)
        [menu] = message.iter_components()
        await fake.slash_command(world.host, world.general, "match lock", match=match.id)
        await fake.wait_for(lambda: match.state.phase == "play", 10)
        await up.idle(fake)
        seq = match.seq
        assert alice.hand == sorted(tiles[:6])
        late = await fake.select(world.alice, message, menu["custom_id"], tiles[2:])
        refused(late, STALE)
        await up.idle(fake)
        assert alice.hand == sorted(tiles[:6]) and match.seq == seq


# --- a wrong guess: Give up (refused to the opponent), Insurance, Swap X -----------------------
async def test_insurance_and_swap_buttons_after_a_wrong_guess(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-swap", times=EVEN,
                                    items=[{"hand_insurance": 1}, {}])
        room, table0, table1 = (channel_of(world, match, a) for a in ("public", "seat0", "seat1"))
        await setup_typed(world, up, match)
        alice, bob = live_seats(match)
        hand0 = list(alice.hand)
        wrong = next(ch for ch in reversed(ALPHABET) if ch not in bob.hand + alice.hand)
        await typed(world, up, match, 0, "turn", f"use Arithmetic Box guess {wrong}")

        # Give up: bob cannot open alice's private letter menu, nor play her Insurance.
        key = pending(match, 0, "give_up").key
        message = with_key(world, room, key)
        assert set(buttons_of(message)) == {"Give up a letter…", "Insurance"}
        seq = match.seq
        peek = await click(world, world.bob, message, "Give up a letter…")
        refused(peek, "for alice, not for you")
        assert not any(ch in peek.answer.content.split() for ch in hand0)
        refused(await click(world, world.bob, message, "Insurance"), "for alice, not for you")
        await up.idle(fake)
        assert match.seq == seq and alice.items.hand_insurance == 1
        # Alice opens her menu (her letters, only to her), then plays Insurance instead.
        opened = await click(world, world.alice, message, "Give up a letter…")
        assert opened.answer.ephemeral and opened.answer.visible_to == world.alice.id
        [menu] = opened.answer.iter_components()
        assert [o["value"] for o in menu["options"]] == hand0
        room_before = len(bot_posts(world, room))
        insured = await click(world, world.alice, message, "Insurance")
        assert accepted(insured), insured.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert alice.items.hand_insurance == 0 and alice.hand == hand0
        assert "Hand Insurance" in posts_text(world, room, room_before)
        # Her letter menu, the decision made: refused, no letter given up.
        late = await fake.select(world.alice, opened.answer, menu["custom_id"], [hand0[0]])
        refused(late, STALE)
        refused(await click(world, world.alice, message, "Insurance"), STALE)
        await up.idle(fake)
        assert alice.hand == hand0 and hand0[0] not in match.state.revealed

        # Bob's compensation: No swap / Swap X in his table only.
        key = pending(match, 1, "swap").key
        offer = bob.offers[-1].letter
        assert offer is not None and offer not in bob.hand
        hand1 = list(bob.hand)
        message = with_key(world, table1, key)
        assert list(buttons_of(message)) == ["No swap", *(f"Swap {ch}" for ch in hand1)]
        assert not any(c["custom_id"].endswith(f":{key}") for m in bot_posts(world, room)
                       for c in m.iter_components())
        seq = match.seq
        let_see(world, up, world.alice, table1)
        refused(await click(world, world.alice, message, f"Swap {hand1[0]}"),
                "for bob, not for you")
        let_out(world, up, world.alice, table1)
        await up.idle(fake)
        assert match.seq == seq and bob.hand == hand1
        room_before, table0_before = len(bot_posts(world, room)), len(bot_posts(world, table0))
        swapped = await click(world, world.bob, message, f"Swap {hand1[0]}")
        assert accepted(swapped), swapped.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert bob.hand == sorted([*hand1[1:], offer]) and match.seq == seq + 1
        told = posts_text(world, table1)
        assert render_letters(bob.hand) in told and f"for {offer}" in told
        # The room hears that he decided; nobody but bob learns the letter or his hand.
        public = posts_text(world, room, room_before)
        assert "compensation decision" in public
        for text in (public, posts_text(world, table0, table0_before)):
            assert not re.search(rf"\b{offer}\b", text.replace(f"<@{world.bob.id}>", "")), text
            assert render_letters(bob.hand) not in text
        refused(await click(world, world.bob, message, "No swap"), STALE)
        await up.idle(fake)
        assert bob.hand == sorted([*hand1[1:], offer]) and match.seq == seq + 1
        await assert_channels_match_outbox(world, up, match)


# --- restoring: the turn's menu, the last tank's button, Sabotage <tank> ----------------------
async def test_restore_menu_on_the_turn_restores_the_used_tanks(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-menu", times=EVEN)
        room = channel_of(world, match, "public")
        await first_asks(world, up, match)
        alice = live_seats(match)[0]

        key = pending(match, 0, "turn").key
        message = with_key(world, room, key)
        [menu] = message.iter_components()
        labels = [o["label"] for o in menu["options"]]
        assert labels == [f"Restore with {name}" for name in PUZZLES[1:]]
        pick = str(labels.index("Restore with Cipher Wheel"))
        seq = match.seq
        refused(await fake.select(world.bob, message, menu["custom_id"], [pick]),
                "for alice, not for you")
        refused(await fake.select(world.eve, message, menu["custom_id"], [pick]), NOT_PLAYING)
        await up.idle(fake)
        assert match.seq == seq and alice.tank("Arithmetic Box").used
        room_before = len(bot_posts(world, room))
        done = await fake.select(world.alice, message, menu["custom_id"], [pick])
        assert accepted(done), done.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert not alice.tank("Arithmetic Box").used and alice.tank("Cipher Wheel").used
        assert match.state.current.restored == ["Arithmetic Box"]
        pending(match, 1, "guess_total")
        assert "uses Cipher Wheel and restores Arithmetic Box" in posts_text(world, room, room_before)
        refused(await fake.select(world.alice, message, menu["custom_id"], ["0"]), STALE)
        await up.idle(fake)
        assert match.seq == seq + 1 and not alice.tank("Bijective Matrix").used
        await assert_channels_match_outbox(world, up, match)


async def test_last_tank_button_restores_and_sabotage_buttons_after_a_right_total(
        world: World) -> None:
    """Alice's tanks are fast (1-7 units), bob's slow (30): after bob's first turn she uses five
    more, restores with her last one by its button, bob guesses the total and sabotages."""
    fake = world.fake
    times = [[10, 20, 30, 40, 50, 60, 70], [300] * 7]
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-sabotage", times=times)
        room, table0, table1 = (channel_of(world, match, a) for a in ("public", "seat0", "seat1"))
        await first_asks(world, up, match)
        alice = live_seats(match)[0]
        for name, word in zip(PUZZLES[1:6], ("CAT", "DOG", "BIRD", "FISH", "HORSE"), strict=True):
            await typed(world, up, match, 0, "turn", f"use {name} ask {word} not ANY")
            await typed(world, up, match, 1, "clue", "TWO")

        # One unused tank: a single restore button, hers only.
        key = pending(match, 0, "turn").key
        message = with_key(world, room, key)
        assert list(buttons_of(message)) == ["Restore with Gear Train"]
        seq = match.seq
        refused(await click(world, world.bob, message, "Restore with Gear Train"),
                "for alice, not for you")
        await up.idle(fake)
        assert match.seq == seq and alice.tank("Arithmetic Box").used
        restored = await click(world, world.alice, message, "Restore with Gear Train")
        assert accepted(restored), restored.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert [t.name for t in alice.unused()] == list(PUZZLES[:6])
        refused(await click(world, world.alice, message, "Restore with Gear Train"), STALE)

        # Bob guesses the restored total (1+2+...+6) right: a Sabotage button per restored tank.
        total = sum(alice.tank(name).units for name in match.state.current.restored)
        assert total == 21
        await typed(world, up, match, 1, "guess_total", f"guess {total}")
        key = pending(match, 1, "sabotage_tank").key
        message = with_key(world, room, key)
        assert list(buttons_of(message)) == [f"Sabotage {name}" for name in PUZZLES[:6]]
        seq = match.seq
        refused(await click(world, world.alice, message, "Sabotage Arithmetic Box"),
                "for bob, not for you")
        refused(await click(world, world.eve, message, "Sabotage Arithmetic Box"), NOT_PLAYING)
        await up.idle(fake)
        assert match.seq == seq and alice.tank("Arithmetic Box").units == 1
        before = [len(bot_posts(world, c)) for c in (room, table0, table1)]
        sabotaged = await click(world, world.bob, message, "Sabotage Folding Map")
        assert accepted(sabotaged), sabotaged.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert alice.tank("Folding Map").units == 9  # 6 units, +50 %
        assert [t.units for t in alice.tanks] == [1, 2, 3, 4, 5, 9, 7]
        # The room names the tank; only alice learns its new value.
        public, told, other = (posts_text(world, c, n)
                               for c, n in zip((room, table0, table1), before, strict=True))
        assert "Folding Map" in public and "sabotage" in public.lower()
        assert "Folding Map: 9 units" in told
        for text in (public, other):
            assert "9 units" not in text and not re.search(r"Folding Map: \d+ unit", text)
        refused(await click(world, world.bob, message, "Sabotage Encrypted Image"), STALE)
        await up.idle(fake)
        assert match.seq == seq + 1 and alice.tank("Encrypted Image").units == 5
        await assert_channels_match_outbox(world, up, match)


# --- Unexpected Sabotage: with a clue, and Unexpected Sabotage / Pass -------------------------
async def test_unexpected_sabotage_clue_buttons_and_pass_button(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_decoder(world, up, "dec-unexpected", times=EVEN,
                                    items=[{}, {"unexpected_sabotage": 2}])
        room, table0, table1 = (channel_of(world, match, a) for a in ("public", "seat0", "seat1"))
        await setup_typed(world, up, match)
        alice, bob = live_seats(match)
        await typed(world, up, match, 0, "turn", "use Arithmetic Box ask DECODER not ANY")

        # The clue with or without the item, bob's only.
        key = pending(match, 1, "clue").key
        message = with_key(world, room, key)
        assert list(buttons_of(message)) == ["ODD", "TWO", "ODD + Unexpected Sabotage",
                                             "TWO + Unexpected Sabotage"]
        seq = match.seq
        refused(await click(world, world.alice, message, "TWO + Unexpected Sabotage"),
                "for bob, not for you")
        await up.idle(fake)
        assert match.seq == seq and bob.items.unexpected_sabotage == 2
        before = [len(bot_posts(world, c)) for c in (room, table0, table1)]
        played = await click(world, world.bob, message, "TWO + Unexpected Sabotage")
        assert accepted(played), played.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert match.state.history[0].answers[0].clue == "TWO"
        assert bob.items.unexpected_sabotage == 1 and alice.tank("Arithmetic Box").units == 15
        public, told, other = (posts_text(world, c, n)
                               for c, n in zip((room, table0, table1), before, strict=True))
        assert "gives TWO for DECODER" in public and "Unexpected Sabotage" in public
        assert "Arithmetic Box: 15 units" in told
        assert "15 units" not in public + other
        refused(await click(world, world.bob, message, "ODD"), STALE)
        await up.idle(fake)
        assert match.seq == seq + 1 and bob.items.unexpected_sabotage == 1

        # Bob moves twice (alice's timer is at 14 after his first), then alice guesses right:
        # nothing to answer, so bob is asked Unexpected Sabotage / Pass.
        await typed(world, up, match, 1, "turn", "use Arithmetic Box ask PUZZLE not ANY")
        await typed(world, up, match, 0, "clue", "ODD")
        await typed(world, up, match, 1, "turn", "use Bijective Matrix ask CAT not ANY")
        await typed(world, up, match, 0, "clue", "ODD")
        right = bob.hand[0]
        await typed(world, up, match, 0, "turn", f"use Bijective Matrix guess {right}")
        key = pending(match, 1, "sabotage_option").key
        message = with_key(world, room, key)
        assert list(buttons_of(message)) == ["Unexpected Sabotage", "Pass"]
        assert buttons_of(message)["Unexpected Sabotage"]["style"] == 4  # danger: red
        seq = match.seq
        refused(await click(world, world.alice, message, "Pass"), "for bob, not for you")
        await up.idle(fake)
        assert match.seq == seq
        room_before = len(bot_posts(world, room))
        passed = await click(world, world.bob, message, "Pass")
        assert accepted(passed), passed.responses
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        await up.idle(fake)
        assert "bob passes" in posts_text(world, room, room_before).replace(
            f"<@{world.bob.id}>", "bob")
        assert bob.items.unexpected_sabotage == 1 and alice.tank("Bijective Matrix").units == 10
        refused(await click(world, world.bob, message, "Unexpected Sabotage"), STALE)
        await up.idle(fake)
        assert match.seq == seq + 1 and bob.items.unexpected_sabotage == 1
        assert alice.tank("Bijective Matrix").units == 10
        await assert_channels_match_outbox(world, up, match)
