"""The fake against Discord's OpenAPI spec (conformance.py, spec/): the checker catches a wrong
request and a wrong answer and fails the test; the fake answers in Discord's shapes
(components with ids, 201 for a new channel or thread, a deferred callback's resource, the
command echo) and enforces Discord's limits (the embed total, select options, embed parts,
modals) with Discord's error."""

from __future__ import annotations

import json
import re
from typing import Any

import aiohttp
import pytest

from testbed.fake_discord import payloads
from testbed.fake_discord.conformance import SPEC_FILE, SpecChecker, default_checker
from testbed.fake_discord.server import FakeDiscord
from testbed.fake_discord.spec.extract import extract, fake_routes
from tests.support.fake_world import World, world  # noqa: F401

BUTTON_ROW = {"type": 1, "components": [
    {"type": 2, "style": 1, "label": f"b{i}", "custom_id": f"b{i}",
     "emoji": {"name": "🎲", "id": None}} for i in range(5)]}  # a unicode emoji, as discord.py
SELECT_ROW = {"type": 1, "components": [{
    "type": 3, "custom_id": "pick", "options": [{"label": "A", "value": "a"}]}]}


async def rest(fake: FakeDiscord, method: str, path: str, body: Any = None,
               **query: str) -> tuple[int, Any]:
    """One REST call with the bot's token, as discord.py makes it: (status, JSON or None)."""
    async with aiohttp.ClientSession() as session, session.request(
            method, f"{fake.base_url}{path}", json=body, params=query,
            headers={"Authorization": f"Bot {fake.token}"}) as response:
        raw = await response.read()
        return response.status, json.loads(raw) if raw else None


def field_error(body: dict[str, Any], path: str) -> dict[str, Any]:
    """The first `_errors` entry of a 50035 body at a dotted path."""
    assert body["code"] == 50035, body
    node = body["errors"]
    for part in path.split("."):
        node = node[part]
    return node["_errors"][0]


# -- the checker -----------------------------------------------------------------------------

def test_the_extract_has_an_operation_for_every_route_the_fake_serves() -> None:
    checker = default_checker()
    for method, template in fake_routes():
        path = re.sub(r"\{\w+\}", "1", template)
        assert checker.spec_path(method, path) is not None, f"{method} {template}"


def test_the_extract_is_what_the_script_keeps_of_the_spec() -> None:
    """Extracting again from the carried extract changes nothing: it holds exactly the
    operations of the fake's routes and the components they reach (rerun extract.py after
    adding a route)."""
    carried = json.loads(SPEC_FILE.read_text())
    again = extract(carried, fake_routes())
    assert again["paths"] == carried["paths"]
    assert again["components"] == carried["components"]


