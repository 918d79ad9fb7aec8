"""The database tables (SQLAlchemy 2 typed models).

The action log is the source of truth: a match is its settings, seed and the append-only
list of accepted commands; snapshots only make loading faster; the outbox holds every
message the umpire owes someone until it has been delivered; deadlines hold every running
clock as absolute UTC times, so no clock lives only in memory.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON, list[Any]: JSON}


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(40))
    settings: Mapped[dict[str, Any]]
    seed: Mapped[str] = mapped_column(String(128))
    seed_commitment: Mapped[str] = mapped_column(String(64))
    #: The random salt the commitment covers with the seed (hex; revealed with the seed at the
    #: end). None for a match stored before commitments were salted (SHA-256 of the seed alone).
    seed_salt: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)
    #: What the commitment published at the start covers besides the seed (players,
    #: settings, start time): {"sha256", "parts"} (bot/match_commitment.py). None for a
    #: match stored before it existed.
    match_commitment: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True,
                                                                    default=None)
    players: Mapped[list[Any]]  # [{"id", "name", "bot"}], seat order (seat 0 = advantage)
    status: Mapped[str] = mapped_column(String(16), index=True)  # active|paused|finished|aborted
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    transport: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # channel ids etc.
    action_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    #: The shard whose process umpires the match: (guild id >> 22) % shard count (0 off a
    #: server), set when the match is stored (bot/store/leases.py).
    shard: Mapped[int] = mapped_column(Integer, default=0, server_default="0", index=True)


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_actions_match_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, 3... within the match
    seat: Mapped[int] = mapped_column(Integer)
    command: Mapped[dict[str, Any]]
    source: Mapped[str] = mapped_column(String(16))  # player|bot|timeout|host
    created_at: Mapped[datetime]


class SnapshotRow(Base):
    __tablename__ = "snapshots"
    __table_args__ = (Index("ix_snapshots_match_seq", "match_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # state after this many actions
    state: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class OutboxRow(Base):
    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_undelivered", "delivered_at", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # the action that produced it (0: start/host)
    audience: Mapped[str] = mapped_column(String(16))  # public|seat0|seat1|umpire
    text: Mapped[str] = mapped_column(Text)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime]
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class DeadlineRow(Base):
    """A running decision clock. `limit_at` ends the turn timer, `deadline_at` the time bank."""

    __tablename__ = "deadlines"
    __table_args__ = (
        UniqueConstraint("match_id", "prompt_key", name="uq_deadlines_match_key"),
        Index("ix_deadlines_status", "status", "deadline_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    prompt_key: Mapped[str] = mapped_column(String(200))
    seat: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime]
    limit_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    reminders_sent: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16))  # armed|done|expired


class ClockStopRow(Base):
    """A decision's clock stopped because a channel it depends on is down or held: since
    when, and which channels it waits for. Stored before the stop takes effect, so that a
    restart keeps it (the start-up's shift for the downtime moves `since` with the clocks)."""

    __tablename__ = "clock_stops"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    prompt_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    since: Mapped[datetime]
    channels: Mapped[list[Any]] = mapped_column(JSON, default=list)


class ChallengeRow(Base):
    """A `/challenge` posted with Accept / Decline buttons (its message id), answered or not:
    the open ones block another of the same pair, the latest of a member starts the
    server's cooldown; old rows are deleted when a new challenge is stored."""

    __tablename__ = "challenges"
    __table_args__ = (Index("ix_challenges_guild", "guild_id", "created_at"),)

    message_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    challenger: Mapped[int] = mapped_column(BigInteger)
    opponent: Mapped[int] = mapped_column(BigInteger)
    game: Mapped[str] = mapped_column(String(40))
    link: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime]
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ServiceStateRow(Base):
    """Small key/value facts about the service itself (the heartbeat)."""

    __tablename__ = "service_state"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    updated_at: Mapped[datetime]


