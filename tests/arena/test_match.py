"""The arena's match loop: the same match as the rules functions played plainly, the same
chance, and the per-call time limit checked once per round or game without changing who is
disqualified."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from bot.arena.match import (
    _M40,
    _M128,
    F10,
    F30,
    Deal,
    Disqualified,
    _Bits,
    _notice,
    _numbers,
    match_key,
    permutation,
    play_match,
    shuffler,
    shuffles,
)
from games.rps_poker import rules
from games.rps_poker.cards import CARDS


class Recorder:
    """Random legal answers from its own seeded generator; logs every call it gets."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.log: list[tuple] = []

    def draft_pick(self, cards: list[str]) -> int:
        self.log.append(("draft_pick", tuple(cards)))
        cards.reverse()  # a bot may mutate what it is given
        return self.rng.randrange(2)

    def draft_receive(self, card: str) -> None:
        self.log.append(("draft_receive", card))

    def main_play(self, cards: list[str], base: str) -> int:
        self.log.append(("main_play", tuple(cards), base))
        cards.clear()
        return self.rng.randrange(len(self.log[-1][1]))

    def main_postprocess(self, card: str) -> None:
        self.log.append(("main_postprocess", card))


def reference_match(bots: tuple[Any, Any], key: bytes) -> int:
    """The seed's controller written plainly on the rules functions: seat 0's score."""
    shuffle = shuffler(key)
    full = [CARDS[i] for i in rules.new_full_deck(shuffle)]
    kept: tuple[list, list] = ([], [])
    received: tuple[list, list] = ([], [])
    for r in range(rules.DRAFT_ROUNDS):
        offers = rules.draft_offers(full, r)
        picks = [bots[s].draft_pick(list(offers[s])) for s in (0, 1)]
        passes = [rules.draft_pass(offers[s], picks[s]) for s in (0, 1)]
        for s in (0, 1):
            kept[s].append(passes[s][0])
            received[s].append(passes[1 - s][1])
        for s in (0, 1):
            bots[s].draft_receive(passes[1 - s][1])
    decks = kept[0] + received[0], kept[1] + received[1]
    remaining = rules.remaining_after_draft(full)
    hands = rules.start_main(decks[0], decks[1], remaining, shuffle)
    score0 = 0
    for g in range(rules.GAMES):
        base = remaining[g]
        picks = [bots[s].main_play(list(hands[s]), base) for s in (0, 1)]
        plays = [hands[s].pop(picks[s]) for s in (0, 1)]
        score0 += rules.judge(plays[0], plays[1], base) == 0
        for s in (0, 1):
            bots[s].main_postprocess(plays[1 - s])
        for s in (0, 1):
            rules.draw(decks[s], hands[s])
    return score0


def test_the_arena_plays_exactly_the_rules_functions_match() -> None:
    # Every call (offers, hands, bases, received and played cards) and every score is what
    # the rules functions give when played plainly; one Deal serves both seatings.
    for d in range(300):
        key = match_key(5, d)
        deal = Deal(key)
        for seeds in ((2 * d, 2 * d + 1), (2 * d + 1, 2 * d)):
            ours = (Recorder(seeds[0]), Recorder(seeds[1]))
            ref = (Recorder(seeds[0]), Recorder(seeds[1]))
            score = play_match(*ours, deal, 1.0, [0.0, False])
            assert score == reference_match(ref, key)
            assert ours[0].log == ref[0].log and ours[1].log == ref[1].log
            assert len(ours[0].log) == 30


