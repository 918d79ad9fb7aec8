"""History and ratings on the fake Discord: results recorded with the match's end, ratings
per server and game (openskill), a host's `/match unrated`, all read back after a restart."""

from __future__ import annotations

from bot.ratings import MODEL, ordinal
from tests.discord.conftest import World, start_rps, umpire


async def _award(world: World, up, match, winner) -> None:  # type: ignore[no-untyped-def]
    inter = await world.fake.slash_command(world.host, world.general, "match award",
                                           player=winner, match=match.id)
    await world.fake.wait_for(lambda: inter.answer is not None, 10)
    assert match.status == "finished"


def _expected(results: list[int]) -> tuple[float, float]:
    """alice's and bob's displayed ratings after these results (seat of the winner: 0 alice,
    1 bob), computed with the rating library directly."""
    a, b = MODEL.rating(), MODEL.rating()
    for winner in results:
        [[a], [b]] = MODEL.rate([[a], [b]], ranks=[0, 1] if winner == 0 else [1, 0])
    return ordinal(a.mu, a.sigma), ordinal(b.mu, b.sigma)


async def test_history_and_leaderboard_after_a_restart_and_a_match_marked_unrated(
        world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        first = await start_rps(world, up)
        await _award(world, up, first, world.bob)
        second = await start_rps(world, up)
        await _award(world, up, second, world.alice)
        third = await start_rps(world, up)
        aborted = await fake.slash_command(world.host, world.general, "match abort",
                                           match=third.id)
        await fake.wait_for(lambda: aborted.answer is not None, 10)
        fourth = await start_rps(world, up)
        marked = await fake.slash_command(world.host, world.general, "match unrated",
                                          match=fourth.id)
        await fake.wait_for(lambda: marked.answer is not None, 10)
        assert "will not count" in marked.answer.content
        await _award(world, up, fourth, world.bob)

    async with umpire(world) as up:  # a restart: everything from the database
        seen = await fake.slash_command(world.eve, world.general, "history", member=world.alice)
        text = seen.answer.content
        assert seen.answer.ephemeral
        lines = [line for line in text.splitlines() if line.startswith("#")]
        assert [line.split()[0] for line in lines] == [f"#{m.id}" for m in
                                                       (fourth, third, second, first)]
        assert "vs bob: lost, unrated" in lines[0]
        assert "vs bob: aborted" in lines[1]
        alice_now, bob_now = _expected([1, 0])
        alice_first, _ = _expected([1])
        assert f"vs bob: won, {alice_now - alice_first:+.1f}" in lines[2]
        assert f"Turn-based RPS Poker {alice_now:.1f} (1W 1L 0D)" in text

        board = await fake.slash_command(world.eve, world.general, "leaderboard", game="rps-poker")
        rows = [line for line in board.answer.content.splitlines() if line[:1].isdigit()]
        assert len(rows) == 2
        best = "alice" if alice_now > bob_now else "bob"
        assert rows[0].startswith(f"1. {best} ")
        assert f"bob {bob_now:.1f} (1W 1L 0D" in board.answer.content

        # The host takes the first match out of the ratings: recomputed from the rest.
        taken = await fake.slash_command(world.host, world.general, "match unrated",
                                         match=first.id)
        assert "recomputed" in taken.answer.content
        board = await fake.slash_command(world.eve, world.general, "leaderboard", game="rps-poker")
        alice_only, bob_only = _expected([0])
        assert f"alice {alice_only:.1f} (1W 0L 0D" in board.answer.content
        assert f"bob {bob_only:.1f} (0W 1L 0D" in board.answer.content


async def test_history_is_per_server(world: World) -> None:
    fake = world.fake
    other = fake.add_guild("Other Club")
    carol = fake.add_member(other, "carol")
    general = fake.get_channel(other, "general")
    async with umpire(world) as up:
        match = await start_rps(world, up)
        await _award(world, up, match, world.alice)
        here = await fake.slash_command(world.alice, world.general, "history")
        assert f"#{match.id} rps-poker vs bob: won" in here.answer.content
        there = await fake.slash_command(carol, general, "leaderboard", game="rps-poker")
        assert "No rated match" in there.answer.content
