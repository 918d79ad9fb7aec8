"""The event's own state machine (bot/tournament/event.py) and its storage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.tournament import event as ev
from bot.tournament import store
from bot.tournament.event import Entrant, EventError
from bot.tournament.formats import format_named
from bot.tournament.formats.base import Result
from games.core.chance import seed_commitment

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
FMT = format_named("single")


def players(n: int) -> list[Entrant]:
    return [Entrant(id=f"p{i}", name=f"Player {i}") for i in range(1, n + 1)]


def signed_up(n: int, *, cap: int | None = None, break_seconds: int = 30) -> ev.Event:
    event = ev.open_signups(ev.new_event(name="DM Colosseum 2", game="rps-poker",
                                         format="single", seed="s3cret", salt="ab",
                                         cap=cap, break_seconds=break_seconds))
    for p in players(n):
        event = ev.join(event, p)
    return ev.close_signups(event)


def test_signups_cap_and_refusals_that_say_what_to_do() -> None:
    event = ev.open_signups(ev.new_event(name="Cup", game="rps-poker", format="single",
                                         seed="x", salt="y", cap=2))
    event = ev.join(ev.join(event, players(2)[0]), players(2)[1])
    with pytest.raises(EventError, match="full \\(2 players\\)"):
        ev.join(event, Entrant(id="p9", name="Late"))
    with pytest.raises(EventError, match="already"):
        ev.join(ev.leave(event, "p2"), players(2)[0])
    event = ev.close_signups(event)
    with pytest.raises(EventError, match="closed"):
        ev.join(event, Entrant(id="p3", name="Three"))
    with pytest.raises(EventError, match="Close sign-ups first"):
        ev.seed_at_random(ev.open_signups(event))


def test_commitment_published_at_creation_verifies_the_random_draw() -> None:
    event = signed_up(8)
    assert event.commitment == seed_commitment("s3cret", "ab")
    seeded = ev.seed_at_random(event)
    ids = [e.id for e in seeded.entrants]
    # anyone can redo the draw from the revealed seed and the entrants
    assert ids == ev.random_order("s3cret", [f"p{i}" for i in range(8, 0, -1)])
    assert ids != [f"p{i}" for i in range(1, 9)]  # (this seed does shuffle)
    assert event.entrants == signed_up(8).entrants  # the input is never changed


def test_seeding_by_rating_best_first_unrated_at_zero_ties_in_signup_order() -> None:
    seeded = ev.seed_by_rating(signed_up(4), {"p3": 12.5, "p4": -2.0, "p1": 0.0})
    assert [e.id for e in seeded.entrants] == ["p3", "p1", "p2", "p4"]
    assert seeded.seeded == "rating"


def test_start_seeds_at_random_if_not_seeded_and_rounds_open_after_the_break() -> None:
    event = ev.start(signed_up(4), FMT)
    assert event.status == "running" and event.seeded == "random"
    event, pairings = ev.open_round(event, FMT)
    assert len(pairings) == 2
    again, more = ev.open_round(event, FMT)
    assert more == [] and again.status == "running"  # the round is being played
    event = ev.record(event, FMT, Result(pairing="R1-1", winner=pairings[0].player0), NOW)
    assert event.round_opens_at is None  # one match still to play
    event = ev.record(event, FMT, Result(pairing="R1-2", winner=pairings[1].player1), NOW)
    assert event.round_opens_at == NOW + timedelta(seconds=30)
    assert ev.open_round(event, FMT, NOW + timedelta(seconds=29)) == (event, [])  # the break
    same = ev.record(event, FMT, Result(pairing="R1-2", winner=pairings[1].player0), NOW)
    assert same == event  # a decided pairing is not recorded twice
    event, final = ev.open_round(event, FMT)
    assert [{p.player0, p.player1} for p in final] == [{pairings[0].player0, pairings[1].player1}]
    event = ev.record(event, FMT, Result(pairing=final[0].id, winner=pairings[1].player1), NOW)
    assert event.status == "ended" and ev.champion(event, FMT) == pairings[1].player1


def test_pause_resume_end() -> None:
    event = ev.start(signed_up(2), FMT)
    with pytest.raises(EventError, match="not paused"):
        ev.resume(event)
    paused = ev.pause(event)
    assert ev.open_round(paused, FMT) == (paused, [])  # no round opens while paused
    assert ev.resume(paused).status == "running"
    assert ev.end(paused).status == "ended"
    with pytest.raises(EventError, match="ended already"):
        ev.end(ev.end(paused))


def test_replace_walks_over_the_running_match_and_the_substitute_plays_on() -> None:
    event, pairings = ev.open_round(ev.start(signed_up(4), FMT), FMT)
    first = pairings[0]
    event = ev.link(event, first.id, 11)
    sub = Entrant(id="p9", name="Sub")
    event, decided = ev.replace(event, FMT, first.player0, sub, NOW)
    assert decided == [first.id]
    state = event.format_state(FMT)
    assert state.results[first.id] == Result(pairing=first.id, winner=first.player1,
                                             walkover=True)
    assert event.entrant(first.player0).withdrawn and event.entrant("p9").replaces == first.player0
    # the other pairing is unplayed: the format put nobody new there (p9 is out with p1's loss)
    assert event.undecided(FMT) == [pairings[1]]


def test_withdraw_before_the_match_starts_decides_it_and_closes_the_round() -> None:
    event, pairings = ev.open_round(ev.start(signed_up(2, break_seconds=5), FMT), FMT)
    event, decided = ev.withdraw(event, FMT, pairings[0].player1, NOW)
    assert decided == []  # no match was running
    assert event.status == "ended" and ev.champion(event, FMT) == pairings[0].player0


async def test_stored_event_round_trips_and_changes_in_one_transaction(tmp_path: Path) -> None:
    from bot.store.database import create_engine
    from bot.store.repository import Repository

    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'e.db'}")
    repo = Repository(engine)
    await repo.migrate()
    event = ev.start(signed_up(4), FMT)
    stored = await repo.writer.run(lambda conn: store.insert_event(conn, event, NOW))
    assert stored.id > 0
    loaded = await store.load(engine, stored.id)
    assert loaded == stored
    box: dict = {}
    opened, pairings = await repo.writer.run(store.change(
        stored.id, lambda e: ev.open_round(e, FMT), NOW, box))
    assert box["event"] == opened and [p.id for p in pairings] == ["R1-1", "R1-2"]
    assert await store.load(engine, stored.id) == opened
    assert [e.id for e in await store.running(engine)] == [stored.id]
    assert [e.id for e in await store.of_player(engine, 0, "p3")] == [stored.id]
    await repo.close()
    await engine.dispose()