def _generic(key: bytes) -> tuple[int, ...]:
    bits = _Bits(key)
    return (bits.take(128, _M128, (1 << 128) // F30 * F30, F30),
            *(bits.take(40, _M40, (1 << 40) // F10 * F10, F10) for _ in range(3)))


def _reduced(numbers: tuple[int, ...]) -> tuple[int, ...]:
    return (numbers[0] % F30, *(n % F10 for n in numbers[1:]))


def test_the_one_block_shortcut_draws_what_the_stream_gives() -> None:
    for d in range(500):
        assert _reduced(_numbers(match_key(1, d))) == _generic(match_key(1, d))
    # Deal 29065 of seed 0 rejects its second draw below 10! and reads a second block.
    assert _reduced(_numbers(match_key(0, 29065))) == _generic(match_key(0, 29065))


def test_the_planned_shuffle_is_fisher_yates_by_the_digits() -> None:
    rng = random.Random(4)
    for n, factorial in ((30, F30), (10, F10)):
        for _ in range(300):
            r = rng.randrange(3 * factorial)  # unreduced numbers give the same shuffle
            plain = list(range(n))
            x = r % factorial
            for i in range(n - 1, 0, -1):
                x, j = divmod(x, i + 1)
                plain[i], plain[j] = plain[j], plain[i]
            planned = list(range(n))
            shuffles(r, r, r, r)(planned)
            assert planned == plain
            assert list(permutation(r, n)) == plain


class Sleepy:
    """Sleeps `seconds` in every call of the first draft round and of the first game."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.picks = self.plays = 0

    def draft_pick(self, cards: list[str]) -> int:
        self.picks += 1
        self._nap(self.picks == 1)
        return 0

    def draft_receive(self, card: str) -> None:
        self._nap(self.picks == 1)

    def main_play(self, cards: list[str], base: str) -> int:
        self.plays += 1
        self._nap(self.plays == 1)
        return 0

    def main_postprocess(self, card: str) -> None:
        self._nap(self.plays == 1)

    def _nap(self, now: bool) -> None:
        if now:
            time.sleep(self.seconds)


def test_calls_within_the_limit_pass_even_when_their_round_takes_longer() -> None:
    # Each round and game of four calls lasts about 0.56 s, the limit is 0.2 s: no call
    # is over it, so nobody is disqualified.
    score = play_match(Sleepy(0.14), Sleepy(0.14), Deal(match_key(1, 0)), 0.2, [0.0, False])
    assert 0 <= score <= 10


class SlowThenFine:
    """Seat 0: its first main_play takes 0.3 s."""

    def draft_pick(self, cards: list[str]) -> int:
        return 0

    def draft_receive(self, card: str) -> None:
        pass

    def main_play(self, cards: list[str], base: str) -> int:
        time.sleep(0.3)
        return 0

    def main_postprocess(self, card: str) -> None:
        pass


class FailsInGame1(SlowThenFine):
    def __init__(self, how: str) -> None:
        self.how = how

    def main_play(self, cards: list[str], base: str) -> Any:
        if self.how == "raise":
            raise RuntimeError("late")
        if self.how == "invalid":
            return 7
        time.sleep(0.3)
        return 0

    def main_postprocess(self, card: str) -> None:
        if self.how == "post":
            raise RuntimeError("later")


@pytest.mark.parametrize("how", ["raise", "invalid", "slow", "post"])
def test_the_first_call_over_the_limit_is_disqualified_even_if_a_later_one_fails(
        how: str) -> None:
    # Seat 0's main_play is over the limit; seat 1 then fails in the same game. The times
    # are compared after the game, but seat 0 failed first: seat 0 is disqualified.
    with pytest.raises(Disqualified) as caught:
        play_match(SlowThenFine(), FailsInGame1(how), Deal(match_key(1, 0)), 0.2,
                   [0.0, False])
    assert caught.value.side == 0
    assert "exceeded the time limit of 0.2 s in main_play: took 0.3" in caught.value.reason


# --- empty notifications ------------------------------------------------------------------
class Empties:
    def a(self, card): pass  # noqa: E704

    def b(self, card: str) -> None:
        """Only a docstring."""

    def c(self, card): ...  # noqa: E704

    def d(self, card):
        return None

    def e(self, card, extra=1): pass  # noqa: E704

    def f(self, *args): pass  # noqa: E704


class NotEmpty:
    seen = 0

    def counts(self, card):
        NotEmpty.seen += 1

    def no_card(self): pass  # noqa: E704

    def keyword_only(self, card, *, must): pass  # noqa: E704

    def generator(self, card):
        yield

    async def coroutine(self, card): pass  # noqa: E704

    @staticmethod
    def static(card): pass  # noqa: E704


@pytest.mark.parametrize("name", list("abcdef"))
def test_an_empty_notification_is_recognised(name: str) -> None:
    assert _notice(getattr(Empties(), name)) is None


@pytest.mark.parametrize("name", ["counts", "no_card", "keyword_only", "generator",
                                  "coroutine", "static"])
def test_a_notification_that_could_do_something_is_called(name: str) -> None:
    method = getattr(NotEmpty(), name)
    assert _notice(method) is method
    assert _notice(print) is print and _notice(len) is len


def test_the_seed_bots_skip_their_empty_notifications_and_score_the_same() -> None:
    from games.rps_poker.players import MinimalValid, Simple

    assert _notice(MinimalValid().draft_receive) is None
    assert _notice(Simple().main_postprocess) is None
    assert _notice(Simple().draft_receive) is not None
    for d in range(200):
        key = match_key(9, d)
        for pair in ((MinimalValid, Simple), (Simple, MinimalValid), (Simple, Simple)):
            assert play_match(pair[0](), pair[1](), Deal(key), 1.0, [0.0, False]) == \
                reference_match((pair[0](), pair[1]()), key)


class Shadowed(SlowThenFine):
    """An empty method in the class, a real one on the instance: the real one is called."""

    def __init__(self) -> None:
        self.calls = 0
        self.main_postprocess = self.count  # type: ignore[method-assign]

    def main_play(self, cards: list[str], base: str) -> int:
        return 0

    def count(self, card: str) -> None:
        self.calls += 1


class WrongSignature(SlowThenFine):
    def main_play(self, cards: list[str], base: str) -> int:
        return 0

    def draft_receive(self) -> None:  # type: ignore[override]
        pass


def test_an_instance_method_and_a_wrong_signature_are_still_called() -> None:
    bot = Shadowed()
    play_match(bot, Shadowed(), Deal(match_key(1, 0)), 1.0, [0.0, False])
    assert bot.calls == 10
    with pytest.raises(Disqualified) as caught:
        play_match(Shadowed(), WrongSignature(), Deal(match_key(1, 0)), 1.0, [0.0, False])
    assert caught.value.side == 1
    assert "raised TypeError" in caught.value.reason and "in draft_receive" in caught.value.reason


class Answers:
    """Answers `value` at its `at`-th call of `method` (1-based), 0 otherwise."""

    def __init__(self, method: str, at: int, value: object) -> None:
        self.method, self.at, self.value, self.calls = method, at, value, 0

    def _answer(self, method: str, size: int) -> object:
        if method != self.method:
            return 0
        self.calls += 1
        return self.value if self.calls == self.at else 0

    def draft_pick(self, cards: list[str]) -> object:
        return self._answer("draft_pick", 2)

    def draft_receive(self, card: str) -> None:
        pass

    def main_play(self, cards: list[str], base: str) -> object:
        return self._answer("main_play", len(cards))

    def main_postprocess(self, card: str) -> None:
        pass


class Small(int):
    """An int subclass: its 1 is not the int 1 (the seed's Number.isInteger has no such)."""


@pytest.mark.parametrize("method, at, value, hand", [
    ("draft_pick", 1, True, ""), ("draft_pick", 3, 1.0, ""), ("draft_pick", 5, Small(1), ""),
    ("draft_pick", 2, -1, ""), ("draft_pick", 4, 2, ""), ("draft_pick", 1, "0", ""),
    ("main_play", 1, True, " (hand of 3)"), ("main_play", 2, 2.0, " (hand of 3)"),
    ("main_play", 3, Small(0), " (hand of 3)"), ("main_play", 4, -1, " (hand of 3)"),
    ("main_play", 5, 3, " (hand of 3)"), ("main_play", 9, 2, " (hand of 2)"),
    ("main_play", 10, 1, " (hand of 1)"), ("main_play", 10, False, " (hand of 1)"),
])
@pytest.mark.parametrize("side", [0, 1])
def test_every_answer_but_an_int_index_in_range_disqualifies(
        method: str, at: int, value: object, hand: str, side: int) -> None:
    bots = [Answers("", 0, 0), Answers("", 0, 0)]
    bots[side] = Answers(method, at, value)
    with pytest.raises(Disqualified) as caught:
        play_match(*bots, Deal(match_key(3, at)), 1.0, [0.0, False])
    assert caught.value.side == side
    assert caught.value.reason == f"returned an invalid index {value!r} from {method}{hand}"


def test_every_int_index_in_range_is_taken() -> None:
    for hand, at in ((3, 1), (3, 8), (2, 9), (1, 10)):
        for value in range(hand):
            for side in (0, 1):
                bots = [Answers("", 0, 0), Answers("", 0, 0)]
                bots[side] = Answers("main_play", at, int(str(value)))  # a computed int
                play_match(*bots, Deal(match_key(3, at)), 1.0, [0.0, False])


@pytest.mark.parametrize("classes", ["players.py", "as the arena plays them"])
def test_the_built_ins_empty_notifications_are_known_once(classes: str) -> None:
    from bot.arena.builtins import BUILTINS
    from bot.arena.match import quiet_notices
    from games.rps_poker.players import PLAYERS

    if classes != "players.py":
        PLAYERS = BUILTINS  # noqa: N806 (the compiled twin's classes, when built)
    flags = {name: quiet_notices(cls()) for name, cls in PLAYERS.items()}
    assert flags["minimal-valid"] == (True, True)
    assert flags["simple"] == (False, True)  # draft_receive keeps its deck
    assert flags["saver"] == flags["basic-odds"] == (False, False)
    for key in (match_key(5, d) for d in range(20)):  # given or looked up: the same match
        for a, b in (("saver", "simple"), ("minimal-valid", "basic-odds")):
            bots = PLAYERS[a], PLAYERS[b]
            assert play_match(bots[0](), bots[1](), Deal(key), 1.0, [0.0, False],
                              quiet=flags[a] + flags[b]) == \
                play_match(bots[0](), bots[1](), Deal(key), 1.0, [0.0, False])


def test_a_deal_is_what_the_rules_functions_make_with_its_shuffles() -> None:
    # Deal 29065 of seed 0 rejects a draw and reads a second hash block.
    for key in [*(match_key(1, d) for d in range(400)), match_key(0, 29065)]:
        shuffle = shuffler(key)
        full = [CARDS[i] for i in rules.new_full_deck(shuffle)]
        remaining = rules.remaining_after_draft(full)
        decks = [list(range(10)), list(range(10))]
        hands = rules.start_main(*decks, remaining, shuffle)
        deal = Deal(key)
        assert list(deal.full) == full
        assert list(deal.bases) == remaining
        assert list(deal.terms) == [CARDS.index(c) for c in remaining]
        for seat in (0, 1):
            cards = [f"X{i}" for i in range(10)]
            assert list(deal.arrange[seat](cards)) == [cards[i] for i in hands[seat] + decks[seat]]



class _Lender:
    """Calls a bot with fresh lists and checks, after each call, that the bot neither
    changed the list nor kept a reference to it (what `builtins.BORROWERS` promises)."""

    def __init__(self, bot: object) -> None:
        self.bot = bot
        self.calls = 0

    def _lend(self, method: str, cards: list[str], *rest: str) -> object:
        import sys

        lent = list(cards)
        before = sys.getrefcount(lent)
        answer = getattr(self.bot, method)(lent, *rest)
        assert lent == cards, f"{type(self.bot).__name__}.{method} changed its list"
        assert sys.getrefcount(lent) == before, f"{type(self.bot).__name__}.{method} kept it"
        self.calls += 1
        return answer

    def draft_pick(self, cards: list[str]) -> object:
        return self._lend("draft_pick", cards)

    def main_play(self, cards: list[str], base: str) -> object:
        return self._lend("main_play", cards, base)

    def draft_receive(self, card: str) -> None:
        self.bot.draft_receive(card)  # type: ignore[attr-defined]

    def main_postprocess(self, card: str) -> None:
        self.bot.main_postprocess(card)  # type: ignore[attr-defined]


def test_the_borrowers_neither_keep_nor_change_the_lists_they_are_given() -> None:
    from bot.arena.builtins import BORROWERS, BUILTINS
    from games.rps_poker.players import PLAYERS

    assert {*PLAYERS.values(), *BUILTINS.values()} == BORROWERS
    for cls in BORROWERS:
        for d in range(40):
            lender, other = _Lender(cls()), _Lender(PLAYERS["saver"]())
            deal = Deal(match_key(11, d))
            lent = play_match(lender, other, deal, 1.0, [0.0, False])
            assert lender.calls == 15  # 5 picks, 10 plays
            assert lent == play_match(cls(), PLAYERS["saver"](), deal, 1.0, [0.0, False])
