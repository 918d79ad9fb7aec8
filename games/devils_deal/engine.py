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

from games.core import betting
from games.core.chance import Chance
from games.core.contract import (
    BotFactory,
    Command,
    Event,
    Game,
    OnTimeout,
    Outcome,
    Prompt,
    Secret,
    say,
)
from games.core.parsing import DecisionWords, MoveWords
from games.devils_deal import flow, grammar, rules, text, twin
from games.devils_deal.bots import BOTS, random_from_view
from games.devils_deal.cards import (
    DECK,
    multiset_contains,
    render,
    render_all,
    sort_cards,
)
from games.devils_deal.checks import CHECKS, KIND_COMMANDS, cannot_afford
from games.devils_deal.commands import COMMAND_TYPES, RefillAnswer
from games.devils_deal.settings import DevilsDealSettings, reminders_for
from games.devils_deal.state import LOG_KEEP, DevilsDealState, Phase
from games.devils_deal.text import p
from games.devils_deal.views import DevilsDealView, build_view

CALL_WORD = "'call', "


class DevilsDeal(Game[DevilsDealState]):
    slug = "devils-deal"
    title = "Devil's Deal"
    settings_model = DevilsDealSettings
    state_model = DevilsDealState
    command_types = COMMAND_TYPES
    answers = KIND_COMMANDS
    checks = CHECKS
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

    # --- prompts ------------------------------------------------------------------------
    def prompts(self, state: DevilsDealState) -> list[Prompt]:
        s = state.settings
        k = f"dd{state.serial}"
        if state.phase == Phase.STARTER:
            return [Prompt(
                key=f"{k}-starter", seat=0, kind="choose_starter", private=False,
                text=("Choose who starts round 1: type 'me' (you start) or 'opponent'. The "
                      "starter refills first and leads both betting phases."),
                time_limit=s.starter_choice_seconds, reminders=reminders_for(s.starter_choice_seconds),
                timeout_text="if time runs out, you start round 1.", choices=("me", "opponent"))]
        if state.phase == Phase.REFILL_OFFER:
            seat = state.offer_seat
            assert seat is not None
            return [Prompt(
                key=f"{k}-refill", seat=seat, kind="refill_offer", private=False,
                text=(f"Refill? Pay {s.refill_cost} chips for {s.refill_cards} cards to divide. "
                      f"You have {state.chips[seat]} chips and {len(state.pools[seat])} cards in "
                      f"your pool. Type yes or no."),
                time_limit=s.refill_offer_seconds, reminders=reminders_for(s.refill_offer_seconds),
                timeout_text="if time runs out, you do not refill.", choices=("yes", "no"))]
        if state.phase == Phase.DIVISION:
            refill = state.refill
            assert refill is not None
            return [Prompt(
                key=f"{k}-division", seat=refill.refiller, kind="division", private=False,
                text=self._division_text(state), time_limit=s.refill_division_seconds,
                reminders=reminders_for(s.refill_division_seconds), resubmittable=True,
                timeout_text=("when time runs out your last valid division counts (missing "
                              "discards are made at random); with none, every card is set aside."),
                choices=("nothing", "done") if refill.division is not None else ("nothing",))]
        if state.phase == Phase.TAKE:
            refill = state.refill
            assert refill is not None
            seat = 1 - refill.refiller
            full = len(state.pools[seat]) >= s.pool_limit
            choices: tuple[str, ...] = ("nothing",)
            if not full:
                choices = (*(f"take {c}" for c in dict.fromkeys(state.set_aside)), "nothing")[:25]
            extra = (f" Your pool has {len(state.pools[seat])} cards, so also discard one "
                     f"(e.g. 'take {state.set_aside[0]} discard {state.set_aside[0]}').") if full else ""
            return [Prompt(
                key=f"{k}-take", seat=seat, kind="take", private=False,
                text=(f"You may take one set-aside card for free: "
                      f"{render_all(state.set_aside)}. Type 'take {state.set_aside[0]}' or "
                      f"'nothing'.{extra}"),
                time_limit=s.take_seconds, reminders=reminders_for(s.take_seconds),
                timeout_text="if time runs out, you take nothing.", choices=choices)]
        if state.phase == Phase.PRIVATE:
            out = []
            for seat in (0, 1):
                if state.private[seat] is not None or state.private_failed[seat]:
                    continue
                out.append(Prompt(
                    key=f"{k}-private-{seat}", seat=seat, kind="private_cards", private=True,
                    text=(f"Choose your two private cards in reveal order, first card first "
                          f"(e.g. '{self._example_pair(state, seat)}'). Your pool: "
                          f"{render_all(state.pools[seat])}. Community card: "
                          f"{render(state.community or '')}; your cards must differ from it "
                          f"and from each other."),
                    time_limit=s.private_cards_seconds, reminders=reminders_for(s.private_cards_seconds),
                    on_timeout=OnTimeout.LOSE,
                    timeout_text="if time runs out, you have failed to choose private cards and lose."))
            return out
        if state.phase == Phase.BETTING:
            phase = state.betting
            assert phase is not None
            seat = phase.to_act
            opts = betting.options(phase, state.chips, rules.LIMITS)
            return [Prompt(
                key=f"{k}-bet", seat=seat, kind="bet", private=False,
                text=(f"Betting phase {state.betting_no}: {betting.describe(opts)}. Bets this "
                      f"phase: {p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}; pot "
                      f"{flow.pot_size(state)}. You have {state.chips[seat]} chips. Type "
                      f"{CALL_WORD if opts.can_call else ''}'raise N' (N on top of the call) "
                      f"or 'fold'."),
                time_limit=s.bet_seconds, reminders=reminders_for(s.bet_seconds),
                timeout_text=(f"if time runs out, you fold (paying the {s.fold_penalty}-chip "
                              f"penalty if your hand is high card)."),
                choices=self._bet_choices(opts))]
        return []

    @staticmethod
    def _example_pair(state: DevilsDealState, seat: int) -> str:
        options = rules.pair_options(state.pools[seat], state.community or "")
        return " ".join(options[0]) if options else "R7 B3"

    @staticmethod
    def _bet_choices(opts: betting.BetOptions) -> tuple[str, ...]:
        out: list[str] = []
        if opts.can_call:
            out.append(f"call {opts.call_amount}")
        if opts.can_raise:
            assert opts.min_raise is not None and opts.max_raise is not None
            amounts = sorted({opts.min_raise, min(2, opts.max_raise), min(3, opts.max_raise),
                              min(5, opts.max_raise), opts.max_raise})
            out.extend(f"raise {a}" for a in amounts)
        out.append("fold")
        return tuple(out)

    def _division_text(self, state: DevilsDealState) -> str:
        refill = state.refill
        assert refill is not None
        seat = refill.refiller
        lines = [
            f"Divide these {len(refill.offered)} cards: {text.cards_with_sum(refill.offered)}.",
            f"Your pool has {len(state.pools[seat])} cards (limit {state.settings.pool_limit}; "
            f"its cards are sent to you privately).",
            "Write each pile on its own line (or separate piles with | or /), all piles with the "
            "same sum; mark the pile you set aside with 'aside:' and list discards after "
            "'discard' if you would go over the limit. Cards in no pile are set aside.",
            "Example: R2 B3 R3 G6 | G5 B9 | aside: G2 B5 R7 | discard B3. You may change it "
            "until the time runs out; type 'done' to lock it in now, or 'nothing' to take nothing.",
        ]
        if refill.division is not None:
            res = rules.check_division(refill.offered, state.pools[seat], refill.division,
                                       state.settings.pool_limit)
            lines.append(f"Current division: {text.pile_lines(refill.division.piles, refill.division.aside)}"
                         + (f"; discards {render_all(res.discards)}" if res.discards else "")
                         + (f"; {res.missing_discards} more discards needed"
                            if res.missing_discards else "") + ".")
        return " ".join(lines)

    # --- dispatch -----------------------------------------------------------------------
    def is_over(self, state: DevilsDealState) -> bool:
        return state.phase == Phase.OVER

    def refusal(self, state: DevilsDealState, seat: int, command: Command,
                kinds: set[str]) -> str:
        if isinstance(command, RefillAnswer):
            short = cannot_afford(state, seat, command)
            if short is not None:
                return short
        return super().refusal(state, seat, command, kinds)

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
