"""The Game subclass: Turn-based RPS Poker as a match between two people (or bots).

Both draft picks and both plays of a game are private, simultaneous submissions in the
players' table channels; the first valid submission is final; the bot reveals the plays
together. At a decision's time limit the bot chooses uniformly at random (from the match's
Chance) for the player and says so.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import BaseModel

from games.core import (
    BotFactory,
    Chance,
    Command,
    Event,
    Game,
    OnTimeout,
    Outcome,
    Prompt,
    Quick,
    Reveals,
    Secret,
    Timeout,
)
from games.core.parsing import DecisionWords, MoveWords
from games.rps_poker import checks as legality
from games.rps_poker import feed, flow, grammar, rules, text
from games.rps_poker.bots import BOTS
from games.rps_poker.cards import CARDS, render
from games.rps_poker.checks import CHECKS, KIND_COMMANDS, REFUSALS
from games.rps_poker.commands import Keep, Play
from games.rps_poker.controls import CONTROLS
from games.rps_poker.settings import RpsSettings
from games.rps_poker.state import Phase, RpsState
from games.rps_poker.twin import make_twin
from games.rps_poker.views import RpsView, build_view, describe_view


class RpsPoker(Game[RpsState]):
    slug = "rps-poker"
    reveals = Reveals(at_end=feed.AT_END, text=feed.reveal)  # (games.core.feed)
    controls = CONTROLS  # (games.core.controls)
    quick = Quick(clocks=lambda s: {"decision_seconds": s, "reminders": ()})
    title = "Turn-based RPS Poker"
    settings_model = RpsSettings
    state_model = RpsState
    command_types = (Keep, Play, Timeout)
    answers = KIND_COMMANDS
    checks = CHECKS
    refusals = REFUSALS
    applies = flow.APPLY
    timeouts = flow.TIMEOUTS

    # --- life cycle -------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> RpsState:
        assert isinstance(settings, RpsSettings)
        chance = Chance.from_seed(seed)
        full = rules.new_full_deck(chance.shuffle)
        state = RpsState(settings=settings, chance=chance, undealt=[CARDS[i] for i in full])
        flow.deal_draft(state)  # events are rebuilt by opening_events
        return state

    def opening_events(self, state: RpsState) -> list[Event]:
        ev: list[Event] = []
        if not state.drafts and state.phase == Phase.DRAFT:
            flow.draft_dealt(state, ev)
        return ev

    # --- decisions --------------------------------------------------------------------
    def prompts(self, state: RpsState) -> list[Prompt]:
        if state.phase == Phase.OVER:
            return []
        s = state.settings
        out = []
        for seat in (0, 1):
            if state.pending[seat] is not None:
                continue
            opts = flow.options(state, seat)
            if state.phase == Phase.DRAFT:
                verb, kind = "keep", "draft_pick"
                prompt_text = text.draft_prompt(state.draft_round + 1, seat, opts)
                brief = text.draft_brief(state.draft_round + 1, opts)
                timeout_text = ("If time runs out, the bot keeps one of your two cards at "
                                "random for you.")
            else:
                verb, kind = "play", "play"
                assert state.base is not None
                prompt_text = text.play_prompt(len(state.history) + 1, state.base, opts,
                                               state.score)
                brief = text.play_brief(len(state.history) + 1, state.base, opts, state.score)
                timeout_text = "If time runs out, the bot plays a random card of your hand."
            out.append(Prompt(
                key=flow.prompt_key(state, seat), seat=seat, kind=kind, private=True,
                text=prompt_text, brief=brief, time_limit=s.decision_seconds,
                reminders=s.reminders,
                on_timeout=OnTimeout.DEFAULT, timeout_text=timeout_text,
                choices=tuple(f"{verb} {render(c)}" for c in opts),
            ))
        return out

    # --- dispatch -------------------------------------------------------------------
    def is_over(self, state: RpsState) -> bool:
        return state.phase == Phase.OVER

    def pending_kinds(self, state: RpsState, seat: int) -> set[str]:
        return legality.pending_kinds(state, seat)

    def refusal(self, state: RpsState, seat: int, command: Command, kinds: set[str]) -> str:
        return legality.refusal(state, seat)

    # --- result and information ---------------------------------------------------------
    def outcome(self, state: RpsState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        a, b = state.score
        winner = rules.match_winner(a, b)
        reason = f"{a}-{b}: a drawn match" if winner is None else \
            f"{max(a, b)}-{min(a, b)} on game points"
        return Outcome(winner=winner, reason=reason, score=(a, b))

    def view(self, state: RpsState, seat: int | None) -> RpsView:
        return build_view(state, seat)

    def describe(self, state: RpsState, seat: int | None) -> str:
        return describe_view(build_view(state, seat))

    def secrets(self, state: RpsState) -> list[Secret]:
        hidden: list[tuple[str, frozenset[int], str]] = []
        nobody: frozenset[int] = frozenset()
        for card in state.undealt:
            hidden.append((card, nobody, "undealt card"))
        for card in state.remaining:
            hidden.append((card, nobody, "undrawn base card"))
        for seat in (0, 1):
            own = frozenset({seat})
            for card in state.offers[seat]:
                hidden.append((card, own, f"seat {seat}'s draft card"))
            kept = set(state.kept[seat])
            for card in state.draw_pile[seat] + state.hand[seat]:
                if card in kept:
                    hidden.append((card, own, f"seat {seat}'s unplayed card"))
            if state.phase == Phase.DRAFT:
                for card in state.kept[seat]:
                    hidden.append((card, own, f"seat {seat}'s kept card"))
        for seat in (0, 1):
            if state.pending[seat] is not None:
                # A token that appears nowhere: the two-world check sees the pick revealed
                # when the round resolves.
                hidden.append((f"seat{seat}:pending:{state.pending[seat]}", frozenset({seat}),
                               f"seat {seat}'s pending pick"))
        out = []
        for card, known, label in hidden:
            # "P0"/"P1" also occur in the name placeholders {P0}/{P1}: for those two cards
            # the check looks for the code as a JSON string (events' data and the views).
            value = f'"{card}"' if card in ("P0", "P1") else card
            out.append(Secret(value=value, known_to=known, label=label))
            if card in CARDS:
                out.append(Secret(value=render(card), known_to=known, label=label))
        return out

    def twin(self, state: RpsState, seat: int, rng: random.Random) -> RpsState | None:
        """Another world for `seat`'s secrets: its kept and current draft cards, its pending
        pick, which of its cards are in hand (games.rps_poker.twin)."""
        return make_twin(state, seat, rng)

    # --- text -------------------------------------------------------------------------
    def parse(self, state: RpsState, seat: int, text_in: str) -> Command:
        return grammar.parse(state, seat, text_in)

    def usage(self, state: RpsState, seat: int) -> str:
        return grammar.usage(state, seat)

    def move_help(self) -> tuple[str, ...]:
        return grammar.MOVE_HELP

    def decision_words(self) -> DecisionWords:
        return grammar.DECISIONS

    def move_words(self, state: RpsState) -> MoveWords:
        return grammar.MOVE_WORDS

    # --- players ----------------------------------------------------------------------
    def random_command(self, state: RpsState, prompt: Prompt, rng: random.Random) -> Command:
        card = rng.choice(flow.options(state, prompt.seat))
        return Keep(card=card) if state.phase == Phase.DRAFT else Play(card=card)

    def bots(self) -> Mapping[str, BotFactory]:
        return BOTS

    def invariants(self, state: RpsState) -> None:
        places: list[str] = list(state.undealt) + list(state.remaining)
        places += [c for o in state.offers for c in o]
        if state.phase == Phase.DRAFT:
            places += [c for seat in (0, 1) for c in state.kept[seat] + state.received[seat]]
        else:
            places += [c for seat in (0, 1) for c in state.draw_pile[seat] + state.hand[seat]]
            places += [c for g in state.history for c in (g.base, *g.plays)]
            if state.base is not None:
                places.append(state.base)
        assert sorted(places) == sorted(CARDS), "every card must be in exactly one place"
        assert state.score[0] + state.score[1] == len(state.history), "one point per game"
        done = len(state.drafts)
        assert all(len(state.kept[s]) == done and len(state.received[s]) == done for s in (0, 1))
        if state.phase == Phase.DRAFT:
            assert done == state.draft_round < rules.DRAFT_ROUNDS
            assert len(state.undealt) == rules.DECK_SIZE - 4 * (done + 1)
        else:
            assert done == rules.DRAFT_ROUNDS and len(state.undealt) == 0
            played = len(state.history)
            for seat in (0, 1):
                in_deck = rules.PLAYER_DECK - played
                assert len(state.hand[seat]) == min(rules.HAND_SIZE, in_deck)
                assert len(state.draw_pile[seat]) == in_deck - len(state.hand[seat])
        for seat in (0, 1):
            p = state.pending[seat]
            assert p is None or p in flow.options(state, seat)


# The game's one instance (games.rps_poker.GAME): made here, under the import lock, so that
# threads that first ask for it at the same time get the same object.
GAME = RpsPoker()
