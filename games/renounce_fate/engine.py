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
from games.renounce_fate import feed, flow, grammar, rules, text
from games.renounce_fate import prompts as prompting
from games.renounce_fate.cards import DECK, render_all, sort_cards
from games.renounce_fate.checks import CHECKS, KIND_COMMANDS, REFUSALS
from games.renounce_fate.commands import COMMAND_TYPES
from games.renounce_fate.controls import CONTROLS
from games.renounce_fate.random_play import random_from_view
from games.renounce_fate.settings import RenounceFateSettings
from games.renounce_fate.state import LOG_KEEP, Phase, Pick, RenounceFateState
from games.renounce_fate.text import chips_line, p
from games.renounce_fate.views import build_view

HIDDEN_CHECKED = 6  # unshown hands of the last three folded rounds


class RenounceFate(Game[RenounceFateState]):
    slug = "renounce-fate"
    reveals = Reveals(at_end=feed.AT_END, text=feed.reveal)  # (games.core.feed)
    controls = CONTROLS  # (games.core.controls)
    quick = Quick(short={"starting_chips": 6}, no_waits={"break_seconds": 0}, clocks=lambda s: {
        "bet_seconds": s, "renounce_seconds": s, "starter_choice_seconds": s})
    title = "Renounce Fate"
    settings_model = RenounceFateSettings
    state_model = RenounceFateState
    command_types = COMMAND_TYPES
    answers = KIND_COMMANDS
    checks = CHECKS
    refusals = REFUSALS
    applies = flow.APPLY
    timeouts = flow.TIMEOUTS
    log_keep = LOG_KEEP

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
        ev: list[Event] = []
        say(ev, "match.start", msg, chips=list(state.chips))
        return ev

    def prompts(self, state: RenounceFateState) -> list[Prompt]:
        return prompting.prompts(state)

    # --- dispatch -----------------------------------------------------------------------
    def is_over(self, state: RenounceFateState) -> bool:
        return state.phase == Phase.OVER

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
        return grammar.parse(self.pending_kinds(state, seat), state, seat, text_in)

    def usage(self, state: RenounceFateState, seat: int) -> str:
        return grammar.usage(self.pending_kinds(state, seat), state)

    def move_help(self) -> tuple[str, ...]:
        return tuple(grammar._USAGE.values())

    def decision_words(self) -> DecisionWords:
        return grammar.DECISIONS

    def move_words(self, state: RenounceFateState) -> MoveWords:
        return grammar.MOVE_WORDS

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: RenounceFateState, prompt: Prompt,
                       rng: random.Random) -> Command:
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
