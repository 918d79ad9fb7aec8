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
    Audience,
    BotFactory,
    Command,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    Outcome,
    Prompt,
    Secret,
    Timeout,
)
from games.core.parsing import DecisionWords, MoveWords
from games.devils_deal import flow, rules, text, twin
from games.devils_deal.cards import (
    DECK,
    multiset_contains,
    render,
    render_all,
    sort_cards,
)
from games.devils_deal.commands import (
    COMMAND_TYPES,
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.settings import DevilsDealSettings, reminders_for
from games.devils_deal.state import LOG_KEEP, DevilsDealState, Phase
from games.devils_deal.text import p
from games.devils_deal.views import DevilsDealView

CALL_WORD = "'call', "
LIMITS = betting.BettingLimits(min_raise=1, cap_by_opponent=True, cap_by_own=True)


class DevilsDeal(Game[DevilsDealState]):
    slug = "devils-deal"
    title = "Devil's Deal"
    settings_model = DevilsDealSettings
    state_model = DevilsDealState
    command_types = COMMAND_TYPES

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
        return [Event(kind="match.start", audience=Audience.public(), text=msg,
                      data={"pools": [list(x) for x in state.pools], "chips": list(state.chips)})]

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
            opts = betting.options(phase, state.chips, LIMITS)
            return [Prompt(
                key=f"{k}-bet", seat=seat, kind="bet", private=False,
                text=(f"Betting phase {state.betting_no}: {betting.describe(opts)}. Bets this "
                      f"phase: {p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}; pot "
                      f"{flow.pot_size(state)}. You have {state.chips[seat]} chips. Type "
                      f"{CALL_WORD if opts.can_call else ''}'raise N' (N on top of the call) "
                      f"or 'fold'."),
                brief=(f"betting phase {state.betting_no}: {betting.describe(opts)}. Bets "
                       f"{p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}; pot "
                       f"{flow.pot_size(state)}; you have {state.chips[seat]}."),
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

    # --- checking -----------------------------------------------------------------------
    def check(self, state: DevilsDealState, seat: int, command: Command) -> None:
        if state.phase == Phase.OVER:
            raise IllegalMove("The match is over.")
        pending = [pr for pr in self.prompts(state) if pr.seat == seat]
        if isinstance(command, Timeout):
            if not any(pr.key == command.prompt_key for pr in pending):
                raise IllegalMove(f"No pending decision of yours has the key {command.prompt_key!r}.")
            return
        kinds = {pr.kind for pr in pending}
        s = state.settings
        if isinstance(command, ChooseStarter):
            self._expect(kinds, "choose_starter", state, seat)
            if command.starter not in (0, 1):
                raise IllegalMove("The starter must be you or your opponent.")
        elif isinstance(command, RefillAnswer):
            if "refill_offer" not in kinds and command.refill and state.chips[seat] < s.refill_cost:
                raise IllegalMove(f"You have {state.chips[seat]} chips; a refill costs "
                                  f"{s.refill_cost}, so you cannot refill.")
            self._expect(kinds, "refill_offer", state, seat)
        elif isinstance(command, Division):
            self._expect(kinds, "division", state, seat)
            assert state.refill is not None
            res = rules.check_division(state.refill.offered, state.pools[seat], command, s.pool_limit)
            if command.lock and res.missing_discards:
                raise IllegalMove(self._missing_text(state, seat, res))
        elif isinstance(command, LockDivision):
            self._expect(kinds, "division", state, seat)
            assert state.refill is not None
            if state.refill.division is None:
                raise IllegalMove("You have not posted a valid division yet; post one (or "
                                  "'nothing' to take nothing).")
            res = rules.check_division(state.refill.offered, state.pools[seat],
                                       state.refill.division, s.pool_limit)
            if res.missing_discards:
                raise IllegalMove(self._missing_text(state, seat, res))
        elif isinstance(command, Take):
            self._expect(kinds, "take", state, seat)
            rules.check_take(state.set_aside, state.pools[seat], command.card, command.discard,
                             s.pool_limit)
        elif isinstance(command, PrivateCards):
            self._expect(kinds, "private_cards", state, seat)
            rules.check_private(state.pools[seat], state.community or "", command.first,
                                command.second)
        elif isinstance(command, Bet):
            self._expect(kinds, "bet", state, seat)
            assert state.betting is not None
            betting.check_action(state.betting, state.chips, LIMITS, seat, command.action,
                                 command.amount)
        else:
            raise IllegalMove("That is not a Devil's Deal move.")

    @staticmethod
    def _missing_text(state: DevilsDealState, seat: int, res: rules.DivisionResult) -> str:
        # Pool sizes are public; the pool itself is not, so no card of it is suggested here.
        total = len(state.pools[seat]) + len(res.taken)
        return (f"You would have {total} cards (limit {state.settings.pool_limit}): discard "
                f"{res.missing_discards} more before locking in: add 'discard' and "
                f"{text.plural(res.missing_discards, 'card')} of your pool or of the cards you "
                f"take (e.g. '| discard R1 G2').")

    def _expect(self, kinds: set[str], kind: str, state: DevilsDealState, seat: int) -> None:
        self.expect_decision(state, seat, kinds, kind)

    # --- applying -----------------------------------------------------------------------
    def apply(self, state: DevilsDealState, seat: int, command: Command) -> list[Event]:
        ev: list[Event] = []
        if isinstance(command, Timeout):
            self._timeout(state, seat, command, ev)
        elif isinstance(command, ChooseStarter):
            flow.choose_starter(state, command.starter, ev, timed_out=False)
        elif isinstance(command, RefillAnswer):
            flow.refill_answer(state, seat, command.refill, ev, timed_out=False)
        elif isinstance(command, Division):
            flow.post_division(state, seat, command, ev)
        elif isinstance(command, LockDivision):
            assert state.refill is not None and state.refill.division is not None
            flow.finish_division(state, state.refill.division, ev, how="locked in")
        elif isinstance(command, Take):
            flow.take(state, seat, command.card, command.discard, ev, timed_out=False)
        elif isinstance(command, PrivateCards):
            flow.choose_private(state, seat, command.first, command.second, ev)
        elif isinstance(command, Bet):
            flow.bet(state, seat, command, ev)
        for e in ev:
            if e.audience.kind == "public":
                state.log.append(e.text)
        del state.log[:-LOG_KEEP]
        return ev

    def _timeout(self, state: DevilsDealState, seat: int, command: Timeout, ev: list[Event]) -> None:
        prompt = self.prompt(state, command.prompt_key)
        assert prompt is not None
        if prompt.kind == "choose_starter":
            flow.choose_starter(state, 0, ev, timed_out=True)
        elif prompt.kind == "refill_offer":
            flow.refill_answer(state, seat, False, ev, timed_out=True)
        elif prompt.kind == "division":
            assert state.refill is not None
            division = state.refill.division or Division()
            flow.finish_division(state, division, ev, how="time ran out")
        elif prompt.kind == "take":
            flow.take(state, seat, None, None, ev, timed_out=True)
        elif prompt.kind == "private_cards":
            state.private_failed[seat] = True
            flow.say(ev, "poker.private.timeout",
                      f"Time ran out: {p(seat)} did not choose private cards.", seat=seat)
            flow.private_resolved(state, ev)
        elif prompt.kind == "bet":
            flow.say(ev, "bet.timeout", f"{p(seat)} ran out of time to bet and folds.")
            flow.fold(state, seat, ev)

    # round flow ----------------------------------------------------------------------
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
        from games.devils_deal.views import build_view

        return build_view(self, state, seat)

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
        from games.devils_deal.grammar import parse

        return parse(self, state, seat, text_in)

    def decision_words(self) -> DecisionWords:
        from games.devils_deal.grammar import DECISIONS

        return DECISIONS

    def move_words(self, state: DevilsDealState) -> MoveWords:
        from games.devils_deal.grammar import MOVE_WORDS

        return MOVE_WORDS

    def usage(self, state: DevilsDealState, seat: int) -> str:
        from games.devils_deal.grammar import usage

        return usage(self, state, seat)

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: DevilsDealState, prompt: Prompt, rng: random.Random) -> Command:
        from games.devils_deal.bots import random_command

        return random_command(self, state, prompt, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        from games.devils_deal.bots import BOTS

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
