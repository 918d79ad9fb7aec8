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
    Audience,
    BotFactory,
    Chance,
    Command,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    Outcome,
    Prompt,
    Secret,
    Timeout,
    seat_name,
)
from games.core.parsing import DecisionWords, MoveWords
from games.rps_poker import grammar, rules, text
from games.rps_poker.cards import CARDS, render
from games.rps_poker.commands import Keep, Play
from games.rps_poker.settings import RpsSettings
from games.rps_poker.state import DraftRound, GameRecord, RpsState
from games.rps_poker.views import RpsView, build_view, describe_view

PUBLIC, UMPIRE = Audience.public(), Audience.umpire()


def _prompt_key(state: RpsState, seat: int) -> str:
    if state.phase == "draft":
        return f"draft{state.draft_round + 1}-seat{seat}"
    return f"game{len(state.history) + 1}-seat{seat}"


class RpsPoker(Game[RpsState]):
    slug = "rps-poker"
    title = "Turn-based RPS Poker"
    settings_model = RpsSettings
    state_model = RpsState
    command_types = (Keep, Play, Timeout)

    # --- life cycle -------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> RpsState:
        assert isinstance(settings, RpsSettings)
        chance = Chance.from_seed(seed)
        full = rules.new_full_deck(chance.shuffle)
        state = RpsState(settings=settings, chance=chance, undealt=[CARDS[i] for i in full])
        self._deal_draft(state)  # events are rebuilt by opening_events
        return state

    def opening_events(self, state: RpsState) -> list[Event]:
        if state.drafts or state.phase != "draft":
            return []
        return self._draft_dealt_events(state)

    # --- decisions --------------------------------------------------------------------
    def prompts(self, state: RpsState) -> list[Prompt]:
        if state.phase == "over":
            return []
        s = state.settings
        out = []
        for seat in (0, 1):
            if state.pending[seat] is not None:
                continue
            opts = grammar.options(state, seat)
            if state.phase == "draft":
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
                key=_prompt_key(state, seat), seat=seat, kind=kind, private=True,
                text=prompt_text, brief=brief, time_limit=s.decision_seconds,
                reminders=s.reminders,
                on_timeout=OnTimeout.DEFAULT, timeout_text=timeout_text,
                choices=tuple(f"{verb} {render(c)}" for c in opts),
            ))
        return out

    def check(self, state: RpsState, seat: int, command: Command) -> None:
        if seat not in (0, 1):
            raise IllegalMove("Only the two players can choose.")
        if state.phase == "over":
            raise IllegalMove("The match is over.")
        if isinstance(command, Timeout):
            if state.pending[seat] is not None or command.prompt_key != _prompt_key(state, seat):
                raise IllegalMove("That decision's timer is no longer running.")
            return
        if not isinstance(command, Keep | Play):
            raise IllegalMove("That is not a move of this game.")
        if state.phase == "draft" and isinstance(command, Play):
            raise IllegalMove("It is the draft: keep one of your two cards "
                              f"({text.cards_phrase(state.offers[seat])}).")
        if state.phase == "main" and isinstance(command, Keep):
            raise IllegalMove("The draft is over: play a card from your hand.")
        if state.pending[seat] is not None:
            raise IllegalMove(f"You already chose {render(state.pending[seat])} this round; "
                              "the first choice is final.")
        opts = grammar.options(state, seat)
        if command.card not in opts:
            name = render(command.card) if command.card in CARDS else command.card
            if state.phase == "draft":
                raise IllegalMove(f"{name} is not one of your two cards: keep "
                                  f"{render(opts[0])} or {render(opts[1])}.")
            raise IllegalMove(f"{name} is not in your hand: play one of "
                              f"{', '.join(render(c) for c in opts)}.")

    def apply(self, state: RpsState, seat: int, command: Command) -> list[Event]:
        events: list[Event] = []
        if isinstance(command, Timeout):
            opts = grammar.options(state, seat)
            card = opts[state.chance.below(len(opts))]
            state.timed_out[seat] = True
            verb = "keeps" if state.phase == "draft" else "plays"
            events.append(Event(
                kind="timeout", audience=PUBLIC,
                text=f"Time ran out for {seat_name(seat)}: the bot chose at random for them.",
                data={"seat": seat, "prompt": command.prompt_key}))
            events.append(Event(
                kind="timeout.choice", audience=Audience.to(seat),
                text=f"Time ran out: the bot chose {render(card)} for you at random.",
                data={"card": card}))
            events.append(Event(
                kind="timeout.choice", audience=UMPIRE,
                text=f"Timeout: {seat_name(seat)} {verb} {card} (chosen at random).",
                data={"seat": seat, "card": card}))
        else:
            assert isinstance(command, Keep | Play)
            card = command.card
        state.pending[seat] = card
        if state.phase == "draft":
            events += self._draft_submitted(state, seat, card)
        else:
            events += self._play_submitted(state, seat, card)
        if state.pending[0] is not None and state.pending[1] is not None:
            if state.phase == "draft":
                events += self._resolve_draft(state)
            else:
                events += self._resolve_game(state)
        return events

    # --- draft ------------------------------------------------------------------------
    def _deal_draft(self, state: RpsState) -> None:
        offer0, offer1 = rules.draft_offers(state.undealt, 0)
        del state.undealt[:2 * rules.DRAFT_DEAL]
        state.offers = [list(offer0), list(offer1)]

    def _draft_dealt_events(self, state: RpsState) -> list[Event]:
        r = state.draft_round + 1
        events = [Event(kind="draft.dealt", audience=PUBLIC, text=text.draft_dealt_public(r),
                        data={"round": r})]
        for seat in (0, 1):
            events.append(Event(
                kind="draft.dealt", audience=Audience.to(seat),
                text=text.draft_dealt_private(r, seat, state.offers[seat]),
                data={"round": r, "cards": list(state.offers[seat])}))
        events.append(Event(
            kind="draft.dealt", audience=UMPIRE,
            text=f"Draft round {r}: {seat_name(0)} is given {' '.join(state.offers[0])}, "
                 f"{seat_name(1)} is given {' '.join(state.offers[1])}.",
            data={"round": r, "offers": [list(o) for o in state.offers]}))
        return events

    def _draft_submitted(self, state: RpsState, seat: int, card: str) -> list[Event]:
        offer = state.offers[seat]
        passed = offer[1 - offer.index(card)]
        return [
            Event(kind="draft.chosen", audience=PUBLIC, text=f"{seat_name(seat)} has chosen.",
                  data={"seat": seat}),
            Event(kind="draft.chosen", audience=Audience.to(seat),
                  text=f"You keep {render(card)}; {render(passed)} will go to "
                       f"{seat_name(1 - seat)}.",
                  data={"kept": card, "passed": passed}),
            Event(kind="draft.chosen", audience=UMPIRE,
                  text=f"{seat_name(seat)} keeps {card} and passes {passed}.",
                  data={"seat": seat, "kept": card, "passed": passed}),
        ]

    def _resolve_draft(self, state: RpsState) -> list[Event]:
        r = state.draft_round + 1
        kept, passed = [], []
        for seat in (0, 1):
            offer = state.offers[seat]
            k, p = rules.draft_pass(offer, offer.index(state.pending[seat]))
            kept.append(k)
            passed.append(p)
        state.drafts.append(DraftRound(offers=[list(o) for o in state.offers], kept=kept,
                                       timed_out=list(state.timed_out)))
        events = [Event(kind="draft.passed", audience=PUBLIC,
                        text=f"Draft round {r} of {rules.DRAFT_ROUNDS}: both players keep a "
                             "card and pass the other.", data={"round": r})]
        for seat in (0, 1):
            state.kept[seat].append(kept[seat])
            state.received[1 - seat].append(passed[seat])
        for seat in (0, 1):
            events.append(Event(
                kind="draft.passed", audience=Audience.to(seat),
                text=f"Round {r}: you keep {render(kept[seat])} and pass {render(passed[seat])}; "
                     f"{seat_name(1 - seat)} passes you {render(passed[1 - seat])}.",
                data={"round": r, "kept": kept[seat], "passed": passed[seat],
                      "received": passed[1 - seat]}))
        state.offers = [[], []]
        state.pending = [None, None]
        state.timed_out = [False, False]
        state.draft_round += 1
        if state.draft_round < rules.DRAFT_ROUNDS:
            self._deal_draft(state)
            return events + self._draft_dealt_events(state)
        return events + self._start_main(state)

    # --- main phase -------------------------------------------------------------------
    def _start_main(self, state: RpsState) -> list[Event]:
        state.phase = "main"
        decks = [state.kept[s] + state.received[s] for s in (0, 1)]
        remaining = list(state.undealt)  # after five rounds: the ten undrafted cards
        state.undealt = []
        hand0, hand1 = rules.start_main(decks[0], decks[1], remaining, state.chance.shuffle)
        state.draw_pile, state.hand, state.remaining = decks, [hand0, hand1], remaining
        events = [Event(
            kind="main.start", audience=PUBLIC,
            text="The draft is over. Each player's deck and the remaining deck are shuffled, "
                 "and each player draws three cards.",
            data={"remaining": len(remaining)})]
        for seat in (0, 1):
            events.append(Event(
                kind="main.hand", audience=Audience.to(seat),
                text=f"Your deck: {text.render_all(sorted(state.kept[seat] + state.received[seat]))}. "
                     f"You draw {text.render_all(state.hand[seat])}.",
                data={"hand": list(state.hand[seat])}))
        events.append(Event(
            kind="main.hand", audience=UMPIRE,
            text=f"Hands: {seat_name(0)} {' '.join(hand0)}, {seat_name(1)} {' '.join(hand1)}. "
                 f"Base cards in order: {' '.join(remaining)}.",
            data={"hands": [hand0, hand1], "remaining": list(remaining)}))
        return events + self._next_game(state)

    def _next_game(self, state: RpsState) -> list[Event]:
        state.base = state.remaining.pop(0)
        n = len(state.history) + 1
        events = [Event(kind="game.base", audience=PUBLIC,
                        text=f"Game {n} of {rules.GAMES}: the base card is {render(state.base)}.",
                        data={"game": n, "base": state.base})]
        if state.settings.auto_play_last_card and all(len(h) == 1 for h in state.hand):
            state.pending = [state.hand[0][0], state.hand[1][0]]
            events += self._resolve_game(state, auto=True)
        return events

    def _play_submitted(self, state: RpsState, seat: int, card: str) -> list[Event]:
        return [
            Event(kind="game.chosen", audience=PUBLIC, text=f"{seat_name(seat)} has chosen.",
                  data={"seat": seat}),
            Event(kind="game.chosen", audience=Audience.to(seat),
                  text=f"You play {render(card)}; it is revealed when both have chosen.",
                  data={"card": card}),
            Event(kind="game.chosen", audience=UMPIRE, text=f"{seat_name(seat)} plays {card}.",
                  data={"seat": seat, "card": card}),
        ]

    def _resolve_game(self, state: RpsState, auto: bool = False) -> list[Event]:
        plays = [state.pending[0], state.pending[1]]
        assert plays[0] is not None and plays[1] is not None and state.base is not None
        base = state.base
        winner = rules.judge(plays[0], plays[1], base)
        reason = rules.win_reason(plays[0], plays[1], base)
        state.score[winner] += 1
        n = len(state.history) + 1
        state.history.append(GameRecord(
            number=n, base=base, plays=plays, hands=[list(h) for h in state.hand],
            winner=winner, reason=reason, timed_out=list(state.timed_out), auto=auto))
        for seat in (0, 1):
            state.hand[seat].remove(plays[seat])
        state.pending, state.timed_out, state.base = [None, None], [False, False], None
        events = []
        if auto:
            events.append(Event(kind="game.auto", audience=PUBLIC,
                                text="Each player has one card left; both are played.",
                                data={"game": n}))
        events.append(Event(
            kind="game.result", audience=PUBLIC,
            text=text.game_result(n, base, plays, winner, reason, state.score),
            data={"game": n, "base": base, "plays": plays, "winner": winner, "reason": reason,
                  "score": list(state.score)}))
        for seat in (0, 1):
            before = len(state.hand[seat])
            rules.draw(state.draw_pile[seat], state.hand[seat])
            if len(state.hand[seat]) > before:
                card = state.hand[seat][-1]
                events.append(Event(
                    kind="game.draw", audience=Audience.to(seat),
                    text=f"You draw {render(card)}. Your hand: "
                         f"{text.render_all(state.hand[seat])}.",
                    data={"card": card, "hand": list(state.hand[seat])}))
        if n < rules.GAMES:
            return events + self._next_game(state)
        state.phase = "over"
        winner_of_match = rules.match_winner(*state.score)
        events.append(Event(kind="match.over", audience=PUBLIC,
                            text=text.match_result(state.score, winner_of_match),
                            data={"score": list(state.score), "winner": winner_of_match}))
        return events

    # --- result and information ---------------------------------------------------------
    def outcome(self, state: RpsState) -> Outcome | None:
        if state.phase != "over":
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
        nobody = frozenset()
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
            if state.phase == "draft":
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
        from games.rps_poker.twin import make_twin

        return make_twin(state, seat, rng)

    # --- text -------------------------------------------------------------------------
    def parse(self, state: RpsState, seat: int, text_in: str) -> Command:
        return grammar.parse(state, seat, text_in)

    def usage(self, state: RpsState, seat: int) -> str:
        return grammar.usage(state, seat)

    def decision_words(self) -> DecisionWords:
        from games.rps_poker.grammar import DECISIONS

        return DECISIONS

    def move_words(self, state: RpsState) -> MoveWords:
        return grammar.MOVE_WORDS

    # --- players ----------------------------------------------------------------------
    def random_command(self, state: RpsState, prompt: Prompt, rng: random.Random) -> Command:
        card = rng.choice(grammar.options(state, prompt.seat))
        return Keep(card=card) if state.phase == "draft" else Play(card=card)

    def bots(self) -> Mapping[str, BotFactory]:
        from games.rps_poker.bots import BOTS

        return BOTS

    def invariants(self, state: RpsState) -> None:
        places: list[str] = list(state.undealt) + list(state.remaining)
        places += [c for o in state.offers for c in o]
        if state.phase == "draft":
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
        if state.phase == "draft":
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
            assert p is None or p in grammar.options(state, seat)
