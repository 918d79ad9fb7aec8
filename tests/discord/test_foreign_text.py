"""The one renderer of text the bot did not write (`bot.discord.render.escape`): hostile
strings (several masked links on one line, nested brackets, zero-width characters, 2,000
characters, mentions, markdown) come out with nothing Discord would read as markup, as
`tests/support/markup.py` reads Discord's rules on its own."""

from __future__ import annotations

import json
from typing import Any

import discord
import pytest

from bot.discord.marker import MARKS, mark
from bot.discord.render import EVENT_LIMIT, NAME_LIMIT, REASON_LIMIT, escape
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import User
from testbed.fake_discord.server import FakeDiscord
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive
from tests.support.markup import live, live_links, unescaped

TWO_LINKS = "[a](https://x.y)[b](https://z.w)"  # 32 characters: a nickname
HOSTILE = [
    TWO_LINKS,
    "[a](https://x.y) [b](https://z.w) [c](<https://q.r>)",
    "[[nested](https://x.y)](https://z.w)",
    "[x]\u200b(https://x.y) [y](\u200bhttps://z.w) [z](ht\u200btps://a.b)",
    "[Claim your Nitro](https://x.y) @everyone",
    "@here <@123456789012345678> <@!123456789012345678> <@&987654321098765432> "
    "<#111111111111111111> </ban:123456789012345678> <:pog:123456789012345678>",
    "**bold** __under__ *it* _it_ ~~strike~~ ||spoiler|| `code` ```block```",
    "# heading",
    "> quote",
    "-# subtext",
    "- list",
    "1. list",
    "line one\n# heading two\n> quote\n[a](https://x.y)",
    "\\[a](https://x.y) \\\\[b](https://z.w)",  # escapes of its own, one of them escaped
    "https://x.y plain",
    "\u202e\u2066[a](https://x.y)\u2069",
    "\u3164\u3164",
    " ".join(f"[l{i}](https://x.y/{i})" for i in range(40)),
]


def _reads_back(text: str) -> str:
    """What a reader sees of an escaped text: each escaped character as itself."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and not text[i + 1].isalnum():
            out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


@pytest.mark.parametrize("text", HOSTILE)
def test_no_construct_survives(text: str) -> None:
    shown = escape(text, 2000)
    assert live(shown) == [], (text, shown)
    assert "\n" not in shown and "\u200b" not in shown and "\u202e" not in shown


def test_the_old_escape_fails_the_checks_above() -> None:
    """discord.py's escape_markdown + escape_mentions, which the renderer replaces, escapes
    only the first bracket of a line: the second link stays live."""
    old = discord.utils.escape_mentions(discord.utils.escape_markdown(TWO_LINKS))
    assert "masked link: [b](https://z.w" in live(old)
    old = discord.utils.escape_mentions(discord.utils.escape_markdown(
        "[Claim your Nitro](https://x.y) @everyone"))
    assert live_links(old)


def test_what_a_reader_sees_is_the_text_itself() -> None:
    assert _reads_back(escape("[a](https://x.y) **b** @everyone")) == \
        "[a](https://x.y) **b** @everyone"
    assert escape("ann") == "ann" and escape("Ann Lee (2)") == "Ann Lee (2)"
    assert _reads_back(escape("a_b")) == "a_b"


def test_invisible_characters_go_and_text_of_them_only_is_a_question_mark() -> None:
    assert escape("a\u200bd\u200cm\u200di\u2060n\ufeff") == "admin"
    assert escape("\u202eevil") == "evil"
    assert escape("\u200b\u3164 \u200b") == "?"
    assert escape("  two\n\tlines  ") == "two lines"


def test_no_marker_can_be_forged() -> None:
    """A name ending in the delivery marker's characters (bot/discord/marker.py) loses them."""
    forged = mark("ann", "12")
    assert MARKS.search(forged) and not MARKS.search(escape(forged))


@pytest.mark.parametrize("limit", [NAME_LIMIT, EVENT_LIMIT, REASON_LIMIT, 7])
def test_length_is_capped_between_two_escapes(limit: int) -> None:
    long = "[a](https://x.y) " * 200  # 3,400 characters: 200 links
    shown = escape(long, limit)
    assert len(shown) <= limit and shown.endswith("…") and live(shown) == []
    two = escape("*" * 2000, 2000)  # 4,000 characters once escaped: cut to 2,000
    assert len(two) <= 2000 and two.endswith("…") and live(two) == []