async def test_a_wrong_request_is_a_violation_and_fails_the_test(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    status, _ = await rest(fake, "POST", f"/channels/{world.general.id}/messages",
                           {"content": "hi", "tts": "yes"})
    assert status == 200  # the fake is lenient here; the checker is not
    [wrong] = fake.spec_violations
    assert wrong.part == "request" and "tts" in wrong.message
    with pytest.raises(AssertionError, match="differences from Discord's spec"):
        fake.assert_clean()
    assert fake.take_spec_violations() == [wrong] and fake.spec_violations == []


async def test_a_wrong_answer_is_a_violation(fake_discord: FakeDiscord, world: World,  # noqa: F811
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_discord
    right = payloads.client_user(fake.bot_user)
    monkeypatch.setattr(payloads, "client_user", lambda u: {**right, "id": u.id})  # a number
    status, answer = await rest(fake, "GET", "/users/@me")
    assert status == 200 and answer["id"] == fake.bot_user.id
    [wrong] = fake.take_spec_violations()
    assert wrong.part == "response 200" and wrong.message.startswith("at id:")


def test_the_tolerances_hold_for_requests_only() -> None:
    checker = default_checker()
    # discord.py: an overwrite's bits as strings, a recipient's id as a number
    assert checker.check_request("PUT", "/channels/1/permissions/2", {},
                                 {"type": 0, "allow": "1024", "deny": "0"}) == []
    assert checker.check_request("POST", "/users/@me/channels", {}, {"recipient_id": 5}) == []
    assert checker.check_request("PUT", "/channels/1/permissions/2", {},
                                 {"type": 0, "allow": "all"}) != []
    user = payloads.user(FakeDiscord().bot_user)
    assert checker.check_response("GET", "/users/1", 200, user) == []
    assert checker.check_response("GET", "/users/1", 200, {**user, "id": 5}) != []


def test_an_undeclared_status_and_a_missing_body_are_violations() -> None:
    checker = SpecChecker(json.loads(SPEC_FILE.read_text()))
    [status] = checker.check_response("POST", "/guilds/1/channels", 200, {})
    assert "status 200" in status.message
    [body] = checker.check_response("GET", "/users/@me", 200)
    assert "none was sent" in body.message
    [query] = checker.check_request("GET", "/channels/1/messages", {"limit": "500"})
    assert query.part == "query" and "limit" in query.message


# -- the fake's answers ----------------------------------------------------------------------

def component_ids(message: dict[str, Any]) -> list[Any]:
    found = []
    for row in message["components"]:
        found.append(row.get("id"))
        found.extend(c.get("id") for c in row["components"])
    return found


async def test_components_come_back_with_ids_when_created_fetched_and_edited(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    channel = f"/channels/{world.general.id}/messages"
    status, created = await rest(fake, "POST", channel,
                                 {"content": "x", "components": [BUTTON_ROW, SELECT_ROW]})
    assert status == 200
    assert component_ids(created) == list(range(1, 9))  # in reading order, a row first
    assert created["components"][0]["components"][0]["emoji"] == {"name": "🎲"}  # no null id
    select = created["components"][1]["components"][0]
    assert (select["min_values"], select["max_values"]) == (1, 1)  # Discord's defaults
    _, fetched = await rest(fake, "GET", f"{channel}/{created['id']}")
    assert component_ids(fetched) == list(range(1, 9))
    mine = {**SELECT_ROW, "id": 2}  # an id the bot gives is kept, and skipped
    _, edited = await rest(fake, "PATCH", f"{channel}/{created['id']}",
                           {"components": [BUTTON_ROW, mine]})
    assert component_ids(edited) == [1, 3, 4, 5, 6, 7, 2, 8]
    assert fake.spec_violations == []


async def test_a_new_channel_and_a_new_thread_answer_201(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.set_role_permissions(fake.bot_role(world.guild), 0x8)  # administrator
    status, channel = await rest(fake, "POST", f"/guilds/{world.guild.id}/channels",
                                 {"name": "room", "type": 0})
    assert status == 201 and channel["name"] == "room"
    status, thread = await rest(fake, "POST", f"/channels/{channel['id']}/threads",
                                {"name": "t", "type": 11})
    assert status == 201 and thread["parent_id"] == channel["id"]
    assert fake.spec_violations == []


async def test_a_deferred_callback_with_response_has_no_message_resource(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    inter = fake._interaction(2, world.alice, world.general, {"name": "x", "type": 1})
    status, answer = await rest(fake, "POST", f"/interactions/{inter.id}/{inter.token}/callback",
                                {"type": 5}, with_response="true")
    assert status == 200
    assert "resource" not in answer
    assert answer["interaction"]["response_message_loading"] is True
    assert answer["interaction"]["response_message_id"] == str(inter.original.id)
    inter = fake._interaction(2, world.alice, world.general, {"name": "x", "type": 1})
    _, answer = await rest(fake, "POST", f"/interactions/{inter.id}/{inter.token}/callback",
                           {"type": 4, "data": {"content": "hi"}}, with_response="true")
    assert answer["resource"]["type"] == 4 and answer["resource"]["message"]["content"] == "hi"
    assert fake.spec_violations == []


async def test_a_modal_submits_answer_names_the_interaction_that_opened_it(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    opened = fake._interaction(2, world.alice, world.general, {"name": "x", "type": 1})
    submit = fake._interaction(5, world.alice, world.general, {"custom_id": "m", "components": []})
    submit.opened_by = opened
    _, answer = await rest(fake, "POST", f"/interactions/{submit.id}/{submit.token}/callback",
                           {"type": 4, "data": {"content": "ok"}}, with_response="true")
    meta = answer["resource"]["message"]["interaction_metadata"]
    assert meta["type"] == 5 and meta["triggering_interaction_metadata"]["id"] == str(opened.id)
    assert fake.spec_violations == []


async def test_the_command_echo_has_permissions_as_a_string_and_the_install_context(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    # as discord.py sends it: the permission set as a number, no install context
    sent = [{"name": "match", "description": "d", "type": 1, "default_member_permissions": 32,
             "integration_types": None},
            {"name": "help", "description": "d", "type": 1, "default_member_permissions": None}]
    status, echo = await rest(
        fake, "PUT", f"/applications/{fake.application_id}/guilds/{world.guild.id}/commands", sent)
    assert status == 200
    assert [c["default_member_permissions"] for c in echo] == ["32", None]
    assert [c["integration_types"] for c in echo] == [[0], [0]]
    assert fake.spec_violations == []


# -- Discord's limits ------------------------------------------------------------------------

def embed(total: int) -> dict[str, Any]:
    """An embed of exactly `total` counted characters (at most 6,100), each part within its
    own limit."""
    footer = total - 256 - 4096 - 256 - 1024 - 256
    assert 0 < footer <= 2048
    return {"title": "t" * 256, "description": "d" * 4096,
            "fields": [{"name": "n" * 256, "value": "v" * 1024}],
            "footer": {"text": "f" * footer}, "author": {"name": "a" * 256}}


async def test_the_embeds_total_is_6000_characters(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    channel = f"/channels/{world.general.id}/messages"
    status, posted = await rest(fake, "POST", channel, {"embeds": [embed(6000)]})
    assert status == 200
    assert posted["embeds"][0]["type"] == "rich" and posted["embeds"][0]["fields"][0]["inline"] \
        is False  # as Discord stores an embed; an edit too
    _, edited = await rest(fake, "PATCH", f"{channel}/{posted['id']}",
                           {"embeds": [{"fields": [{"name": "n", "value": "v"}]}]})
    assert edited["embeds"] == [{"type": "rich", "fields": [{"name": "n", "value": "v",
                                                             "inline": False}]}]
    status, body = await rest(fake, "POST", channel, {"embeds": [embed(6001)]})
    assert status == 400
    assert field_error(body, "embeds") == {
        "code": "MAX_EMBED_SIZE_EXCEEDED", "message": "Embed size exceeds maximum size of 6000"}
    # over two embeds, each well within
    halves = [{"description": "d" * 3000}, {"description": "d" * 3001}]
    status, _ = await rest(fake, "POST", channel, {"embeds": halves})
    assert status == 400
    assert fake.spec_violations == []  # the total is in no schema: only the fake knows it


@pytest.mark.parametrize(("part", "where", "limit"), [
    ({"fields": [{"name": "n", "value": "x"}]}, "fields.0.value", 1024),
    ({"fields": [{"name": "x", "value": "v"}]}, "fields.0.name", 256),
    ({"footer": {"text": "x"}}, "footer.text", 2048),
    ({"author": {"name": "x"}}, "author.name", 256),
])
async def test_an_embeds_field_footer_and_author_have_their_limits(
        fake_discord: FakeDiscord, world: World, part: dict[str, Any], where: str,  # noqa: F811
        limit: int) -> None:
    fake = fake_discord
    channel = f"/channels/{world.general.id}/messages"

    def sized(n: int) -> dict[str, Any]:
        return json.loads(json.dumps(part).replace('"x"', json.dumps("x" * n)))

    status, _ = await rest(fake, "POST", channel, {"embeds": [sized(limit)]})
    assert status == 200
    status, body = await rest(fake, "POST", channel, {"embeds": [sized(limit + 1)]})
    assert status == 400
    assert field_error(body, f"embeds.0.{where}") == {
        "code": "BASE_TYPE_MAX_LENGTH", "message": f"Must be {limit} or fewer in length."}
    assert fake.take_spec_violations()  # the spec has these lengths too


@pytest.mark.parametrize("key", ["label", "value", "description"])
async def test_a_select_options_label_value_and_description_are_100_at_most(
        fake_discord: FakeDiscord, world: World, key: str) -> None:  # noqa: F811
    fake = fake_discord
    channel = f"/channels/{world.general.id}/messages"

    def select(n: int) -> dict[str, Any]:
        option = {"label": "A", "value": "a", key: "x" * n}
        return {"components": [{"type": 1, "components": [
            {"type": 3, "custom_id": "pick", "options": [option]}]}]}

    status, _ = await rest(fake, "POST", channel, select(100))
    assert status == 200
    status, body = await rest(fake, "POST", channel, select(101))
    assert status == 400
    assert field_error(body, f"components.0.components.0.options.0.{key}")["message"] == \
        "Must be 100 or fewer in length."
    assert fake.take_spec_violations()


def text_input(**over: Any) -> dict[str, Any]:
    return {"type": 1, "components": [
        {"type": 4, "custom_id": "move", "style": 1, "label": "Move", **over}]}


@pytest.mark.parametrize(("over", "where", "limit"), [
    ({"title": "x"}, "title", 45),
    ({"components": [text_input(label="x")]}, "components.0.components.0.label", 45),
    ({"components": [text_input(placeholder="x")]}, "components.0.components.0.placeholder", 100),
    ({"components": [text_input(value="x")]}, "components.0.components.0.value", 4000),
])
async def test_a_modals_title_and_text_inputs_have_their_limits(
        fake_discord: FakeDiscord, world: World, over: dict[str, Any], where: str,  # noqa: F811
        limit: int) -> None:
    fake = fake_discord

    async def open_modal(n: int) -> tuple[int, Any]:
        data = {"custom_id": "m", "title": "Your move", "components": [text_input()]}
        data.update(json.loads(json.dumps(over).replace('"x"', json.dumps("x" * n))))
        inter = fake._interaction(2, world.alice, world.general, {"name": "x", "type": 1})
        return await rest(fake, "POST", f"/interactions/{inter.id}/{inter.token}/callback",
                          {"type": 9, "data": data})

    status, _ = await open_modal(limit)
    assert status == 204
    status, body = await open_modal(limit + 1)
    assert status == 400
    message = field_error(body, f"data.{where}")["message"]
    assert str(limit) in message and message.endswith("in length.")
    assert fake.take_spec_violations()
