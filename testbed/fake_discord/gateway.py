"""The fake gateway: a websocket endpoint speaking Discord gateway v10 (json, optional zlib-stream)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import WSMsgType, web

log = logging.getLogger(__name__)

# Opcodes
DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE_STATE = 0, 1, 2, 3, 4
RESUME, RECONNECT, REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 6, 7, 8, 9, 10, 11

# Intents
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12
MESSAGE_CONTENT = 1 << 15

_GUILDS_EVENTS = {
    "GUILD_CREATE",
    "GUILD_UPDATE",
    "GUILD_DELETE",
    "GUILD_ROLE_CREATE",
    "GUILD_ROLE_UPDATE",
    "GUILD_ROLE_DELETE",
    "CHANNEL_CREATE",
    "CHANNEL_UPDATE",
    "CHANNEL_DELETE",
    "THREAD_CREATE",
    "THREAD_UPDATE",
    "THREAD_DELETE",
    "THREAD_LIST_SYNC",
}
_MEMBER_EVENTS = {"GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE"}
_MESSAGE_EVENTS = {"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE", "MESSAGE_DELETE_BULK"}


class GatewayHost(Protocol):
    """What the gateway needs from the rest of the fake."""

    token: str
    bot_user_id: int

    def ready_payload(self, session_id: str, resume_url: str) -> dict[str, Any]: ...

    def notify(self) -> None:
        """Wake waiters: connection state changed."""

    def guild_create_payloads(self, intents: int) -> list[dict[str, Any]]: ...

    def member_chunk(
        self, guild_id: int, query: str | None, limit: int, user_ids: list[int] | None
    ) -> list[dict[str, Any]]: ...


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    seq: int = 0
    buffer: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=5000))
    connection: GatewayConnection | None = None
    invalidated: bool = False

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq


class GatewayConnection:
    """One websocket. Frames go through a queue so sends are ordered and flushable."""

    def __init__(self, ws: web.WebSocketResponse, path: str, compress: bool) -> None:
        self.ws = ws
        self.path = path
        self.session: GatewaySession | None = None
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._zlib = zlib.compressobj() if compress else None
        self._writer = asyncio.create_task(self._write_loop(), name="fake-discord-gateway-writer")
        self.dead = False
        self.server_closed = False  # True when the fake (not the client) closed the socket
        self.barriers: list[tuple[int, asyncio.Future[None]]] = []

    def send(self, payload: dict[str, Any]) -> None:
        if not self.dead:
            self.queue.put_nowait(payload)

    async def _write_loop(self) -> None:
        while True:
            payload = await self.queue.get()
            try:
                if not self.dead and not self.ws.closed:
                    raw = json.dumps(payload, separators=(",", ":"))
                    if self._zlib is not None:
                        data = self._zlib.compress(raw.encode()) + self._zlib.flush(
                            zlib.Z_SYNC_FLUSH
                        )
                        await self.ws.send_bytes(data)
                    else:
                        await self.ws.send_str(raw)
            except (ConnectionError, RuntimeError) as exc:
                log.debug("gateway send failed: %s", exc)
                self.dead = True
            finally:
                self.queue.task_done()

    async def drain(self) -> None:
        await self.queue.join()

    async def stop_writer(self) -> None:
        self.dead = True
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer
        # Release anyone blocked in drain(): these frames will never be written.
        while not self.queue.empty():
            self.queue.get_nowait()
            self.queue.task_done()


class Gateway:
    def __init__(self, host: GatewayHost, *, heartbeat_interval_ms: int = 41250) -> None:
        self.host = host
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.sessions: dict[str, GatewaySession] = {}
        self.connections: list[GatewayConnection] = []
        self.resume_url = ""
        #: (path, query) of every websocket opened by a client.
        self.connection_log: list[tuple[str, dict[str, str]]] = []
        #: Every op the clients sent, as (op, d).
        self.received: list[tuple[int, Any]] = []
        self.identify_count = 0
        self.resume_count = 0

    # -- dispatch ------------------------------------------------------

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Queue an event to every live session (buffered for resumable, disconnected ones)."""
        for session in list(self.sessions.values()):
            if session.invalidated or not self._wants(session, event, data):
                continue
            self._dispatch_to(session, event, self._redact(session, event, data))

    def _dispatch_to(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        payload = {"op": DISPATCH, "t": event, "s": session.next_seq(), "d": data}
        session.buffer.append(payload)
        if session.connection is not None:
            session.connection.send(payload)

    def _wants(self, session: GatewaySession, event: str, data: dict[str, Any]) -> bool:
        intents = session.intents
        if event in _GUILDS_EVENTS:
            return bool(intents & GUILDS)
        if event in _MEMBER_EVENTS:
            user_id = str((data.get("user") or {}).get("id"))
            return bool(intents & GUILD_MEMBERS) or user_id == str(self.host.bot_user_id)
        if event == "THREAD_MEMBERS_UPDATE":  # others' joins/leaves need GUILD_MEMBERS
            if intents & GUILD_MEMBERS:
                return bool(intents & GUILDS)
            bot = str(self.host.bot_user_id)
            return bool(intents & GUILDS) and (
                any(m["user_id"] == bot for m in data.get("added_members", []))
                or bot in data.get("removed_member_ids", []))
        if event in _MESSAGE_EVENTS:
            needed = GUILD_MESSAGES if data.get("guild_id") else DIRECT_MESSAGES
            return bool(intents & needed)
        return True

    def _redact(self, session: GatewaySession, event: str, data: dict[str, Any]) -> dict[str, Any]:
        """Without MESSAGE_CONTENT, guild messages by others arrive without content (unless mentioned)."""
        if event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE") or session.intents & MESSAGE_CONTENT:
            return data
        if not data.get("guild_id"):
            return data
        bot_id = str(self.host.bot_user_id)
        if str(data.get("author", {}).get("id")) == bot_id:
            return data
        if any(str(u.get("id")) == bot_id for u in data.get("mentions", [])):
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until every queued frame has been written to the sockets."""
        live = [c for c in self.connections if not c.dead]
        if live:
            await asyncio.wait_for(asyncio.gather(*(c.drain() for c in live)), timeout)

    async def barrier(self, timeout: float = 5.0) -> None:
        """Wait until every connected client has *parsed* all events sent so far.

        The fake asks for a heartbeat (op 1); discord.py answers in order, after running the
        parsers of every earlier frame, with its last sequence number.
        """
        loop = asyncio.get_running_loop()
        futures = []
        for conn in self.connections:
            if conn.dead or conn.session is None:
                continue
            fut: asyncio.Future[None] = loop.create_future()
            conn.barriers.append((conn.session.seq, fut))
            conn.send({"op": HEARTBEAT, "d": None, "s": None, "t": None})
            futures.append(fut)
        if futures:
            await asyncio.wait_for(asyncio.gather(*futures), timeout)

    def _release_barriers(self, conn: GatewayConnection, seq: Any) -> None:
        acked = int(seq) if isinstance(seq, int) else -1
        keep = []
        for target, fut in conn.barriers:
            if fut.done():
                continue
            if acked >= target:
                fut.set_result(None)
            else:
                keep.append((target, fut))
        conn.barriers = keep

    # -- connection control -------------------------------------------

    async def disconnect(self, code: int = 4000, *, invalidate: bool = False) -> None:
        """Close every client websocket (code 4000 lets discord.py resume)."""
        if invalidate:
            for session in self.sessions.values():
                session.invalidated = True
        await self.flush()
        for conn in list(self.connections):
            conn.server_closed = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ws.close(code=code, message=b"fake disconnect"), 5)

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT; discord.py closes and resumes."""
        for conn in self.connections:
            conn.send({"op": RECONNECT, "d": None})

    async def close(self) -> None:
        for conn in list(self.connections):
            conn.server_closed = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ws.close(code=1001, message=b"server stopping"), 2)
            await conn.stop_writer()
        self.connections.clear()

    # -- websocket handler --------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, heartbeat=None)
        await ws.prepare(request)
        query = dict(request.query)
        self.connection_log.append((request.path, query))
        conn = GatewayConnection(ws, request.path, compress=query.get("compress") == "zlib-stream")
        self.connections.append(conn)
        conn.send(
            {
                "op": HELLO,
                "d": {"heartbeat_interval": self.heartbeat_interval_ms},
                "s": None,
                "t": None,
            }
        )
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._on_frame(conn, json.loads(msg.data))
                elif msg.type == WSMsgType.BINARY:
                    await self._on_frame(conn, json.loads(msg.data.decode()))
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                # A client that closes cleanly (1000/1001) ends its session, as on Discord.
                if not conn.server_closed and ws.close_code in (1000, 1001):
                    session.invalidated = True
                    self.sessions.pop(session.id, None)
            for _, fut in conn.barriers:
                if not fut.done():
                    fut.set_exception(ConnectionError("gateway connection closed"))
            if conn in self.connections:
                self.connections.remove(conn)
            await conn.stop_writer()
            self.host.notify()
        return ws

    async def _on_frame(self, conn: GatewayConnection, frame: dict[str, Any]) -> None:
        op, d = frame.get("op"), frame.get("d")
        self.received.append((op, d))
        if op == HEARTBEAT:
            conn.send({"op": HEARTBEAT_ACK, "d": None, "s": None, "t": None})
            self._release_barriers(conn, d)
        elif op == IDENTIFY:
            await self._identify(conn, d or {})
        elif op == RESUME:
            await self._resume(conn, d or {})
        elif op == REQUEST_MEMBERS:
            self._request_members(conn, d or {})
        elif op in (PRESENCE, VOICE_STATE):
            pass
        else:
            log.warning("fake gateway: unhandled op %s", op)

    async def _identify(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if d.get("token") != self.host.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        self.identify_count += 1
        session = GatewaySession(id=secrets.token_hex(16), intents=int(d.get("intents", 0)))
        self.sessions[session.id] = session
        session.connection = conn
        conn.session = session
        ready = self.host.ready_payload(session.id, self.resume_url)
        if "shard" in d:
            ready["shard"] = d["shard"]
        self._dispatch_to(session, "READY", ready)
        for guild in self.host.guild_create_payloads(session.intents):
            self._dispatch_to(session, "GUILD_CREATE", guild)
        self.host.notify()

    async def _resume(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        session = self.sessions.get(str(d.get("session_id")))
        if d.get("token") != self.host.token or session is None or session.invalidated:
            conn.send({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        self.resume_count += 1
        old = session.connection
        if old is not None and old is not conn:
            old.session = None
            with contextlib.suppress(Exception):
                await old.ws.close(code=4000)
        session.connection = conn
        conn.session = session
        last_seq = int(d.get("seq") or 0)
        for payload in list(session.buffer):
            if payload["s"] > last_seq:
                conn.send(payload)
        self._dispatch_to(session, "RESUMED", {"_trace": ["fake-discord"]})
        self.host.notify()

    def _request_members(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if conn.session is None:
            return
        user_ids = d.get("user_ids")
        if isinstance(user_ids, (str, int)):
            user_ids = [user_ids]
        members = self.host.member_chunk(
            int(d["guild_id"]),
            d.get("query"),
            int(d.get("limit") or 0),
            [int(u) for u in user_ids] if user_ids else None,
        )
        data: dict[str, Any] = {
            "guild_id": str(d["guild_id"]),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if d.get("nonce"):
            data["nonce"] = d["nonce"]
        self._dispatch_to(conn.session, "GUILD_MEMBERS_CHUNK", data)
