"""In-memory model of the fake Discord: users, guilds, roles, channels, messages, interactions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

# Channel types (subset).
GUILD_TEXT = 0
DM = 1
GUILD_VOICE = 2
GUILD_CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (PUBLIC_THREAD, PRIVATE_THREAD)
THREAD_ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)  # minutes

# Overwrite target types.
OVERWRITE_ROLE = 0
OVERWRITE_MEMBER = 1

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15


@dataclass(eq=False)
class User:
    id: int
    username: str
    bot: bool = False
    global_name: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    mentionable: bool = False
    hoist: bool = False
    color: int = 0
    bot_id: int | None = None  # for the bot's managed integration role

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"


@dataclass(eq=False)
class Member:
    user: User
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))


@dataclass
class Overwrite:
    id: int
    type: int  # OVERWRITE_ROLE or OVERWRITE_MEMBER
    allow: int = 0
    deny: int = 0


@dataclass(eq=False)
class Channel:
    id: int
    type: int
    name: str | None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    overwrites: list[Overwrite] = field(default_factory=list)
    recipient: User | None = None  # DMs only
    last_message_id: int | None = None
    deleted: bool = False
    # Threads only (parent_id is the text channel they live in; no overwrites of their own).
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 10080
    archive_timestamp: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    created_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    member_ids: dict[int, dt.datetime] = field(default_factory=dict)  # user id -> joined
    message_count: int = 0

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    def overwrite_for(self, target_id: int) -> Overwrite | None:
        return next((o for o in self.overwrites if o.id == target_id), None)


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(eq=False)
class Message:
    id: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str = ""
    components: list[dict[str, Any]] = field(default_factory=list)
    embeds: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    nonce: str | None = None
    type: int = 0
    tts: bool = False
    timestamp: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    edited_timestamp: dt.datetime | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    mentions: list[User] = field(default_factory=list)
    mention_role_ids: list[int] = field(default_factory=list)
    deleted: bool = False
    # Ephemeral messages are only visible to this user.
    visible_to: int | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    def iter_components(self) -> list[dict[str, Any]]:
        """Every interactive component, flattened out of rows / containers / sections."""
        found: list[dict[str, Any]] = []

        def walk(items: list[dict[str, Any]]) -> None:
            for item in items:
                if "custom_id" in item:
                    found.append(item)
                walk(item.get("components", []))
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]])

        walk(self.components)
        return found

    def find_component(self, custom_id: str) -> dict[str, Any] | None:
        return next((c for c in self.iter_components() if c.get("custom_id") == custom_id), None)


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    #: Threads live apart: they do not count towards the 500-channel limit.
    thread_ids: list[int] = field(default_factory=list)
    joined_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))

    @property
    def everyone(self) -> Role:
        return self.roles[self.id]


@dataclass(eq=False)
class AppCommand:
    id: int
    application_id: int
    guild_id: int | None
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def type(self) -> int:
        return int(self.data.get("type", 1))


@dataclass(eq=False)
class InteractionResponse:
    """One POST /interactions/{id}/{token}/callback the bot made."""

    interaction_id: int
    type: int
    data: dict[str, Any]
    message: Message | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags", 0) or 0) & FLAG_EPHEMERAL)

    @property
    def content(self) -> str | None:
        """The answer's text; for a deferred answer ("thinking..."), the text it was edited to."""
        if self.type == 5 and self.message is not None:
            return self.message.content
        return self.data.get("content")


@dataclass(eq=False)
class Interaction:
    """An interaction the test side sent to the bot, plus everything the bot answered."""

    id: int
    token: str
    type: int
    user: User
    channel: Channel
    guild_id: int | None
    data: dict[str, Any]
    payload: dict[str, Any]
    created_monotonic: float
    message: Message | None = None  # the message a component lives on
    responses: list[InteractionResponse] = field(default_factory=list)
    original: Message | None = None  # the response message (@original)
    followups: list[Message] = field(default_factory=list)
    responded_monotonic: float | None = None  # when the first callback arrived
    opened_by: Interaction | None = None  # a modal submit's: the interaction that opened it

    @property
    def response(self) -> InteractionResponse | None:
        return self.responses[0] if self.responses else None

    @property
    def responded(self) -> bool:
        return bool(self.responses)

    @property
    def acked_after(self) -> float | None:
        """Seconds from the interaction to the bot's first callback (Discord allows 3)."""
        return None if self.responded_monotonic is None else \
            self.responded_monotonic - self.created_monotonic

    @property
    def answer(self) -> Message | None:
        """The message the user sees as the bot's answer: the response's own (a message, an
        edited "thinking...", an updated component message), else, after an acknowledgment
        without a message (type 6), the first follow-up."""
        if not self.responses:
            return None
        if self.responses[0].type == 6:
            return self.followups[0] if self.followups else None
        return self.original

    @property
    def finished(self) -> bool:
        """Answered, and a deferred "thinking..." answer edited into its final text."""
        if not self.responses:
            return False
        if self.responses[0].type == 5:
            return self.original is not None and not self.original.flags & FLAG_LOADING
        return True
