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
from typing import Any

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
from games.devils_deal import rules, text
from games.devils_deal.cards import (
    DECK,
    multiset_contains,
    remove_cards,
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
from games.devils_deal.state import LOG_KEEP, DevilsDealState, Phase, Refill
from games.devils_deal.text import p

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
                      f"{self._pot(state)}. You have {state.chips[seat]} chips. Type "
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
            f"Your pool ({len(state.pools[seat])} cards, limit {state.settings.pool_limit}): "
            f"{render_all(state.pools[seat])}.",
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
        total = len(state.pools[seat]) + len(res.taken)
        return (f"You would have {total} cards (limit {state.settings.pool_limit}): discard "
                f"{res.missing_discards} more before locking in, e.g. add 'discard "
                f"{' '.join(([*state.pools[seat], *res.taken])[:res.missing_discards])}'.")

    def _expect(self, kinds: set[str], kind: str, state: DevilsDealState, seat: int) -> None:
        if kind in kinds:
            return
        if kinds:
            raise IllegalMove(f"That is not what you are asked now. {self.usage(state, seat)}")
        waiting = ", ".join(sorted({pr.kind.replace('_', ' ') for pr in self.prompts(state)}))
        raise IllegalMove(f"It is not your decision now (waiting for: {waiting or 'nothing'}).")

    # --- applying -----------------------------------------------------------------------
    def apply(self, state: DevilsDealState, seat: int, command: Command) -> list[Event]:
        ev: list[Event] = []
        if isinstance(command, Timeout):
            self._timeout(state, seat, command, ev)
        elif isinstance(command, ChooseStarter):
            self._choose_starter(state, command.starter, ev, timed_out=False)
        elif isinstance(command, RefillAnswer):
            self._refill_answer(state, seat, command.refill, ev, timed_out=False)
        elif isinstance(command, Division):
            self._post_division(state, seat, command, ev)
        elif isinstance(command, LockDivision):
            assert state.refill is not None and state.refill.division is not None
            self._finish_division(state, state.refill.division, ev, how="locked in")
        elif isinstance(command, Take):
            self._take(state, seat, command.card, command.discard, ev, timed_out=False)
        elif isinstance(command, PrivateCards):
            self._choose_private(state, seat, command.first, command.second, ev)
        elif isinstance(command, Bet):
            self._bet(state, seat, command, ev)
        for e in ev:
            if e.audience.kind == "public":
                state.log.append(e.text)
        del state.log[:-LOG_KEEP]
        return ev

    @staticmethod
    def _say(ev: list[Event], kind: str, msg: str, audience: Audience | None = None,
             **data: Any) -> None:
        ev.append(Event(kind=kind, audience=audience or Audience.public(), text=msg, data=data))

    def _timeout(self, state: DevilsDealState, seat: int, command: Timeout, ev: list[Event]) -> None:
        prompt = self.prompt(state, command.prompt_key)
        assert prompt is not None
        if prompt.kind == "choose_starter":
            self._choose_starter(state, 0, ev, timed_out=True)
        elif prompt.kind == "refill_offer":
            self._refill_answer(state, seat, False, ev, timed_out=True)
        elif prompt.kind == "division":
            assert state.refill is not None
            division = state.refill.division or Division()
            self._finish_division(state, division, ev, how="time ran out")
        elif prompt.kind == "take":
            self._take(state, seat, None, None, ev, timed_out=True)
        elif prompt.kind == "private_cards":
            state.private_failed[seat] = True
            self._say(ev, "poker.private.timeout",
                      f"Time ran out: {p(seat)} did not choose private cards.", seat=seat)
            self._private_resolved(state, ev)
        elif prompt.kind == "bet":
            self._say(ev, "bet.timeout", f"{p(seat)} ran out of time to bet and folds.")
            self._fold(state, seat, ev)

    # round flow ----------------------------------------------------------------------
    def _choose_starter(self, state: DevilsDealState, starter: int, ev: list[Event], *,
                        timed_out: bool) -> None:
        why = "Time ran out: " if timed_out else ""
        self._say(ev, "starter.chosen", f"{why}{p(starter)} starts round 1.", starter=starter)
        state.starter = starter
        self._start_round(state, ev)

    def _start_round(self, state: DevilsDealState, ev: list[Event]) -> None:
        state.round += 1
        state.community = None
        state.private = [None, None]
        state.private_failed = [False, False]
        state.revealed = [0, 0]
        state.ante_pot = 0
        state.round_bets = [0, 0]
        state.betting = None
        state.betting_no = 0
        state.set_aside = []
        state.refill = None
        self._say(ev, "round.start",
                  f"Round {state.round}: {p(state.starter)} starts. {text.chips_line(state.chips)} "
                  f"{text.pool_counts(state.pools)}",
                  round=state.round, starter=state.starter, chips=list(state.chips),
                  pool_sizes=[len(x) for x in state.pools])
        self._offer_refill(state, state.starter, ev)

    def _offer_refill(self, state: DevilsDealState, seat: int, ev: list[Event]) -> None:
        cost = state.settings.refill_cost
        if state.chips[seat] < cost:
            self._say(ev, "refill.cannot",
                      f"{p(seat)} has {state.chips[seat]} chips, fewer than the {cost} a refill "
                      f"costs, and cannot refill.", seat=seat)
            self._end_refill_turn(state, seat, ev)
            return
        state.phase = Phase.REFILL_OFFER
        state.offer_seat = seat
        state.refill = None
        state.serial += 1

    def _end_refill_turn(self, state: DevilsDealState, seat: int, ev: list[Event]) -> None:
        state.offer_seat = None
        state.refill = None
        state.set_aside = []
        if seat == state.starter:
            self._offer_refill(state, 1 - seat, ev)
        else:
            self._start_poker(state, ev)

    def _refill_answer(self, state: DevilsDealState, seat: int, yes: bool, ev: list[Event], *,
                       timed_out: bool) -> None:
        if not yes:
            why = "Time ran out: " if timed_out else ""
            self._say(ev, "refill.declined", f"{why}{p(seat)} does not refill.", seat=seat)
            self._end_refill_turn(state, seat, ev)
            return
        s = state.settings
        state.chips[seat] -= s.refill_cost
        state.removed_refills += s.refill_cost
        state.refills[seat] += 1
        offered = state.chance.sample(DECK, s.refill_cards)
        state.refill = Refill(refiller=seat, offered=offered)
        state.phase = Phase.DIVISION
        state.serial += 1
        self._say(ev, "refill.dealt",
                  f"{p(seat)} pays {s.refill_cost} chips to refill ({state.chips[seat]} left). "
                  f"Cards to divide: {text.cards_with_sum(offered)}.",
                  seat=seat, offered=list(offered), chips=list(state.chips))

    def _post_division(self, state: DevilsDealState, seat: int, division: Division,
                       ev: list[Event]) -> None:
        assert state.refill is not None
        state.refill.division = division
        if division.lock:
            self._finish_division(state, division, ev, how="locked in")
            return
        res = rules.check_division(state.refill.offered, state.pools[seat], division,
                                   state.settings.pool_limit)
        msg = (f"{p(seat)}'s division (final when time runs out, or type 'done'): "
               f"{text.pile_lines(division.piles, division.aside)}. Would take "
               f"{render_all(res.taken)}")
        if res.discards:
            msg += f" and discard {render_all(res.discards)}"
        msg += "."
        if res.missing_discards:
            msg += (f" Not enough discards: {res.missing_discards} more needed, or random cards "
                    f"will be discarded when time runs out.")
        self._say(ev, "refill.division", msg, seat=seat, piles=[list(x) for x in division.piles],
                  aside=division.aside, discards=list(res.discards),
                  missing_discards=res.missing_discards)

    def _finish_division(self, state: DevilsDealState, division: Division, ev: list[Event], *,
                         how: str) -> None:
        refill = state.refill
        assert refill is not None
        seat = refill.refiller
        res = rules.check_division(refill.offered, state.pools[seat], division,
                                   state.settings.pool_limit)
        pool = state.pools[seat]
        after = [*pool, *res.taken]
        discards = list(res.discards)
        remove_cards(after, discards)
        random_discards: list[str] = []
        if res.missing_discards:
            random_discards = state.chance.sample(after, res.missing_discards)
            remove_cards(after, random_discards)
        all_discards = [*discards, *random_discards]
        state.pools[seat] = sort_cards(after)
        state.known_pools[seat].extend(res.taken)
        remove_cards(state.known_pools[seat], all_discards)
        state.received[seat] += len(res.taken)
        state.discarded[seat] += len(all_discards)
        state.discards[seat].extend(all_discards)
        state.set_aside = res.set_aside
        taken = render_all(res.taken) if res.taken else "nothing"
        msg = (f"{p(seat)}'s refill is final ({how}): {text.pile_lines(division.piles, division.aside)}. "
               f"{p(seat)} takes {taken}")
        if discards:
            msg += f" and discards {render_all(discards)}"
        if random_discards:
            msg += f"; discarded at random (not enough discards): {render_all(random_discards)}"
        msg += (f". Set aside: {render_all(res.set_aside)}. {p(seat)} now has "
                f"{len(state.pools[seat])} cards.")
        self._say(ev, "refill.done", msg, seat=seat, taken=res.taken, discards=all_discards,
                  random_discards=random_discards, set_aside=list(res.set_aside),
                  pool_size=len(state.pools[seat]))
        state.phase = Phase.TAKE
        state.serial += 1

    def _take(self, state: DevilsDealState, seat: int, card: str | None, discard: str | None,
              ev: list[Event], *, timed_out: bool) -> None:
        refill = state.refill
        assert refill is not None
        if card is None:
            why = "Time ran out: " if timed_out else ""
            self._say(ev, "refill.take", f"{why}{p(seat)} takes no set-aside card.", seat=seat,
                      card=None, discard=None)
        else:
            state.pools[seat].append(card)
            state.known_pools[seat].append(card)
            state.received[seat] += 1
            msg = f"{p(seat)} takes {render(card)}"
            if discard is not None:
                state.pools[seat].remove(discard)
                state.known_pools[seat].remove(discard)
                state.discarded[seat] += 1
                state.discards[seat].append(discard)
                msg += f" and discards {render(discard)}"
            state.pools[seat] = sort_cards(state.pools[seat])
            self._say(ev, "refill.take", f"{msg} ({len(state.pools[seat])} cards).", seat=seat,
                      card=card, discard=discard, pool_size=len(state.pools[seat]))
        state.set_aside = []
        # The refill is complete; its refiller may refill again.
        self._offer_refill(state, refill.refiller, ev)

    def _start_poker(self, state: DevilsDealState, ev: list[Event]) -> None:
        state.community = state.chance.choice(DECK)
        self._say(ev, "poker.community",
                  f"Poker step of round {state.round}. Community card: {render(state.community)}.",
                  community=state.community)
        unable = [seat for seat in (0, 1)
                  if not rules.can_choose_private(state.pools[seat], state.community)]
        if unable:
            loser = state.starter if len(unable) == 2 else unable[0]
            why = ("neither player can choose two private cards; when both fail the same "
                   f"condition the starting player, {p(loser)}, loses") if len(unable) == 2 else (
                f"{p(loser)} cannot choose two private cards from their pool")
            self._lose(state, loser, ev, why)
            return
        state.phase = Phase.PRIVATE
        state.serial += 1

    def _choose_private(self, state: DevilsDealState, seat: int, first: str, second: str,
                        ev: list[Event]) -> None:
        remove_cards(state.pools[seat], (first, second))
        state.private[seat] = [first, second]
        token = text.pair_token(seat, first, second)
        state.past_private[seat].append(token)
        self._say(ev, "poker.private.own",
                  f"Your private cards: {render(first)} (revealed first), then {render(second)}.",
                  Audience.to(seat), private=token)
        self._say(ev, "poker.private.umpire",
                  f"{p(seat)} chose {render(first)} first, then {render(second)}.",
                  Audience.umpire(), seat=seat, first=first, second=second)
        self._say(ev, "poker.private.chosen", f"{p(seat)} has chosen their private cards.",
                  seat=seat)
        self._private_resolved(state, ev)

    def _private_resolved(self, state: DevilsDealState, ev: list[Event]) -> None:
        """Once both seats have chosen or run out of time: a failure loses (both: the
        starter), else the ante."""
        if any(state.private[x] is None and not state.private_failed[x] for x in (0, 1)):
            return
        failed = [x for x in (0, 1) if state.private_failed[x]]
        if len(failed) == 2:
            self._lose(state, state.starter, ev,
                       f"neither player chose private cards in time; when both fail the same "
                       f"condition the starting player, {p(state.starter)}, loses")
        elif failed:
            self._lose(state, failed[0], ev, f"{p(failed[0])} did not choose private cards in time")
        else:
            self._ante(state, ev)

    def _ante(self, state: DevilsDealState, ev: list[Event]) -> None:
        s = state.settings
        short = [seat for seat in (0, 1) if state.chips[seat] < s.ante]
        if short:
            loser = state.starter if len(short) == 2 else short[0]
            why = (f"neither player can pay the {s.ante}-chip ante; when both fail the same "
                   f"condition the starting player, {p(loser)}, loses") if len(short) == 2 else (
                f"{p(loser)} cannot pay the {s.ante}-chip ante")
            self._lose(state, loser, ev, why)
            return
        for seat in (0, 1):
            state.chips[seat] -= s.ante
        state.ante_pot = 2 * s.ante - s.ante_removed
        state.removed_ante += s.ante_removed
        self._say(ev, "poker.ante",
                  f"Both players pay the {s.ante}-chip ante; {s.ante_removed} chip leaves the game, "
                  f"so the pot starts at {state.ante_pot}. {text.chips_line(state.chips)}",
                  pot=state.ante_pot, chips=list(state.chips))
        self._start_betting(state, 1, ev)

    def _pot(self, state: DevilsDealState) -> int:
        return state.ante_pot + sum(state.round_bets)

    def _start_betting(self, state: DevilsDealState, n: int, ev: list[Event]) -> None:
        state.betting_no = n
        state.betting = betting.start_phase(state.starter, state.chips)
        if state.betting.skipped:
            broke = [p(seat) for seat in (0, 1) if state.chips[seat] <= 0]
            self._say(ev, "bet.skip",
                      f"{' and '.join(broke)} {'has' if len(broke) == 1 else 'have'} no chips: "
                      f"betting phase {n} ends at once (no bets, no folding).", phase=n)
            self._end_betting(state, ev)
            return
        state.phase = Phase.BETTING
        state.serial += 1

    def _bet(self, state: DevilsDealState, seat: int, command: Bet, ev: list[Event]) -> None:
        phase = state.betting
        assert phase is not None
        if command.action == "fold":
            self._fold(state, seat, ev)
            return
        record = betting.apply_action(phase, state.chips, seat, command.action, command.amount)
        state.round_bets[seat] += record.paid
        other = 1 - seat
        if command.action == "call":
            msg = f"{p(seat)} calls {record.paid}."
        else:
            msg = (f"{p(seat)} raises {command.amount} (puts in {record.paid}); {p(other)} needs "
                   f"{phase.bets[seat] - phase.bets[other]} to call.")
        msg += (f" Bets this phase: {p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}. Pot "
                f"{self._pot(state)}. {text.chips_line(state.chips)}")
        self._say(ev, f"bet.{command.action}", msg, seat=seat, amount=command.amount,
                  paid=record.paid, bets=list(phase.bets), pot=self._pot(state),
                  chips=list(state.chips))
        if phase.closed:
            self._end_betting(state, ev)
        else:
            state.serial += 1

    def _end_betting(self, state: DevilsDealState, ev: list[Event]) -> None:
        n = state.betting_no
        shown = []
        for seat in (0, 1):
            pair = state.private[seat]
            assert pair is not None
            c = pair[n - 1]
            state.revealed[seat] = n
            state.known_pools[seat].remove(c)
            shown.append(c)
        self._say(ev, "poker.reveal",
                  f"Betting phase {n} is over. {'First' if n == 1 else 'Second'} private cards: "
                  f"{p(0)} {render(shown[0])}, {p(1)} {render(shown[1])}.",
                  phase=n, cards=shown)
        if n == 1:
            self._start_betting(state, 2, ev)
        else:
            self._showdown(state, ev)

    def _showdown(self, state: DevilsDealState, ev: list[Event]) -> None:
        assert state.community is not None
        hands = [[*(state.private[seat] or []), state.community] for seat in (0, 1)]
        ranks = [rules.hand_rank(h) for h in hands]
        desc = "; ".join(f"{p(seat)} {render_all(hands[seat])} ({ranks[seat].name})"
                         for seat in (0, 1))
        pot = self._pot(state)
        if ranks[0] == ranks[1]:
            for seat in (0, 1):
                state.chips[seat] += state.round_bets[seat]
            state.removed_ties += state.ante_pot
            msg = (f"Showdown: {desc}. A tie: both take back their bets; the {state.ante_pot} "
                   f"ante chips leave the game. {text.chips_line(state.chips)}")
            winner = None
        else:
            winner = 0 if ranks[0] > ranks[1] else 1
            state.chips[winner] += pot
            msg = (f"Showdown: {desc}. {p(winner)} wins the round and {pot} chips. "
                   f"{text.chips_line(state.chips)}")
        self._say(ev, "poker.showdown", msg, hands=hands, categories=[r.category for r in ranks],
                  winner=winner, pot=pot, chips=list(state.chips))
        state.ante_pot = 0
        state.round_bets = [0, 0]
        self._finish_round(state, state.starter if winner is None else winner, ev)

    def _fold(self, state: DevilsDealState, seat: int, ev: list[Event]) -> None:
        assert state.community is not None and state.betting is not None
        s = state.settings
        winner = 1 - seat
        phase = state.betting
        if phase.to_act == seat and not phase.closed:
            betting.apply_action(phase, state.chips, seat, "fold")
        pot = self._pot(state)
        state.chips[winner] += pot
        state.ante_pot = 0
        state.round_bets = [0, 0]
        self._say(ev, "bet.fold", f"{p(seat)} folds. {p(winner)} wins the round and takes {pot} "
                  f"chips.", seat=seat, pot=pot)
        hand = [*(state.private[seat] or []), state.community]
        hidden = []
        for who in (0, 1):
            pair = state.private[who]
            assert pair is not None
            if state.revealed[who] < 2:
                state.hidden_pairs.append((who, text.pair_token(who, *pair)))
                hidden.append(f"{p(who)} {render_all(pair[state.revealed[who]:])}")
        if hidden:
            self._say(ev, "poker.unrevealed.umpire",
                      f"Unrevealed private cards: {'; '.join(hidden)}. {p(seat)}'s hand: "
                      f"{render_all(hand)} ({rules.hand_rank(hand).name}).", Audience.umpire())
        if rules.is_high_card(hand) and s.fold_penalty:
            if state.chips[seat] < s.fold_penalty:
                self._say(ev, "poker.penalty.unpaid",
                          f"{p(seat)} folded a high-card hand and cannot pay the "
                          f"{s.fold_penalty}-chip penalty.", seat=seat, paid=False)
                self._retire_private(state)
                self._lose(state, seat, ev, f"{p(seat)} cannot pay the {s.fold_penalty}-chip "
                           f"penalty for folding a high-card hand")
                return
            state.chips[seat] -= s.fold_penalty
            state.chips[winner] += s.fold_penalty
            self._say(ev, "poker.penalty.paid",
                      f"{p(seat)} folded a high-card hand and pays {p(winner)} the "
                      f"{s.fold_penalty}-chip penalty. {text.chips_line(state.chips)}",
                      seat=seat, paid=True, chips=list(state.chips))
        else:
            self._say(ev, "poker.penalty.none", f"{p(seat)} pays no fold penalty. "
                      f"{text.chips_line(state.chips)}", seat=seat, paid=False,
                      chips=list(state.chips))
        self._finish_round(state, winner, ev)

    def _retire_private(self, state: DevilsDealState) -> None:
        """The round's private cards are used up (discarded, revealed or not)."""
        for seat in (0, 1):
            if state.private[seat] is not None:
                state.used[seat] += 2
        state.private = [None, None]
        state.betting = None

    def _finish_round(self, state: DevilsDealState, next_starter: int, ev: list[Event]) -> None:
        self._retire_private(state)
        state.starter = next_starter
        pause = state.settings.break_seconds
        self._say(ev, "round.end",
                  f"Round {state.round} is over. {text.chips_line(state.chips)} "
                  f"{text.pool_counts(state.pools)} {p(next_starter)} starts the next round "
                  f"after a {pause:g}-second break.",
                  round=state.round, next_starter=next_starter, chips=list(state.chips),
                  pool_sizes=[len(x) for x in state.pools], pause_seconds=pause)
        self._start_round(state, ev)

    def _lose(self, state: DevilsDealState, loser: int, ev: list[Event], why: str) -> None:
        state.phase = Phase.OVER
        state.winner = 1 - loser
        state.reason = why
        state.offer_seat = None
        self._say(ev, "match.end", f"{p(loser)} loses: {why}. {p(1 - loser)} wins the match.",
                  winner=1 - loser, loser=loser, reason=why, chips=list(state.chips))

    def outcome(self, state: DevilsDealState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(state.chips[0], state.chips[1]))

    # --- information --------------------------------------------------------------------
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
        return out

    # --- text ---------------------------------------------------------------------------
    def parse(self, state: DevilsDealState, seat: int, text_in: str) -> Command:
        from games.devils_deal.grammar import parse

        return parse(self, state, seat, text_in)

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
