"""Two real processes on one PostgreSQL database, the owner of the shards paused with SIGSTOP
for longer than its lease (a long garbage-collection pause, a frozen machine, a stopped
container) while its timeouts, bots' moves and deliveries are pending, then resumed
(issue 45). After the other process takes the shards over, the paused one writes nothing
and posts nothing for them; no write of the new owner is refused; every match goes on and
ends; every match replays from its log. A pause under two thirds of the lease changes
nothing."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.store.database import create_engine
from bot.store.repository import Repository
from tests.support.register import register_duel
from tests.support.shard_log import lines as _lines
from tests.support.shard_log import stored as _stored

ROOT = Path(__file__).resolve().parents[2]
TTL = 4.0
#: (who is paused: the process holding the shards then, for how many leases). The first
#: two are of one process each; the short one must change nothing.
PAUSES = ((1, 1.5), (0, 2.0), (1, 0.15), (1, 1.5))


def _start(url: str, shard: int, log: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.bot.pause_worker", url, str(shard), str(log),
         "--ttl", str(TTL), "--finish", "--go", str(log.with_name("go"))],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "READY", f"worker did not start: {line!r} " \
        f"{proc.stderr.read() if proc.stderr else ''}"
    return proc


def _holder(takes: list[dict[str, Any]], shard: int, at: float) -> int | None:
    """The pid that had taken `shard` last (its take's transaction done) before `at`."""
    before = [t for t in takes if t["shard"] == shard and t["at"] < at]
    return max(before, key=lambda t: t["at"])["pid"] if before else None


@pytest.mark.slow
def test_a_paused_owner_never_acts_on_the_shards_taken_over(pg_url: str, tmp_path: Path):
    register_duel()
    repo = Repository(create_engine(pg_url))
    asyncio.run(repo.migrate())
    asyncio.run(repo.engine.dispose())
    log = tmp_path / "log"
    log.touch()
    moments = random.Random(45)
    procs: list[subprocess.Popen[str]] = []
    resumed: list[tuple[int, float, float, float]] = []  # (pid, stopped, resumed, leases)
    try:
        procs = [_start(pg_url, 0, log), _start(pg_url, 1, log)]
        log.with_name("go").touch()  # both hold their shard: the matches start together
        for who, leases in PAUSES:
            # at a different moment of each cycle; a short pause once the takeover before
            # it has settled (its adoption done, its leases renewed since)
            time.sleep((1.0 if leases >= 1.5 else 3.0) + moments.random())
            victim = procs[who]
            stopped = time.time()
            os.kill(victim.pid, signal.SIGSTOP)
            time.sleep(TTL * leases)
            back = time.time()
            os.kill(victim.pid, signal.SIGCONT)
            resumed.append((victim.pid, stopped, back, leases))
        outs = [p.communicate(timeout=180) for p in procs]
        for proc, (out, err) in zip(procs, outs, strict=True):
            log.with_name(f"stderr-{proc.pid}").write_text(err)
            assert proc.returncode == 0 and "FINISHED" in out, (out, err[-3000:])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    events = _lines(log)
    takes = [e for e in events if e["kind"] == "take"]
    rows, actions, outbox = asyncio.run(_stored(pg_url))  # (every match replays from its log)
    shard_of_match = {i: r.shard for i, r in rows.items()}
    assert all(r.status == "finished" for r in rows.values()), "a match did not end"
    assert all(o.delivered_at for o in outbox), "a message was left undelivered"
    # each pause of 1.5 leases or more handed the shards over: the other process took them
    # while the paused one was stopped, and the paused one lost them once resumed
    for pid, stopped, back, leases in resumed:
        during = [t for t in takes if stopped < t["at"] < back]
        if leases >= 1.5:
            assert during and all(t["pid"] != pid for t in during), "not taken over"
            assert any(e["kind"] == "lost" and e["pid"] == pid and back <= e["at"] < back + TTL
                       for e in events), "the paused process did not drop the shards at once"
        else:  # under 2/3 of the lease: nothing changed hands, nothing was lost
            assert not [t for t in takes if stopped < t["at"] < back + TTL]
            assert not [e for e in events if e["kind"] == "lost" and stopped < e["at"] < back + TTL]
    # no write begun, and no message posted, by a process that no longer held the shard
    for entry in events:
        if entry["kind"] not in ("wrote", "sent"):
            continue
        shard = shard_of_match[entry["match"]]
        moment = entry["began"] if entry["kind"] == "wrote" else entry["at"]
        assert _holder(takes, shard, moment) == entry["pid"], \
            f"{entry['kind']} for shard {shard} by a process that lost it: {entry}"
    # every write refused was refused by the fence, and of a process that had lost the shard
    refused = [e for e in events if e["kind"] == "refused"]
    assert all(e["error"] == "FencedOut" for e in refused), refused
    for entry in refused:
        shard = shard_of_match[entry["match"]]
        assert _holder(takes, shard, entry["at"]) != entry["pid"], \
            f"a write of the shard's owner was refused: {entry}"
    # every write stored is in the log; every message posted once (the nonce covers reposts)
    for entry in events:
        if entry["kind"] == "wrote" and entry["command"] is not None:
            stored = {a.seq: a.command for a in actions[entry["match"]]}
            assert stored.get(entry["seq"]) == entry["command"], "an accepted action was lost"
    ids = [e["id"] for e in events if e["kind"] == "sent"]
    assert len(ids) == len(set(ids)), "a message was posted twice"
    figures = {"refused": len(refused), "writes": sum(e["kind"] == "wrote" for e in events),
               "lost after resume (ms)": [
        round((min(e["at"] for e in events if e["kind"] == "lost" and e["pid"] == pid
                   and e["at"] >= back) - back) * 1000)
        for pid, _, back, leases in resumed if leases >= 1.5]}
    print(json.dumps(figures))
