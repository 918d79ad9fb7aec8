"""The Devil's Deal engine: the `Game` subclass the runtime drives.

A round is the refill step (offers to the starter, then the opponent; each refill is a
division by the refiller and a take by the opponent) and the poker step (community card,
simultaneous private cards, ante, two betting phases with reveals, showdown or fold).
Automatic steps run inside `apply`; between two rounds there is no prompt: the round-end
event carries `data["pause_seconds"]` (the break setting) for the runtime to honour.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import BaseModel

from games.core.chance import Chance
from games.core.contract import (
    BotFactory,
    Command,
    Event,
    Game,
    Outcome,
    Prompt,
    Quick,
    Reveals,
    Secret,
    say,
)
from games.core.parsing import DecisionWords, MoveWords
from games.devils_deal import feed, flow, grammar, text, twin
from games.devils_deal import prompts as prompting
from games.devils_deal.bots import BOTS, random_from_view
from games.devils_deal.cards import (
    DECK,
    multiset_contains,
    render,
    render_all,
    sort_cards,
)
from games.devils_deal.checks import CHECKS, KIND_COMMANDS, REFUSALS
from games.devils_deal.commands import COMMAND_TYPES
from games.devils_deal.controls import CONTROLS
from games.devils_deal.settings import DevilsDealSettings
from games.devils_deal.state import LOG_KEEP, DevilsDealState, Phase
from games.devils_deal.text import p
from games.devils_deal.views import DevilsDealView, build_view


class DevilsDeal(Game[DevilsDealState]):
    slug = "devils-deal"
    reveals = Reveals(at_end=feed.AT_END, text=feed.reveal)  # (games.core.feed)
    controls = CONTROLS  # (games.core.controls)
    quick = Quick(short={"starting_chips": 6}, no_waits={"break_seconds": 0}, clocks=lambda s: {
        f"{name}_seconds": s for name in ("starter_choice", "refill_offer", "refill_division",
                                          "take", "private_cards", "bet")})
    title = "Devil's Deal"
    settings_model = DevilsDealSettings
    state_model = DevilsDealState
    command_types = COMMAND_TYPES
    answers = KIND_COMMANDS
    checks = CHECKS
    refusals = REFUSALS
    applies = flow.APPLY
    timeouts = flow.TIMEOUTS
    log_keep = LOG_KEEP

    # --- life cycle ---------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> DevilsDealState:
        if not isinstance(settings, DevilsDealSettings):
            settings = DevilsDealSettings.model_validate(settings.model_dump())
        state = DevilsDealState(settings=settings, chance=Chance.from_seed(seed))
        n = settings.starting_pool
        deal = state.chance.sample(DECK, 2 * n)  # one fresh deck: no card in both pools
        state.pools = [sort_cards(deal[:n]), sort_cards(deal[n:])]
        state.known_pools = [list(state.pools[0]), list(state.pools[1])]
        state.received = [n, n]
        state.chips = [settings.starting_chips, settings.starting_chips]
        state.phase = Phase.STARTER
        state.serial = 1
        return state

    def opening_events(self, state: DevilsDealState) -> list[Event]:
        s = state.settings
        msg = (f"Devil's Deal begins. Starting pools: {p(0)} {render_all(state.pools[0])}; "
               f"{p(1)} {render_all(state.pools[1])}. Each player has {s.starting_chips} chips. "
               f"{p(0)} holds the advantage and chooses who starts round 1.")
        ev: list[Event] = []
        say(ev, "match.start", msg, pools=[list(x) for x in state.pools], chips=list(state.chips))
        return ev

    def prompts(self, state: DevilsDealState) -> list[Prompt]:
        return prompting.prompts(state)

    # --- dispatch -----------------------------------------------------------------------
    def is_over(self, state: DevilsDealState) -> bool:
        return state.phase == Phase.OVER

    def outcome(self, state: DevilsDealState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(state.chips[0], state.chips[1]))

    # --- information --------------------------------------------------------------------
    def describe(self, state: DevilsDealState, seat: int | None) -> str:
        """Chips, pool sizes, and for a player their own pool and private cards."""
        v = self.view(state, seat)
        assert isinstance(v, DevilsDealView)
        lines = [f"Chips: {p(0)} {v.chips[0]}, {p(1)} {v.chips[1]}. Pools: {p(0)} "
                 f"{v.pool_sizes[0]} cards, {p(1)} {v.pool_sizes[1]} cards."]
        if v.my_pool is not None:
            lines.append(f"Your pool ({len(v.my_pool)}/{v.pool_limit}): "
                         f"{render_all(sort_cards(v.my_pool))}")
        if v.community:
            lines.append(f"Community card: {render(v.community)}")
        if v.my_private:
            lines.append(f"Your private cards: {render(v.my_private[0])} (revealed first), "
                         f"then {render(v.my_private[1])}")
        if v.pot:
            lines.append(f"Pot: {v.pot}")
        return "\n".join(lines)

    def view(self, state: DevilsDealState, seat: int | None) -> BaseModel:
        return build_view(state, seat)

    def secrets(self, state: DevilsDealState) -> list[Secret]:
        out = []
        if state.phase != Phase.OVER:
            for seat in (0, 1):
                pair = state.private[seat]
                if pair is not None and state.revealed[seat] < 2:
                    out.append(Secret(value=text.pair_token(seat, *pair), known_to=frozenset({seat}),
                                      label=f"seat {seat} private cards"))
        for seat, token in state.hidden_pairs:
            out.append(Secret(value=token, known_to=frozenset({seat}),
                              label=f"seat {seat} unrevealed folded cards"))
        if state.phase != Phase.OVER:
            # Tokens that appear nowhere, so that the two-world check sees when these are
            # revealed: the first private card (at the end of betting phase 1) and the pool
            # while its contents are not public (a loss for want of private cards shows it).
            for seat in (0, 1):
                pair = state.private[seat]
                if pair is not None and state.revealed[seat] == 0:
                    out.append(Secret(value=f"seat{seat}:first:{pair[0]}",
                                      known_to=frozenset({seat}),
                                      label=f"seat {seat} first private card"))
                if twin.pool_is_secret(state, seat):
                    out.append(Secret(value=f"seat{seat}:pool:{'.'.join(sort_cards(state.pools[seat]))}",
                                      known_to=frozenset({seat}), label=f"seat {seat} pool"))
        return out

    def twin(self, state: DevilsDealState, seat: int,
             rng: random.Random) -> DevilsDealState | None:
        """Another world for `seat`'s secrets: its unrevealed private cards, or which cards of
        its public pool record a fold took away unseen (games.devils_deal.twin)."""
        return twin.make_twin(state, seat, rng)

    # --- text ---------------------------------------------------------------------------
    def parse(self, state: DevilsDealState, seat: int, text_in: str) -> Command:
        return grammar.parse(self.pending_kinds(state, seat), state, seat, text_in)

    def decision_words(self) -> DecisionWords:
        return grammar.DECISIONS

    def move_words(self, state: DevilsDealState) -> MoveWords:
        return grammar.MOVE_WORDS

    def usage(self, state: DevilsDealState, seat: int) -> str:
        return grammar.usage(self.pending_kinds(state, seat), state)

    def move_help(self) -> tuple[str, ...]:
        return tuple(grammar._USAGE.values())

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: DevilsDealState, prompt: Prompt, rng: random.Random) -> Command:
        return random_from_view(build_view(state, prompt.seat), prompt, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        return BOTS

    # --- checks -------------------------------------------------------------------------
    def invariants(self, state: DevilsDealState) -> None:
        s = state.settings
        removed = state.removed_refills + state.removed_ante + state.removed_ties
        total = sum(state.chips) + sum(state.round_bets) + state.ante_pot + removed
        assert total == 2 * s.starting_chips, f"chips not conserved: {total}"
        assert min(state.chips) >= 0, f"negative chips {state.chips}"
        assert state.removed_refills == s.refill_cost * sum(state.refills), "refill chips"
        if state.betting is not None and state.phase == Phase.BETTING:
            assert sum(state.betting.bets) <= sum(state.round_bets), "phase bets exceed round bets"
        for seat in (0, 1):
            pool = state.pools[seat]
            assert len(pool) <= s.pool_limit, f"pool {seat} over the limit: {len(pool)}"
            assert all(c in DECK for c in pool), f"unknown card in pool {seat}"
            pair = state.private[seat]
            in_play = len(pair) if pair is not None else 0
            assert (state.received[seat] - state.discarded[seat] - state.used[seat]
                    == len(pool) + in_play), f"card count of seat {seat} broken"
            unrevealed = pair[state.revealed[seat]:] if pair is not None else []
            assert multiset_contains(state.known_pools[seat], [*pool, *unrevealed]), \
                f"public record of pool {seat} lost a card"
            if pair is not None:
                assert pair[0] != pair[1] and state.community not in pair, "illegal hand"
        if state.refill is not None:
            assert len(set(state.refill.offered)) == len(state.refill.offered), "offer repeats"
            assert all(c in state.refill.offered for c in state.set_aside), "set-aside not offered"