class ShardLeaseRow(Base):
    """Which process umpires a shard's matches, until when (renewed every few seconds; an
    expired lease may be taken over). `heartbeat_at`: the owner's last renewal, from which
    the downtime charged to no one is measured when another process takes the shard over."""

    __tablename__ = "shard_leases"

    shard: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    owner: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime]
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    #: A process whose preferred shard this is, waiting for the owner to hand it back.
    wanted_by: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The fencing token: grows by one each time the lease is taken. Every write of a
    #: sharded match is made only if the lease is still its writer's at the generation the
    #: writer took it at (bot/store/fence.py).
    generation: Mapped[int] = mapped_column(BigInteger, server_default="0")


class GuildSettingsRow(Base):
    """One Discord server's settings. A None column means "the default from config.toml"."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    host_role_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_channel_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    friendly_matches: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    game_settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # slug -> settings
    channel_mode: Mapped[str | None] = mapped_column(String(16), nullable=True)
    archive_delay_minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Seconds a member waits between two `/challenge`s (None: the config default).
    challenge_cooldown_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    updated_at: Mapped[datetime]


class MatchResultRow(Base):
    """An ended match, for history and ratings: written in the same transaction as the
    result itself. `changes` holds each rated player's rating before and after."""

    __tablename__ = "match_results"
    __table_args__ = (Index("ix_match_results_guild_game", "guild_id", "game", "match_id"),)

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(BigInteger)  # 0: not played on a server
    game: Mapped[str] = mapped_column(String(40))
    player0: Mapped[str] = mapped_column(String(64), index=True)  # seat 0 (the advantage)
    player1: Mapped[str] = mapped_column(String(64), index=True)
    names: Mapped[list[Any]]  # the players' names then, seat order
    outcome: Mapped[str] = mapped_column(String(16))  # win|draw|aborted
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)  # seat
    reason: Mapped[str] = mapped_column(Text, default="")
    rated: Mapped[bool] = mapped_column(Boolean)
    changes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # id -> [mu0, s0, mu1, s1]
    ended_at: Mapped[datetime]


class RatingRow(Base):
    """A player's rating in one game on one server (openskill Plackett-Luce: mu, sigma)."""

    __tablename__ = "ratings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    played: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime]


class EventRow(Base):
    """A tournament ("event"): many matches of one game, run round after round by the bot.
    `state` is the format's whole state (bot/tournament/formats), stored in the same
    transaction as each match result that changes it; `data` the rest of the pure event
    (bot/tournament/event.py: seed commitment, seeding, pairing -> match)."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_guild_status", "guild_id", "status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)  # 0: not on a server (the terminal)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(40))
    settings: Mapped[dict[str, Any]]
    format: Mapped[str] = mapped_column(String(20))
    rated: Mapped[bool] = mapped_column(Boolean)
    break_seconds: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), index=True)  # signup|running|paused|ended
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: The next round opens then (the break after the last match of a round), or None.
    round_opens_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    #: The one message `/tournament show` keeps up to date (edited, never posted again).
    message_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class EventEntrantRow(Base):
    """A player of an event, in seed order once seeded (sign-up order before)."""

    __tablename__ = "event_entrants"

    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"),
                                          primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    name: Mapped[str] = mapped_column(String(100))
    bot: Mapped[str | None] = mapped_column(String(200), nullable=True)
    position: Mapped[int] = mapped_column(Integer)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)


class EventMatchRow(Base):
    """Which match plays which pairing of an event (a pairing played again, after an
    abort, has the later match)."""

    __tablename__ = "event_matches"

    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"),
                                          primary_key=True)
    pairing: Mapped[str] = mapped_column(String(40), primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          index=True)


__all__ = [
    "ActionRow", "Base", "DeadlineRow", "EventEntrantRow", "EventMatchRow", "EventRow", "GuildSettingsRow", "MatchResultRow", "MatchRow",
    "OutboxRow", "RatingRow", "ServiceStateRow", "ShardLeaseRow",
    "SnapshotRow", "UTCDateTime",
]