def test_an_escape_is_never_cut_in_half() -> None:
    for limit in range(2, 40):
        shown = escape("*" * 100, limit)
        body = shown[:-1]  # without the "…"
        assert body == "\\*" * (len(body) // 2), (limit, shown)


@pytest.mark.parametrize("text", HOSTILE + ["a\\b", "ann", "\\", "x\\", "12. x"])
def test_it_is_idempotent(text: str) -> None:
    """A name escaped when the bot read it may be escaped again where it is repeated."""
    once = escape(text, 2000)
    assert escape(once, 2000) == once


def test_what_follows_a_trailing_backslash_is_not_escaped_by_it() -> None:
    shown = escape("name\\")
    assert shown == "name\\\\"
    assert live("**" + shown + "**", allowed=("emphasis",)) == []
    assert unescaped(shown + "*").endswith("*")


# --- end to end, on the fake Discord ---------------------------------------------------------
HOSTILE_HOSTS = ("x.y", "z.w")


def _bot_texts(fake: FakeDiscord) -> list[str]:
    """Every text the bot sent: message contents and embeds (posted or edited), interaction
    answers, and attached files."""
    out: list[str] = []
    for request in fake.requests:
        if request.method not in ("POST", "PATCH"):
            continue
        body = request.json if isinstance(request.json, dict) else None
        if body is None:
            continue
        if request.path.startswith("/interactions/"):
            body = body.get("data") or {}
        out.append(str(body.get("content") or ""))
        for embed in body.get("embeds") or []:
            out += [str(embed.get(k) or "") for k in ("title", "description")]
            out += [str(f.get(k) or "") for f in embed.get("fields") or [] for k in ("name", "value")]
            out += [str((embed.get(k) or {}).get(n) or "") for k, n in (("footer", "text"),
                                                                        ("author", "name"))]
    return [t for t in out if t] + _files(fake)


def _files(fake: FakeDiscord) -> list[str]:
    """The text of every file the bot attached, in channels and in answers: a JSON file's
    strings as a reader of the record sees them (decoded), any other file as it is."""
    messages = [m for channel in fake.channels.values() for m in fake.messages(channel)]
    for inter in fake.interactions.values():
        messages += [m for m in (inter.original, *inter.followups) if m is not None]
    out: list[str] = []
    for attached in (a for m in messages for a in m.attachments):
        text = attached.data.decode("utf-8", "replace")
        out += _strings(json.loads(text)) if attached.filename.endswith(".json") else [text]
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def assert_nothing_live(fake: FakeDiscord, *, seen: str) -> int:
    """No masked link at all, no link to the hostile hosts, no `@everyone`, `@here` or role
    mention in anything the bot sent; and the hostile text was repeated (`seen`, as shown)."""
    texts = _bot_texts(fake)
    assert any(seen in t for t in texts), f"{seen!r} was never repeated"
    for text in texts:
        found = [f for f in live(text) if f.startswith("masked link")
                 or (f.startswith("link") and any(h in f for h in HOSTILE_HOSTS))
                 or f in ("mention: @everyone", "mention: @here")
                 or f.startswith("mention: <@&")]
        assert found == [], (found, text[:300])
    return len(texts)


async def test_a_nickname_of_two_masked_links_is_no_link_in_the_challenge_or_the_match(
        world: World) -> None:
    fake = world.fake
    mallory = fake.add_member(world.guild, "mallory", nick=TWO_LINKS)
    async with umpire(world, friendly_matches=True) as up:
        await fake.sync()
        await fake.slash_command(mallory, world.general, "challenge", member=world.bob,
                                 game="rps-poker")
        [post] = [m for m in bot_posts(world, world.general) if "⚔️" in m.content]
        accept = next(str(c.get("custom_id")) for c in post.iter_components()
                      if str(c.get("custom_id")).endswith(":a"))
        await fake.click_button(world.bob, post, accept)
        await fake.wait_for(lambda: up.service.matches, 10)
        [match] = drive(up.service).matches()
        await up.idle(fake)
        room = channel_of(world, match, "public")
        await fake.slash_command(world.eve, room, "board")
        await up.service.abort(match.id, "test over")
        await up.idle(fake)
        export = await fake.slash_command(world.host, world.general, "match export",
                                          match=match.id)
        await fake.wait_for(lambda: export.finished, 10)
    assert live_links(post.content) == [], post.content
    assert assert_nothing_live(fake, seen=escape(TWO_LINKS)) > 5
    assert any(escape(TWO_LINKS) in f for f in _files(fake))  # the export's players


async def test_an_abort_reason_of_33_links_in_2000_characters_is_plain_and_capped(
        world: World) -> None:
    fake = world.fake
    link = "[free nitro](https://x.y/gift) "
    reason = (link * 70)[:2000]
    assert reason.count("](") >= 33
    async with umpire(world) as up:
        match = await start_rps(world, up)
        inter = await fake.slash_command(world.host, world.general, "match abort",
                                         match=match.id, reason=reason)
        await fake.wait_for(lambda: inter.finished, 10)
        await up.idle(fake)
        assert match.status != "active"
        last = bot_posts(world, channel_of(world, match, "public"))[-1].content
        shown = escape(reason, REASON_LIMIT)
        assert shown in last and len(shown) <= REASON_LIMIT
    assert_nothing_live(fake, seen=shown)


async def test_an_event_named_as_a_nitro_link_is_plain_text_in_every_post_and_feed(
        world: World) -> None:
    fake = world.fake
    name = "[Claim your Nitro](https://x.y) @everyone"
    feed = fake.add_text_channel(world.guild, "cup-feed")
    fake.set_overwrite(feed, world.guild.everyone, deny=P.SEND_MESSAGES |
                       P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS)
    fake.set_overwrite(feed, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)

    async def say(user: User, command: str, **options: Any) -> None:
        inter = await fake.slash_command(user, world.general, f"tournament {command}",
                                         options)
        await fake.wait_for(lambda: inter.finished, 10)

    async with umpire(world) as up:
        await say(world.host, "create", name=name, game="rps-poker", format="single",
                  break_seconds=0, feed=feed)
        await say(world.host, "open")
        for member in (world.alice, world.bob):
            await say(member, "join")
        await say(world.host, "close")
        await say(world.host, "start")
        await fake.wait_for(lambda: any(m.transport.get("event") for m in
                                        drive(up.service).matches()), 20)
        [match] = [m for m in drive(up.service).matches() if m.transport.get("event")]
        await up.idle(fake)
        await say(world.alice, "show")
        inter = await fake.slash_command(world.host, world.general, "match award",
                                         player=world.alice, match=match.id)
        await fake.wait_for(lambda: inter.finished, 10)
        await up.idle(fake)
        await say(world.host, "export")
        feed_posts = bot_posts(world, feed)
        general = [m for m in bot_posts(world, world.general) if "Claim" in m.content]
    shown = escape(name, EVENT_LIMIT)
    assert feed_posts and all(p.content.startswith(f"**{shown}") for p in feed_posts)
    assert shown in _files(fake)  # the event's record (/tournament export)
    assert len(general) >= 4, [m.content for m in general]
    assert_nothing_live(fake, seen=shown)


def test_a_setting_s_value_is_repeated_plainly_and_markup_in_a_text_setting_is_refused() -> None:
    from bot.discord.options import SettingsError, validate_settings
    from games.registry import get_game

    with pytest.raises(SettingsError) as refused:  # a backtick would end a code span
        validate_settings(get_game("rps-poker"), "decision_seconds=x`[a](https://x.y)`@here")
    assert live(str(refused.value), allowed=("emphasis",)) == [], str(refused.value)
    puzzles = ["[a](https://x.y)", "b", "c", "d", "e", "f", "g"]
    with pytest.raises(SettingsError, match="Discord reads as markup"):
        validate_settings(get_game("decoder"), json.dumps({"puzzles": puzzles}))
    puzzles[0] = "Sudoku"
    assert validate_settings(get_game("decoder"), json.dumps({"puzzles": puzzles})) == \
        {"puzzles": puzzles}
