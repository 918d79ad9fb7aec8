"""The Renounce Fate engine: the `Game` subclass the runtime drives.

A round: the deal (two private cards each, three public fate sets of three), the ante, the
first betting round, renounce steps until every set holds 0 or 1 card, the second betting
round, then the showdown (or a fold). Automatic steps run inside `apply` (see `flow.py`);
between rounds there is no prompt: the round-end event carries `data["pause_seconds"]`.

Bots are registered by the package (`__init__.py`), so this module never imports them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import combinations

from pydantic import BaseModel

from games.core import betting
from games.core.chance import Chance
from games.core.contract import (
    BotFactory,
    Command,
    Event,
    Game,
    IllegalMove,
    Outcome,
    Prompt,
    Secret,
    Timeout,
)
from games.core.parsing import DecisionWords, MoveWords
from games.renounce_fate import flow, rules, text
from games.renounce_fate.cards import DECK, render, render_all, sort_cards
from games.renounce_fate.commands import COMMAND_TYPES, Bet, ChooseStarter, Renounce
from games.renounce_fate.settings import RenounceFateSettings, reminders_for
from games.renounce_fate.state import LOG_KEEP, Phase, Pick, RenounceFateState
from games.renounce_fate.text import chips_line, p
from games.renounce_fate.views import build_view

HIDDEN_CHECKED = 6  # unshown hands of the last three folded rounds


class RenounceFate(Game[RenounceFateState]):
    slug = "renounce-fate"
    title = "Renounce Fate"
    settings_model = RenounceFateSettings
    state_model = RenounceFateState
    command_types = COMMAND_TYPES

    def __init__(self, bots: Mapping[str, BotFactory] | None = None) -> None:
        self._bots: dict[str, BotFactory] = dict(bots or {})

    # --- life cycle ---------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> RenounceFateState:
        if not isinstance(settings, RenounceFateSettings):
            settings = RenounceFateSettings.model_validate(settings.model_dump())
        state = RenounceFateState(settings=settings, chance=Chance.from_seed(seed))
        state.chips = [settings.starting_chips, settings.starting_chips]
        state.serial = 1
        return state

    def opening_events(self, state: RenounceFateState) -> list[Event]:
        s = state.settings
        msg = (f"Renounce Fate begins. Each player has {s.starting_chips} chips. The ante is "
               f"{s.ante_start}, rising by {s.ante_step} every {s.ante_every} rounds. {p(0)} "
               f"holds the advantage and chooses who starts round 1.")
        return [flow_event("match.start", msg, chips=list(state.chips))]

    # --- prompts ------------------------------------------------------------------------
    def prompts(self, state: RenounceFateState) -> list[Prompt]:
        s = state.settings
        k = f"rf{state.serial}"
        if state.phase == Phase.STARTER:
            return [Prompt(
                key=f"{k}-starter", seat=0, kind="choose_starter", private=False,
                text=("Choose who starts round 1: type 'me' (you start) or 'opponent'. The "
                      "starter leads both betting rounds."),
                time_limit=s.starter_choice_seconds,
                reminders=reminders_for(s.starter_choice_seconds),
                timeout_text="if time runs out, you start round 1.", choices=("me", "opponent"))]
        if state.phase == Phase.BETTING and state.betting is not None and not state.betting.closed:
            phase = state.betting
            seat = phase.to_act
            opts = betting.options(phase, state.chips, flow.limits(state))
            call = "'call', " if opts.can_call else ""
            return [Prompt(
                key=f"{k}-bet", seat=seat, kind="bet", private=False,
                text=(f"Betting round {state.betting_no} of round {state.round}: "
                      f"{betting.describe(opts)}. In the pot: {p(0)} {state.round_bets[0]}, "
                      f"{p(1)} {state.round_bets[1]} (pot {state.pot}; at most "
                      f"{s.max_in_pot} each). You have {state.chips[seat]} chips. Type {call}"
                      f"'raise N' (N on top of the call, at most {s.max_raise}) or 'fold'."),
                brief=(f"bet {state.betting_no}, round {state.round}: "
                       f"{betting.describe(opts)}. Pot {state.pot} ({p(0)} "
                       f"{state.round_bets[0]}, {p(1)} {state.round_bets[1]}); you have "
                       f"{state.chips[seat]}."),
                time_limit=s.bet_seconds, reminders=reminders_for(s.bet_seconds),
                timeout_text="if time runs out, you fold.", choices=bet_choices(opts))]
        if state.phase == Phase.RENOUNCE:
            legal = rules.legal_picks(flow.remaining(state))
            out = []
            for seat in (0, 1):
                if state.picks[seat] is not None:
                    continue
                out.append(Prompt(
                    key=f"{k}-renounce-{seat}", seat=seat, kind="renounce", private=True,
                    text=(f"Renounce step {len(state.steps) + 1}: pick one fate card to "
                          f"renounce, naming the card and its set (e.g. "
                          f"'{text.pick_choice(*legal[0])}'). Only sets with more than one "
                          f"card are open.\n{text.sets_picture(state.sets)}"),
                    time_limit=s.renounce_seconds, reminders=reminders_for(s.renounce_seconds),
                    timeout_text="if time runs out, a random legal fate card is renounced for you.",
                    choices=tuple(text.pick_choice(n, c) for n, c in legal)))
            return out
        return []

    # --- checking -----------------------------------------------------------------------
    def check(self, state: RenounceFateState, seat: int, command: Command) -> None:
        if state.phase == Phase.OVER:
            raise IllegalMove("The match is over.")
        pending = [pr for pr in self.prompts(state) if pr.seat == seat]
        if isinstance(command, Timeout):
            if not any(pr.key == command.prompt_key for pr in pending):
                raise IllegalMove(f"No pending decision of yours has the key {command.prompt_key!r}.")
            return
        kinds = {pr.kind for pr in pending}
        if isinstance(command, ChooseStarter):
            self._expect(kinds, "choose_starter", state, seat)
            if command.starter not in (0, 1):
                raise IllegalMove("The starter must be you or your opponent.")
        elif isinstance(command, Bet):
            self._expect(kinds, "bet", state, seat)
            assert state.betting is not None
            betting.check_action(state.betting, state.chips, flow.limits(state), seat,
                                 command.action, command.amount)
        elif isinstance(command, Renounce):
            if state.phase == Phase.RENOUNCE and state.picks[seat] is not None:
                mine = state.picks[seat]
                assert mine is not None
                raise IllegalMove(f"You already picked {text.pick_text(mine.set_no, mine.card)} "
                                  f"in this step; the first pick is final.")
            self._expect(kinds, "renounce", state, seat)
            check_pick(state, command.set_no, command.card)
        else:
            raise IllegalMove("That is not a Renounce Fate move.")

    def _expect(self, kinds: set[str], kind: str, state: RenounceFateState, seat: int) -> None:
        self.expect_decision(state, seat, kinds, kind)

    # --- applying -----------------------------------------------------------------------
    def apply(self, state: RenounceFateState, seat: int, command: Command) -> list[Event]:
        ev: list[Event] = []
        if isinstance(command, Timeout):
            self._timeout(state, seat, command, ev)
        elif isinstance(command, ChooseStarter):
            flow.choose_starter(state, command.starter, ev, timed_out=False)
        elif isinstance(command, Bet):
            flow.bet(state, seat, command, ev)
        elif isinstance(command, Renounce):
            flow.renounce(state, seat, command.set_no, command.card, ev, timed_out=False)
        for e in ev:
            if e.audience.kind == "public":
                state.log.append(e.text)
        del state.log[:-LOG_KEEP]
        return ev

    def _timeout(self, state: RenounceFateState, seat: int, command: Timeout,
                 ev: list[Event]) -> None:
        prompt = self.prompt(state, command.prompt_key)
        assert prompt is not None
        if prompt.kind == "choose_starter":
            flow.choose_starter(state, 0, ev, timed_out=True)
        elif prompt.kind == "bet":
            flow.bet(state, seat, Bet(action="fold"), ev, timed_out=True)
        elif prompt.kind == "renounce":
            set_no, card = state.chance.choice(rules.legal_picks(flow.remaining(state)))
            flow.renounce(state, seat, set_no, card, ev, timed_out=True)

    def outcome(self, state: RenounceFateState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(state.chips[0], state.chips[1]))

    # --- information --------------------------------------------------------------------
    def view(self, state: RenounceFateState, seat: int | None) -> BaseModel:
        return build_view(state, seat)

    def describe(self, state: RenounceFateState, seat: int | None) -> str:
        """Chips, ante and pot, the three sets, and for a player their own hand and pick."""
        v = build_view(state, seat)
        if state.phase == Phase.STARTER:
            return (f"{chips_line(v.chips)} {p(0)} is choosing who starts round 1.")
        lines = [f"Round {v.round} ({p(v.starter)} starts). {chips_line(v.chips)} Ante "
                 f"{v.ante_paid}{' (all-in: no betting this round)' if v.all_in_ante else ''}; "
                 f"next round's ante {v.next_ante}. Pot {v.pot} ({p(0)} {v.in_pot[0]}, {p(1)} "
                 f"{v.in_pot[1]})."]
        lines.append(text.sets_picture(state.sets))
        if v.community is not None:
            lines.append(f"Community cards: {render_all(v.community)} "
                         f"({text.HAND_RULES[len(v.community)]}).")
        if v.my_hand:
            lines.append(f"Your private cards: {render_all(v.my_hand)}.")
        if v.my_pick is not None:
            lines.append(f"Your renounce pick: {text.pick_text(int(v.my_pick[0]), str(v.my_pick[1]))}.")
        if state.phase == Phase.RENOUNCE:
            lines.append("Picked: " + ", ".join(
                f"{p(x)} {'yes' if v.picked[x] else 'not yet'}" for x in (0, 1)) + ".")
        if v.last_result:
            lines.append(f"Last round: {v.last_result}")
        if v.winner is not None:
            lines.append(f"{p(v.winner)} won the match: {v.reason}.")
        return "\n".join(lines)

    def status(self, state: RenounceFateState) -> str | None:
        if state.phase in (Phase.STARTER, Phase.OVER):
            return None
        return (f"Round {state.round} · ante {state.ante} · pot {state.pot} · chips {p(0)} "
                f"{state.chips[0]}, {p(1)} {state.chips[1]}")

    def secrets(self, state: RenounceFateState) -> list[Secret]:
        out = []
        if state.phase in (Phase.BETTING, Phase.RENOUNCE):
            for seat in (0, 1):
                if state.hands[seat]:
                    out.append(Secret(value=text.hand_token(seat, state.round, state.hands[seat]),
                                      known_to=frozenset({seat}), label=f"seat {seat} hand"))
        if state.phase == Phase.RENOUNCE:
            for seat, pick in enumerate(state.picks):
                if pick is not None:
                    out.append(Secret(value=text.pick_token(seat, state.round,
                                                            len(state.steps) + 1, pick.set_no,
                                                            pick.card),
                                      known_to=frozenset({seat}), label=f"seat {seat} pick"))
        # Hands a fold left unshown stay secret for ever; the check looks for the last few
        # (nothing keeps older hands: no view or text mentions a past round's hand).
        for seat, token in state.hidden_hands[-HIDDEN_CHECKED:]:
            out.append(Secret(value=token, known_to=frozenset({seat}),
                              label=f"seat {seat} folded hand"))
        return out

    def twin(self, state: RenounceFateState, seat: int,
             rng: random.Random) -> RenounceFateState | None:
        """Vary `seat`'s hand (swapped with the round's unused cards, which are never shown)
        and its pending renounce pick; the chance generator is left as it is."""
        if state.phase not in (Phase.BETTING, Phase.RENOUNCE) or not state.hands[seat]:
            return None
        twin = state.model_copy(deep=True)
        pool = [*twin.hands[seat], *twin.unused]
        options = sorted({tuple(sorted((a, b))) for a, b in combinations(pool, 2) if a != b}
                         - {tuple(sorted(twin.hands[seat]))})
        if options:
            hand = list(rng.choice(options))
            rest = Counter(pool) - Counter(hand)
            twin.hands[seat] = sort_cards(hand)
            twin.unused = list(rest.elements())
            rng.shuffle(twin.unused)
        pick = twin.picks[seat] if twin.phase == Phase.RENOUNCE else None
        if pick is not None:
            others = [x for x in rules.legal_picks(flow.remaining(twin))
                      if x != (pick.set_no, pick.card)]
            if others:
                n, c = rng.choice(others)
                twin.picks[seat] = Pick(set_no=n, card=c, timed_out=pick.timed_out)
        return twin

    # --- text ---------------------------------------------------------------------------
    def parse(self, state: RenounceFateState, seat: int, text_in: str) -> Command:
        from games.renounce_fate.grammar import parse

        return parse(self, state, seat, text_in)

    def usage(self, state: RenounceFateState, seat: int) -> str:
        from games.renounce_fate.grammar import usage

        return usage(self, state, seat)

    def decision_words(self) -> DecisionWords:
        from games.renounce_fate.grammar import DECISIONS

        return DECISIONS

    def move_words(self, state: RenounceFateState) -> MoveWords:
        from games.renounce_fate.grammar import MOVE_WORDS

        return MOVE_WORDS

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: RenounceFateState, prompt: Prompt,
                       rng: random.Random) -> Command:
        from games.renounce_fate.random_play import random_from_view

        return random_from_view(build_view(state, prompt.seat), prompt, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        return dict(self._bots)

    # --- checks -------------------------------------------------------------------------
    def invariants(self, state: RenounceFateState) -> None:
        s = state.settings
        total = sum(state.chips) + state.pot + state.removed_ties
        assert total == 2 * s.starting_chips, f"chips not conserved: {total}"
        assert min(state.chips) >= 0, f"negative chips {state.chips}"
        if state.phase in (Phase.BETTING, Phase.RENOUNCE):
            cap = max(s.max_in_pot, state.ante)
            assert max(state.round_bets) <= cap, f"over the pot cap: {state.round_bets}"
            if state.phase == Phase.RENOUNCE:
                assert state.round_bets[0] == state.round_bets[1], "unequal pot at renounce"
        if state.round == 0:
            return
        dealt = [*state.hands[0], *state.hands[1], *state.unused,
                 *(c for fs in state.sets for c in fs.dealt)]
        assert Counter(dealt) == Counter(DECK), "the round's cards are not the 20-card deck"
        for seat in (0, 1):
            assert len(set(state.hands[seat])) == 2, f"identical cards in hand {seat}"
        for fs in state.sets:
            assert len(set(fs.dealt)) == len(fs.dealt) == 3, "identical cards in a set"
            assert Counter(fs.remaining) + Counter(fs.discarded) == Counter(fs.dealt), \
                "a fate card went missing"
        if state.community is not None:
            assert state.community == rules.community_of(flow.remaining(state))
            assert 1 <= len(state.community) <= 3


def check_pick(state: RenounceFateState, set_no: int, card: str) -> None:
    """Raise IllegalMove unless `card` of set `set_no` may be renounced now."""
    remaining = flow.remaining(state)
    open_sets = [i + 1 for i, s in enumerate(remaining) if len(s) > 1]
    where = f"open sets: {', '.join(str(n) for n in open_sets)}"
    if not 1 <= set_no <= len(remaining):
        raise IllegalMove(f"There is no set {set_no}: the sets are 1, 2 and 3 ({where}).")
    cards = remaining[set_no - 1]
    if len(cards) <= 1:
        raise IllegalMove(f"Set {set_no} is locked ({len(cards)} card{'s' if not cards else ''} "
                          f"left): renounce from a set with more than one card ({where}).")
    if card not in cards:
        raise IllegalMove(f"{render(card)} is not in set {set_no}, which holds "
                          f"{render_all(cards)}.")


def bet_choices(opts: betting.BetOptions) -> tuple[str, ...]:
    """Buttons: call, a few raises (1, 2, 3, 5 and the most allowed), fold."""
    out: list[str] = []
    if opts.can_call:
        out.append(f"call {opts.call_amount}")
    if opts.can_raise:
        assert opts.min_raise is not None and opts.max_raise is not None
        amounts = sorted({a for a in (opts.min_raise, 2, 3, 5, opts.max_raise)
                          if opts.min_raise <= a <= opts.max_raise})
        out.extend(f"raise {a}" for a in amounts)
    out.append("fold")
    return tuple(out)


def flow_event(kind: str, msg: str, **data: object) -> Event:
    ev: list[Event] = []
    flow.say(ev, kind, msg, **data)
    return ev[0]
