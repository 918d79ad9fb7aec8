"""Discord at community scale: matches of every game through the fake Discord.

    python -m bench.discord [--matches 20] [--servers N] [--minutes 2] [--think 4]
                            [--play type|click|both] [--no-limits] [--seed 1]

Two phases, on one bot (the real discord.py client, `UmpireBot`, its service on a SQLite file)
against the fake Discord (testbed/fake_discord):

1. Requests per move: each of the five games played to the end alone by two members typing
   their moves (a text the game accepts, chosen at random among its choices and the prompt's
   examples), without pauses. It prints the REST requests per accepted move per game, by
   route, and the posts by channel kind (room, table, log; 429s apart); "play only" counts the requests from the moment the match has started (its
   channels made, its first prompts posted) until its last message is delivered, less the
   work of closing its channels (permissions, archive, the Rematch offer).
2. Load: `--matches` concurrent matches on `--servers` servers, the games in turn, each
   seat a member who thinks `--think` seconds (exponential, mean) before typing a move,
   for `--minutes` (the clock of the run is the wall clock: simulated minutes = minutes run).
   A slot whose match ends starts the next one. It prints delivery lag (a message's commit
   until Discord answered its post) p50/p99/max per channel kind (room, table, host log) per
   minute, the 429s Discord answered (all, and once steady: after the first minute), and for
   every message carrying a decision how long after its clock started it became visible
   (the service restarts a clock whose prompt arrived later than its grace).

`--play click`: the members click what a prompt offers (its buttons and menus, through the
fake's interaction path: bench/clicks.py), and type only where it offers nothing; a click is
answered in its interaction (bot/discord/answer.py), which Discord's global limit does not
count. `--play both`: phase 1 typed then clicked, phase 2 clicked. Phase 1 prints the global
requests per move by where they went (room, table, log posts; "other": start and close).

`--load-only` skips phase 1, `--matches 0` phase 2; `--games` takes a subset; `--scale` runs
every window (the limits', the log's, the pacer's) that many times as long (a test
of requests per move runs at 0.1). The fake Discord applies Discord's
rate limits on their real numbers (per-route buckets, 5 messages per 5 s per channel, 50
requests/s per token: testbed/fake_discord/limits.py) unless `--no-limits`; the bot paces
itself under them (bot/discord/pacing.py, the host log's budget in bot/discord/transport.py).
A 429 is counted "once steady" after the first minute of the load phase. With `--servers`
unset, the matches go 25 to a server.

The last line is one JSON object: `requests_per_move` (game -> play-only requests per
accepted move), `lag_p99_s` (channel kind -> seconds), `rate_limited` (429s once steady) and
the rest of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.clicks import click_move, component_message
from bot.config import DiscordSettings, Settings
from bot.discord.client import UmpireBot
from bot.discord.host_log import LOG_BATCH_SECONDS, LOG_WINDOW_SECONDS
from bot.discord.marker import read_mark
from bot.discord.pacing import EXEMPT, Pacer, Priority
from bot.discord.places import AUDIENCE_KEYS, channel_for
from bot.discord.render import user_id_of
from bot.discord.transport import DiscordTransport
from bot.live import LiveMatch
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService
from games.core import IllegalMove, ParseError, Prompt
from games.registry import all_games, installed_games
from testbed.fake_discord.harness import running_client
from testbed.fake_discord.models import Channel, Guild, User
from testbed.fake_discord.server import FakeDiscord

#: Every game -> its settings for /match start (JSON; None: the defaults), as the game
#: declares them (`Game.quick_settings`): no host attends (Decoder's setup locks once both
#: are ready), and no wait but the clocks (no pause between rounds; the prompt fix's window,
#: a deliberate wait of 3 s before a typed move is taken, is off) so lag measures the bot.
GAMES = {slug: json.dumps(settings) if (settings := all_games()[slug].quick_settings(
    short=False, waits=False)) else None for slug in installed_games()}
KINDS = {"public": "room", "seat0": "table", "seat1": "table", "umpire": "log"}
#: Routes of closing a match's channels, left out of "play only".
CLOSING = re.compile(r"^(PUT|DELETE|PATCH) /channels/\{channel_id\}(/permissions/.*)?$")
VERBOSE = False
EXTRA_TEXTS = ("draw", "at 1", "guess 100", "pass", "ready")
PLAYED = {"type": "typed", "click": "clicked"}
#: A match's moves clicked at most; then its members type (a random click alone may never
#: end a match: Decoder's two members restoring tanks; typing guesses mostly).
CLICKS_PER_MATCH = 150


def say(*parts: Any) -> None:
    print(*parts, flush=True)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- what a player types -------------------------------------------------------------------
def candidates(prompt: Prompt, rng: random.Random) -> list[str]:
    """Texts a player might type for the prompt: its choices and the examples it quotes
    (in Decoder mostly a letter guess: restoring tanks alone never ends a match)."""
    tanks = [m.group(1) for c in prompt.choices if (m := re.fullmatch(r"use (.+) restore", c))]
    out = [f"use {rng.choice(tanks)} guess {rng.choice('ABCDEFGHIJKLMNOPRSTUVWY')}"
           for _ in range(5)] if tanks and rng.random() < 0.8 else []
    out += list(prompt.choices)
    out += re.findall(r"'([^']+)'", prompt.text)
    out += [t for t in re.findall(r"`([^`]+)`", prompt.text) if "<" not in t]
    if m := re.search(r"Your tiles: ([A-Z ]+)\.", prompt.text):
        out.append("keep " + "".join(m.group(1).split()[:6]))
    return [*out, *EXTRA_TEXTS]


def typed_move(match: LiveMatch, prompt: Prompt, rng: random.Random) -> str | None:
    """A text the game accepts for the prompt now, or None."""
    texts = candidates(prompt, rng)
    if rng.random() < 0.3:  # mostly the first answer offered (as the tests' players do),
        rng.shuffle(texts)  # now and then another: random play alone may never end
    for text in texts:
        try:
            state = match.state.model_copy(deep=True)
            command = match.game.parse(state, prompt.seat, text)
            match.game.check(state, prompt.seat, command)
            words = match.game.move_words(state)
            if not prompt.private and words is not None and not words.matches(text):
                continue  # chat in the room, not a move
        except (ParseError, IllegalMove, ValueError):
            continue
        return text
    return None


# --- the world --------------------------------------------------------------------------------
@dataclass
class Server:
    guild: Guild
    host: User
    general: Channel
    members: list[User] = field(default_factory=list)


@dataclass
class Figures:
    moves: Counter[str] = field(default_factory=Counter)
    clicks: Counter[str] = field(default_factory=Counter)  # of the moves, those clicked
    fallbacks: int = 0  # moves no candidate text fitted: submitted as a command instead
    lags: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))
    visible: list[float] = field(default_factory=list)  # prompt visible - clock start (s)
    answered: list[float] = field(default_factory=list)  # typed move -> taken by the umpire (s)
    posting: list[float] = field(default_factory=list)  # a post's REST call, paced (s)
    starts: list[float] = field(default_factory=list)  # /match start -> "started" (s)
    channels: dict[str, str] = field(default_factory=dict)  # a match's channel -> its kind
    started: float = 0.0


class Bench:
    def __init__(self, fake: FakeDiscord, service: MatchService, think: float,
                 rng: random.Random, click: bool = False) -> None:
        self.fake, self.service, self.think, self.rng = fake, service, think, rng
        self.click = click  # click what a prompt offers (type only where it offers none)
        self.clicked_in: dict[int, int] = {}  # match -> its moves clicked
        self.figures = Figures(started=time.monotonic())
        self.stopping = False

    def watch(self) -> None:
        """Record each delivered message's lag and each prompt's visibility against its clock."""
        delivery = self.service.delivery
        original = delivery.on_delivered

        def delivered(info: Any, message: Any, at: datetime, ok: bool = True) -> None:
            created = message.created_at
            if created.tzinfo is None:
                created = created.replace(tzinfo=UTC)
            when = at if at.tzinfo else at.replace(tzinfo=UTC)
            kind = KINDS.get(message.audience, message.audience)
            lag = (time.monotonic() - self.figures.started, (when - created).total_seconds())
            self.figures.lags[kind].append(lag)
            if message.payload.get("prompts"):  # a decision: never held back for folding
                self.figures.lags[f"{kind}_decisions"].append(lag)
            live = self.service.matches.get(info.id)
            for prompt in message.payload.get("prompts") or []:
                clock = live.clocks.get(prompt.get("key")) if live is not None else None
                if clock is not None:
                    start = clock.started_at if clock.started_at.tzinfo else \
                        clock.started_at.replace(tzinfo=UTC)
                    self.figures.visible.append((when - start).total_seconds())
            if original is not None:
                original(info, message, at, ok)

        delivery.on_delivered = delivered
        http = self.service.delivery.transport.client.http  # type: ignore[attr-defined]
        send_message = http.send_message

        async def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.monotonic()
            try:
                return await send_message(*args, **kwargs)
            finally:
                self.figures.posting.append(time.monotonic() - began)

        http.send_message = timed

    async def start(self, server: Server, game: str, p0: User, p1: User) -> LiveMatch:
        fake = self.fake
        before = set(self.service.matches)
        options: dict[str, Any] = {"game": game, "player1": p0, "player2": p1}
        if GAMES[game]:
            options["settings"] = GAMES[game]
        began = time.monotonic()
        inter = await fake.slash_command(server.host, server.general, "match start", **options)
        await fake.wait_for(lambda: inter.original is not None and "started" in
                            (inter.original.content or ""), 900)
        self.figures.starts.append(time.monotonic() - began)
        new = [m for i, m in self.service.matches.items() if i not in before
               and {user_id_of(p) for p in m.players} == {p0.id, p1.id}]
        for audience, key in AUDIENCE_KEYS.items():
            if value := new[0].transport.get(key):
                self.figures.channels[str(value)] = KINDS.get(audience, audience)
        return new[0]

    async def seat(self, match: LiveMatch, seat: int, user: User, think: float) -> None:
        """One member playing their seat until the match ends."""
        fake, service = self.fake, self.service
        tried: set[str] = set()  # a prompt typed once and still open: submitted the 2nd time
        while match.status == "active" and not self.stopping:
            prompt = next((p for p in match.prompts if p.seat == seat), None)
            audience = f"seat{seat}" if prompt is not None and prompt.private else "public"
            if prompt is None or service.delivery._queues.get((match.id, audience)):
                await asyncio.sleep(0.05)  # not asked yet, or not yet visible
                continue
            if think:
                await asyncio.sleep(self.rng.expovariate(1 / think))
            if prompt.key not in {p.key for p in match.prompts}:
                continue
            if self.click and prompt.key not in tried and \
                    self.clicked_in.get(match.id, 0) < CLICKS_PER_MATCH and \
                    await self.clicked(match, prompt, audience, user):
                self.clicked_in[match.id] = self.clicked_in.get(match.id, 0) + 1
                self.figures.clicks[match.game.slug] += 1
                self.figures.moves[match.game.slug] += 1
                continue
            text = typed_move(match, prompt, self.rng) if prompt.key not in tried else None
            tried.add(prompt.key)
            if VERBOSE:
                progress(f"  #{match.id} seat {seat} {prompt.kind}: {text!r}")
            if text is None:
                self.figures.fallbacks += 1
                try:
                    command = match.game.random_command(match.state, prompt, self.rng)
                except (IndexError, ValueError, AssertionError):  # (the prompt went stale)
                    continue
                reply = await service.submit_command(match.id, seat, command)
            else:
                channel = fake.channels[channel_for(match.transport, audience)]
                typed, seq = time.monotonic(), match.seq
                await fake.send_user_message(user, channel, text)
                with contextlib.suppress(TimeoutError):  # taken: the match moved on
                    await fake.wait_for(lambda s=seq: match.seq != s or match.status != "active", 5)
                self.figures.answered.append(time.monotonic() - typed)
                with contextlib.suppress(TimeoutError):
                    await fake.wait_for(lambda p=prompt: p.key not in
                                        {q.key for q in match.prompts}
                                        or match.status != "active", 5)
                reply = None
                if any(q.key == prompt.key for q in match.prompts):
                    progress(f"  #{match.id} seat {seat}: {text!r} left {prompt.kind} open")
                    continue
            if reply is None or reply.accepted:
                self.figures.moves[match.game.slug] += 1

    async def clicked(self, match: LiveMatch, prompt: Prompt, audience: str,
                      user: User) -> bool:
        """Make the decision with the prompt's buttons or menu, if its message offers any
        (bench/clicks.py): whether the umpire took it."""
        fake = self.fake
        channel = fake.channels[int(channel_for(match.transport, audience) or 0)]
        message = component_message(fake, channel, prompt.key)
        if message is None:
            return False
        seq = match.seq
        try:
            if not await click_move(fake, user, message, prompt.key, self.rng):
                return False
        except (LookupError, PermissionError, ValueError, TimeoutError):
            return False  # (the message changed under the click: typed instead)
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(lambda: match.seq != seq or match.status != "active", 5)
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(lambda: prompt.key not in {q.key for q in match.prompts}
                                or match.status != "active", 5)
        return match.seq != seq or not any(q.key == prompt.key for q in match.prompts)

    async def play(self, match: LiveMatch, p0: User, p1: User, think: float) -> None:
        await asyncio.gather(self.seat(match, 0, p0, think), self.seat(match, 1, p1, think))


def make_servers(fake: FakeDiscord, count: int, members: int) -> list[Server]:
    servers = []
    for s in range(count):
        guild = fake.add_guild(f"Club {s + 1}")
        role = fake.add_role(guild, "Umpire Host")
        fake.allow_command(guild, "match", role)
        server = Server(guild, fake.add_member(guild, f"host{s + 1}", roles=[role]),
                        fake.get_channel(guild, "general"))
        server.members = [fake.add_member(guild, f"p{s + 1}x{i}") for i in range(members)]
        servers.append(server)
    return servers


async def idle(fake: FakeDiscord, service: MatchService, transport: DiscordTransport) -> None:
    await fake.wait_for(lambda: service.delivery._idle.is_set(), 60)
    await service.delivery.drain()
    await transport.wait_idle()
    await fake.settle()


def is_global(path: str) -> bool:
    """Whether a request counts against the token's global limit (not an interaction's)."""
    return not any(p in path for p in EXEMPT)


def route_of(fake: FakeDiscord, start: int) -> Counter[str]:
    return Counter(f"{e.method} {e.route}" for e in fake.request_log[start:])


def posts_by_kind(fake: FakeDiscord, start: int, transport: dict[str, Any]) -> Counter[str]:
    """The messages posted from `start` on, by the match's channel kind (room, table, log),
    and the 429s among them ("429")."""
    kinds = {str(v): KINDS[a] for a, k in AUDIENCE_KEYS.items()
             if a in KINDS and (v := transport.get(k))}
    out: Counter[str] = Counter()
    for e in fake.request_log[start:]:
        if e.status == 429:
            out["429"] += 1
        elif e.method == "POST" and (m := re.fullmatch(r"/channels/(\d+)/messages",
                                                       e.path)):
            out[kinds.get(m.group(1), "other")] += 1
    return out


def global_by_kind(fake: FakeDiscord, start: int, transport: dict[str, Any]) -> Counter[str]:
    """The global requests from `start` on by where they went: posts to the match's room,
    tables and log, and the rest ("other": its start and close, its channels' permissions)."""
    kinds = {str(v): KINDS[a] for a, k in AUDIENCE_KEYS.items()
             if a in KINDS and (v := transport.get(k))}
    out: Counter[str] = Counter()
    for e in fake.request_log[start:]:
        if not is_global(e.path):
            continue
        m = re.fullmatch(r"/channels/(\d+)/messages", e.path)
        out[kinds.get(m.group(1), "other") if m and e.method == "POST" else "other"] += 1
    return out


def requests_by_kind(fake: FakeDiscord, start: int, kinds: dict[str, str]) -> Counter[str]:
    """The global requests from `start` on by the kind of channel of a match they went to
    (`kinds`: room, table, log, feed; "other" for another channel, "-" for none) and route."""
    out: Counter[str] = Counter()
    for e in fake.request_log[start:]:
        if not is_global(e.path):
            continue
        m = re.match(r"/channels/(\d+)", e.path)
        kind = kinds.get(m.group(1), "other") if m else "-"
        out[f"{kind} {e.method} {e.route}"] += 1
    return out


# --- phase 1: requests per move ---------------------------------------------------------------
async def per_game(fake: FakeDiscord, service: MatchService, transport: DiscordTransport,
                   server: Server, rng: random.Random,
                   games: list[str], click: bool = False) -> dict[str, dict[str, Any]]:
    out = {}
    bench = Bench(fake, service, 0.0, rng, click)
    answers = transport.answers
    for n, game in enumerate(games):
        p0, p1 = server.members[2 * n], server.members[2 * n + 1]
        begin = len(fake.request_log)
        answered = answers.responses + answers.followups
        match = await bench.start(server, game, p0, p1)
        await idle(fake, service, transport)
        started = len(fake.request_log)
        await bench.play(match, p0, p1, 0.0)
        await idle(fake, service, transport)
        play = route_of(fake, started)
        kinds = posts_by_kind(fake, started, match.transport)
        closing = sum(c for r, c in play.items() if CLOSING.match(r))
        rematch = sum(1 for e in fake.request_log[started:] if e.method == "POST" and  # an
                      "ump:rm:" in json.dumps(e.json or {}) and  # offer of its own, not the
                      read_mark(str((e.json or {}).get("content", "")))[1] is None)  # result
        play_only = sum(play.values()) - closing - rematch
        moves = bench.figures.moves[game]
        global_all = sum(1 for e in fake.request_log[begin:] if is_global(e.path))
        where = global_by_kind(fake, begin, match.transport)
        out[game] = {
            "moves": moves, "requests": len(fake.request_log) - begin,
            "global_per_move": round(global_all / max(1, moves), 2),
            "all_per_move": round((len(fake.request_log) - begin) / max(1, moves), 2),
            "play_per_move": round(play_only / max(1, moves), 2),
            "routes": dict(play.most_common()), "fallbacks": bench.figures.fallbacks,
            "posts": dict(kinds.most_common()),
            "global_by_kind": {k: round(c / max(1, moves), 2) for k, c in where.most_common()},
            "clicked": bench.figures.clicks[game],
            "answered": answers.responses + answers.followups - answered,
        }
        bench.figures.fallbacks = 0
        progress(f"  {game}: {moves} moves, {out[game]['play_per_move']} requests per move")
    return out


# --- phase 2: load ----------------------------------------------------------------------------
async def load(fake: FakeDiscord, service: MatchService, servers: list[Server], matches: int,
               minutes: float, think: float, rng: random.Random, games: list[str],
               click: bool = False) -> Bench:
    bench = Bench(fake, service, think, rng, click)
    bench.watch()
    end = time.monotonic() + minutes * 60

    async def slot(i: int) -> None:
        server = servers[i % len(servers)]
        k = i // len(servers)
        p0, p1 = server.members[10 + 2 * k], server.members[10 + 2 * k + 1]
        n = i
        await asyncio.sleep(rng.uniform(0, min(20.0, minutes * 30)))  # hosts start in turn
        while time.monotonic() < end:
            match = await bench.start(server, games[n % len(games)], p0, p1)
            n += 1
            play = asyncio.create_task(bench.play(match, p0, p1, think))
            while not play.done() and time.monotonic() < end:
                await asyncio.sleep(0.2)
            bench.stopping = time.monotonic() >= end
            await play
            while match.status == "active" and time.monotonic() < end:
                await asyncio.sleep(0.2)
            if time.monotonic() < end:
                await asyncio.sleep(rng.uniform(1, 3))  # the next match a moment later

    await asyncio.gather(*(slot(i) for i in range(matches)))
    return bench


async def loop_stalls(out: list[float]) -> None:
    """How late the event loop wakes a 0.1 s sleep, every 0.1 s (CPU saturation)."""
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        await asyncio.sleep(0.1)
        out.append(loop.time() - began - 0.1)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def report_lags(bench: Bench, minutes: float) -> dict[str, Any]:
    say("\ndelivery lag (s), commit -> posted, per channel kind and minute: p50 / p99 / max")
    out: dict[str, Any] = {}
    for kind in ("room", "table", "log", "room_decisions", "table_decisions"):
        values = bench.figures.lags.get(kind, [])
        lags = [v for _, v in values]
        row = []
        for minute in range(max(1, int(minutes + 0.999))):
            part = [v for t, v in values if minute * 60 <= t < (minute + 1) * 60]
            if part:
                row.append(f"m{minute + 1}: {percentile(part, 50):.2f}/"
                           f"{percentile(part, 99):.2f}/{max(part):.2f}")
        say(f"  {kind:15} all: {percentile(lags, 50):.2f} / {percentile(lags, 99):.2f} / "
            f"{max(lags, default=0):.2f} ({len(lags)} posts)  " + "  ".join(row))
        out[kind] = {"p50": round(percentile(lags, 50), 3), "p99": round(percentile(lags, 99), 3),
                     "max": round(max(lags, default=0), 3), "posts": len(lags)}
    return out


def report_phase1(mode: str, games: dict[str, dict[str, Any]]) -> None:
    say(f"requests per accepted move ({PLAYED[mode]} moves), all / play only / global over the "
        "match's life (start and close, interactions aside):")
    for game, row in games.items():
        say(f"  {game:18} {row['moves']:4} moves {row['requests']:5} requests  "
            f"{row['all_per_move']:.2f} / {row['play_per_move']:.2f} / "
            f"{row['global_per_move']:.2f}")
        say("      " + ", ".join(f"{r} {c}" for r, c in row["routes"].items()))
        say("      posts by channel: " + ", ".join(
            f"{k} {c}" for k, c in row["posts"].items()))
        say("      global per move by where: " + ", ".join(
            f"{k} {c:.2f}" for k, c in row["global_by_kind"].items()) +
            f"; {row['clicked']} moves clicked, {row['answered']} posts answered a click")
    if games:
        say(f"  mean play only: "
            f"{statistics.mean(r['play_per_move'] for r in games.values()):.2f}")
        say(f"  mean global over a match's life: "
            f"{statistics.mean(r['global_per_move'] for r in games.values()):.2f}")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    logging.basicConfig(level=logging.ERROR)
    rng = random.Random(args.seed)
    fake = FakeDiscord()
    scale = args.scale
    if not args.no_limits:
        from testbed.fake_discord.limits import RateLimits

        fake.limits = RateLimits(scale=scale)  # Discord's real numbers unless scaled
    per_server = -(-args.matches // args.servers)
    servers = make_servers(fake, args.servers, 10 + 2 * per_server)
    result: dict[str, Any] = {"matches": args.matches, "servers": args.servers,
                              "minutes": args.minutes, "think_s": args.think}
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
        transport = DiscordTransport(  # the bot's intervals on the same clock as the limits
            log_batch_seconds=args.log_batch_seconds * scale,
            log_window=LOG_WINDOW_SECONDS * scale, coalesce=not args.no_coalesce,
            pacer=Pacer(window=scale))
        service = MatchService(Repository(engine), transport, bot_think=0.0)
        await fake.start()
        try:
            with fake.patch_discord():
                await service.start()
                bot = UmpireBot(service, Settings(discord=DiscordSettings(
                    token=fake.token, read_cooldown_seconds=0)), transport)
                async with running_client(bot, fake, fail_on_errors=False):
                    modes = {"type": ["type"], "click": ["click"],
                             "both": ["type", "click"]}[args.play]
                    by_play: dict[str, dict[str, dict[str, Any]]] = {}
                    for mode in [] if args.load_only else modes:
                        progress(f"phase 1: each game alone, {PLAYED[mode]} moves")
                        by_play[mode] = await per_game(fake, service, transport, servers[0],
                                                       rng, args.games, mode == "click")
                    if not by_play:
                        progress("phase 1 skipped")
                    for mode, rows in by_play.items():
                        report_phase1(mode, rows)
                    games = next(iter(by_play.values()), {})
                    mean = statistics.mean(r["play_per_move"] for r in games.values()) \
                        if games else 0.0
                    mean_global = statistics.mean(r["global_per_move"] for r in games.values()) \
                        if games else 0.0
                    first429 = sum(1 for e in fake.request_log if e.status == 429)
                    progress(f"phase 2: {args.matches} matches on {args.servers} server(s), "
                             f"{args.minutes} min")
                    mark = len(fake.request_log)
                    t0, cpu0 = time.monotonic(), time.process_time()
                    stalls: list[float] = []
                    watcher = asyncio.create_task(loop_stalls(stalls))
                    bench = await load(fake, service, servers, args.matches, args.minutes,
                                       args.think, rng, args.games, args.play != "type")
                    watcher.cancel()
                    cpu = (time.process_time() - cpu0) / (time.monotonic() - t0)
                    log = fake.request_log[mark:]
                    lags = report_lags(bench, args.minutes)
                    visible = bench.figures.visible
                    say(f"\nprompt visible after its clock started (s): p50 "
                        f"{percentile(visible, 50):.2f}, p99 {percentile(visible, 99):.2f}, max "
                        f"{max(visible, default=0):.2f} ({len(visible)} prompts; a clock whose "
                        f"prompt came later than {service.delivery_grace} s restarts then)")
                    posting = bench.figures.posting
                    pacer = transport.pacer
                    say(f"a post's REST call (the pacer's and discord.py's waits included): p50 "
                        f"{percentile(posting, 50):.2f}, p99 {percentile(posting, 99):.2f}, max "
                        f"{max(posting, default=0):.2f} s; the pacer held {pacer.waits} requests "
                        f"for the global limit, {pacer.bucket_waits} for their bucket")
                    say("  seconds waited for the global limit, by class: " + ", ".join(
                        f"{p.name.lower()} {pacer.waited[p]:.1f}" for p in Priority))
                    kinds = requests_by_kind(fake, mark, bench.figures.channels)
                    say("  global requests by channel kind and route: " + ", ".join(
                        f"{k} {c}" for k, c in kinds.most_common(12)))
                    routes = route_of(fake, mark)
                    say("  requests by route: " + ", ".join(
                        f"{r} {c}" for r, c in routes.most_common(8)))
                    starts = bench.figures.starts
                    say(f"/match start until its channels are made: p50 "
                        f"{percentile(starts, 50):.1f}, max {max(starts, default=0):.1f} s "
                        f"({len(starts)} starts; a server makes its channels 5 per 5 s)")
                    answered = bench.figures.answered
                    say(f"typed move taken by the umpire after (s): p50 "
                        f"{percentile(answered, 50):.2f}, p99 {percentile(answered, 99):.2f}, "
                        f"max {max(answered, default=0):.2f}; over 1 s: "
                        f"{sum(1 for a in answered if a > 1)} of {len(answered)}")
                    acks = [i.acked_after for i in fake.interactions.values()
                            if i.created_monotonic >= t0]
                    late = sum(1 for a in acks if a is None or a > 3)
                    acked = [a for a in acks if a is not None]
                    say(f"interactions answered after (s): p99 {percentile(acked, 99):.2f}, max "
                        f"{max(acked, default=0):.2f}; over 3 s or never: {late} of {len(acks)}")
                    restarted = sum(1 for v in visible if v > service.delivery_grace)
                    say(f"clocks started anew on arrival (prompt later than "
                        f"{service.delivery_grace} s, so its lag is not charged): {restarted}")
                    moves = sum(bench.figures.moves.values())
                    limited = [e for e in log if e.status == 429]
                    steady = [e for e in limited if e.at - t0 >= 60]
                    elapsed = time.monotonic() - t0
                    say(f"this process (the bot, the fake Discord and the players in one event "
                        f"loop): CPU {cpu:.0%} of one core; the loop late by p50 "
                        f"{percentile(stalls, 50) * 1000:.0f} ms, p99 "
                        f"{percentile(stalls, 99) * 1000:.0f} ms, max "
                        f"{max(stalls, default=0) * 1000:.0f} ms (a loop late by much is a "
                        "CPU-bound run: its lags are not Discord's)")
                    say(f"429s: {len(limited)} in the load phase ({first429} before it), "
                        f"{len(steady)} once steady (after minute 1); moves {moves} "
                        f"({moves / elapsed:.1f}/s), requests {len(log)} "
                        f"({len(log) / elapsed:.1f}/s), {len(log) / max(1, moves):.2f} per move")
                    refused = getattr(fake.limits, "refused", None)
                    if refused:
                        say("  429s by limit: " + ", ".join(f"{k} {v}" for k, v in
                                                           refused.most_common()))
                    bench.stopping = True
                    await idle(fake, service, transport)
        finally:
            await service.stop()
            await engine.dispose()
            await fake.stop()
    result.update({
        "requests_per_move": {g: r["play_per_move"] for g, r in games.items()},
        "requests_per_move_all": {g: r["all_per_move"] for g, r in games.items()},
        "requests_per_move_mean": round(mean, 3),
        "global_per_move": {g: r["global_per_move"] for g, r in games.items()},
        "global_per_move_mean": round(mean_global, 3),
        "global_per_move_by_play": {m: {g: r["global_per_move"] for g, r in rows.items()}
                                    for m, rows in by_play.items()},
        "global_by_kind_by_play": {m: {g: r["global_by_kind"] for g, r in rows.items()}
                                   for m, rows in by_play.items()},
        "play": args.play,
        "lag_p99_s": {k: v["p99"] for k, v in lags.items()},
        "lag": lags,
        "rate_limited": len(steady), "rate_limited_load": len(limited),
        "prompt_visible_after_clock_p99_s": round(percentile(visible, 99), 3),
        "move_answered_p99_s": round(percentile(answered, 99), 3),
        "moves_over_1s": sum(1 for a in answered if a > 1),
        "interaction_p99_s": round(percentile(acked, 99), 3), "interactions_over_3s": late,
        "clocks_started_anew": restarted,
        "start_max_s": round(max(starts, default=0), 1),
        "cpu_share": round(cpu, 2), "loop_late_p99_s": round(percentile(stalls, 99), 3),
        "load_moves": moves, "load_requests": len(log),
    })
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.discord", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--servers", type=int, default=None,
                        help="default: one per 25 matches (a busy community server's share)")
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--think", type=float, default=4.0, help="mean seconds per move")
    parser.add_argument("--log-batch-seconds", type=float, default=LOG_BATCH_SECONDS,
                        help="the host log's batch interval (the trade: lag against posts)")
    parser.add_argument("--no-coalesce", action="store_true",
                        help="every message its own post, even what queues behind a limit")
    parser.add_argument("--no-limits", action="store_true",
                        help="the fake Discord without its rate limits")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="every window of Discord's limits and of the bot's "
                             "batching and pacing times this (the tests: 0.1); think time "
                             "and --minutes are not scaled")
    parser.add_argument("--play", choices=("type", "click", "both"), default="type",
                        help="how the members move: type every move, or click what a prompt "
                             "offers (type only where it offers nothing); both: phase 1 "
                             "typed, then clicked, phase 2 clicked")
    parser.add_argument("--load-only", action="store_true", help="skip phase 1")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args(argv)
    if args.servers is None:
        args.servers = max(1, -(-args.matches // 25))
    return args


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(parse_args()))), flush=True)
