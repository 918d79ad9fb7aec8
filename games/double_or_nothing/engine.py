"""The Double or Nothing engine: the `Game` subclass the runtime drives.

A match is bouts until a player has `target` bout wins. In a bout the players alternate
public actions in the game room (play a set, draw a card from the table set, draw a joker,
propose a double); where a drawn card or joker goes, and which of several identical sets is
played, are private follow-ups in the player's table channel. No clock has an automatic
outcome (the seed: going over time has no penalty): at the limit the runtime reminds the
player and tells the hosts.
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
    IllegalMove,
    OnTimeout,
    Outcome,
    Prompt,
    Secret,
    Timeout,
)
from games.core.parsing import DecisionWords, MoveWords
from games.double_or_nothing import flow, rules
from games.double_or_nothing.commands import (
    COMMAND_TYPES,
    Answer,
    AwardBout,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Pass,
    Place,
    Play,
    PlayAt,
)
from games.double_or_nothing.rules import JOKER, hand_line, render_set
from games.double_or_nothing.settings import DoubleOrNothingSettings, reminders_for
from games.double_or_nothing.state import LOG_KEEP, DoubleOrNothingState, Phase
from games.double_or_nothing.text import hand_token, p, plural, score_text, table_text

MAX_CHOICES = 25
_KINDS = {Phase.STARTER: "choose_starter", Phase.TURN: "move", Phase.PLACE: "place",
          Phase.POSITION: "position", Phase.DOUBLE: "double_answer"}


class DoubleOrNothing(Game[DoubleOrNothingState]):
    slug = "double-or-nothing"
    title = "Double or Nothing"
    settings_model = DoubleOrNothingSettings
    state_model = DoubleOrNothingState
    command_types = COMMAND_TYPES

    # --- life cycle ---------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> DoubleOrNothingState:
        if not isinstance(settings, DoubleOrNothingSettings):
            settings = DoubleOrNothingSettings.model_validate(settings.model_dump())
        state = DoubleOrNothingState(settings=settings, chance=Chance.from_seed(seed))
        state.phase = Phase.STARTER
        state.serial = 1
        flow.deal(state, [])  # the events are rebuilt by opening_events
        return state

    def opening_events(self, state: DoubleOrNothingState) -> list[Event]:
        s = state.settings
        ev: list[Event] = []
        flow.say(ev, "match.start", f"Double or Nothing begins: the first player to {s.target} "
                 f"bout wins wins the match. Empty your hand by playing sets of adjacent cards "
                 f"that beat the table; the doubling die goes up to {s.max_stake}.")
        ev.extend(flow.bout_events(state))
        return ev

    # --- prompts ------------------------------------------------------------------------
    def prompts(self, state: DoubleOrNothingState) -> list[Prompt]:
        main = self._main_prompts(state)
        if state.which is not None and state.phase != Phase.OVER:
            main.append(self._which_prompt(state, state.which))  # quiet prompts come last
        return main

    def _which_prompt(self, state: DoubleOrNothingState, seat: int) -> Prompt:
        """Which of the identical sets was played: asked only of a hand that held it in
        places that leave different hands, so the question is quiet (its existence is the
        seat's secret) and untimed (due before the seat's next move, then the leftmost)."""
        n = len(state.option_cards)
        ranges = tuple(f"play {a + 1}..{a + n}" if n > 1 else f"play {a + 1}"
                       for a in state.options)
        return Prompt(
            key=state.which_key, seat=seat, kind="position", private=True, quiet=True,
            text=(f"You held {render_set(state.option_cards)} more than once: which did you "
                  f"play? {' or '.join(repr(r) for r in ranges)} (positions in your hand "
                  f"before the play: {hand_line(state.which_hand)}). If you have not answered "
                  f"by your next move, the leftmost counts."),
            on_timeout=OnTimeout.NOTHING, choices=ranges[:MAX_CHOICES])

    def _main_prompts(self, state: DoubleOrNothingState) -> list[Prompt]:
        s = state.settings
        k = f"don{state.serial}"
        seat = state.turn
        move = s.first_move_seconds if state.first_move else s.move_seconds
        nothing = "going over the time limit has no penalty; the hosts are told."
        if state.phase == Phase.STARTER:
            return [Prompt(
                key=f"{k}-starter", seat=0, kind="choose_starter", private=False,
                text=("Choose who starts bout 1: type 'me' (you start) or 'opponent'. Your hand "
                      "is in your table channel."),
                time_limit=s.starter_seconds, reminders=reminders_for(s.starter_seconds),
                on_timeout=OnTimeout.NOTHING, timeout_text=nothing, choices=("me", "opponent"))]
        if state.phase == Phase.TURN:
            return [Prompt(
                key=f"{k}-move", seat=seat, kind="move", private=False,
                text=self._move_text(state, seat), brief=self._move_brief(state, seat),
                time_limit=move,
                reminders=reminders_for(move), on_timeout=OnTimeout.NOTHING,
                timeout_text=nothing, choices=self._move_choices(state, seat))]
        if state.phase == Phase.PLACE:
            hand = state.hands[seat]
            card = state.placing or ""
            positions = len(hand) + 1
            return [Prompt(
                key=f"{k}-place", seat=seat, kind="place", private=True,
                text=(f"Where does {'the joker' if card == JOKER else 'the ' + card} go? Type "
                      f"'at N' for position N (1 = front, {positions} = end). Your hand: "
                      f"{hand_line(hand)}"),
                time_limit=s.move_seconds, reminders=reminders_for(s.move_seconds),
                on_timeout=OnTimeout.NOTHING, timeout_text=nothing,
                choices=tuple(f"at {i}" for i in range(1, positions + 1))
                if positions <= MAX_CHOICES else ())]
        if state.phase == Phase.DOUBLE:
            other = 1 - seat
            return [Prompt(
                key=f"{k}-answer", seat=other, kind="double_answer", private=False,
                text=(f"{p(seat)} proposes a double. 'accept': the bout is worth "
                      f"{state.stake * 2} and it is your move; 'forfeit': {p(seat)} wins the "
                      f"bout now, worth {state.stake}."),
                time_limit=s.move_seconds, reminders=reminders_for(s.move_seconds),
                on_timeout=OnTimeout.NOTHING, timeout_text=nothing,
                choices=("accept", "forfeit"))]
        return []

    @classmethod
    def pending_kinds(cls, state: DoubleOrNothingState, seat: int) -> set[str]:
        """The kinds of decision `seat` has pending: the main one and the quiet question."""
        now = cls.pending(state)
        kinds = {now[1]} if now is not None and now[0] == seat else set()
        if state.which == seat and state.phase != Phase.OVER:
            kinds.add("position")
        return kinds

    @staticmethod
    def pending(state: DoubleOrNothingState) -> tuple[int, str] | None:
        """(seat, kind) of the one pending decision, without building its prompt."""
        kind = _KINDS.get(state.phase)
        if kind is None:
            return None
        if state.phase == Phase.STARTER:
            return 0, kind
        return (1 - state.turn if state.phase == Phase.DOUBLE else state.turn), kind

    def _may_double(self, state: DoubleOrNothingState, seat: int) -> bool:
        return flow.may_double(state, seat)

    def _move_choices(self, state: DoubleOrNothingState, seat: int) -> tuple[str, ...]:
        out = [f"draw {n}" for n in rules.drawable_numbers(state.table, state.table_values)]
        if state.jokers[seat] > 0:
            out.append("joker")
        may_double = self._may_double(state, seat)
        if may_double:
            out.append("double")
        return tuple(out)

    def _move_text(self, state: DoubleOrNothingState, seat: int) -> str:
        opts = ["play a set that beats it by naming its cards in hand order (e.g. 'play 5 6 7', "
                "jokers as J)"]
        numbers = rules.drawable_numbers(state.table, state.table_values)
        if numbers:
            opts.append("draw " + " or ".join(f"'draw {n}'" for n in numbers))
        if state.jokers[seat]:
            opts.append(f"'joker' to draw one of your jokers ({state.jokers[seat]} left)")
        may_double = self._may_double(state, seat)
        if may_double:
            opts.append(f"'double' (the bout would be worth {state.stake * 2})")
        return (f"Your move (bout {state.bout}, stake {state.stake}). Table: "
                f"{table_text(state.table, state.table_values)}. Hands: {p(0)} "
                f"{len(state.hands[0])}, {p(1)} {len(state.hands[1])} cards. You may "
                f"{'; '.join(opts)}.")

    def _move_brief(self, state: DoubleOrNothingState, seat: int) -> str:
        """The move prompt in a few words, once the player has had it in full."""
        opts = ["play …"]
        numbers = rules.drawable_numbers(state.table, state.table_values)
        if numbers:
            opts.append("draw " + "/".join(str(n) for n in numbers))
        if state.jokers[seat]:
            opts.append(f"joker ({state.jokers[seat]} left)")
        if self._may_double(state, seat):
            opts.append(f"double (→ {state.stake * 2})")
        return (f"bout {state.bout}, stake {state.stake}. Table: "
                f"{table_text(state.table, state.table_values)}. Hands: {p(0)} "
                f"{len(state.hands[0])}, {p(1)} {len(state.hands[1])}. {' | '.join(opts)}.")

    # --- checking -----------------------------------------------------------------------
    def check(self, state: DoubleOrNothingState, seat: int, command: Command) -> None:
        if state.phase == Phase.OVER:
            raise IllegalMove("The match is over.")
        if isinstance(command, Timeout):
            if not any(pr.key == command.prompt_key for pr in self.prompts(state)
                       if pr.seat == seat):
                raise IllegalMove(f"No pending decision of yours has the key {command.prompt_key!r}.")
            raise IllegalMove("Going over the time limit has no automatic outcome in Double or "
                              "Nothing: the hosts decide.")
        if isinstance(command, AwardBout):
            if "bout" not in self.host_award_units(state):
                raise IllegalMove("No bout is running: award the match instead.")
            return
        kinds = self.pending_kinds(state, seat)
        if isinstance(command, ChooseStarter):
            self._expect(kinds, "choose_starter", state, seat)
            if command.starter not in (0, 1):
                raise IllegalMove("The first player must be you or your opponent.")
        elif isinstance(command, Play):
            self._expect(kinds, "move", state, seat)
            self._check_play(state, seat, list(command.cards))
        elif isinstance(command, PlayAt):
            self._expect(kinds, "position", state, seat)
            if command.start not in state.options:
                n = len(state.option_cards)
                listed = " or ".join(f"{a + 1}..{a + n}" for a in state.options)
                raise IllegalMove(f"{render_set(state.option_cards)} is at positions {listed} of "
                                  f"your hand: choose one of those.")
        elif isinstance(command, Draw):
            self._expect(kinds, "move", state, seat)
            if not state.table:
                raise IllegalMove("The table is empty: there is nothing to draw. Play any set.")
            numbers = rules.drawable_numbers(state.table, state.table_values)
            if command.number not in numbers:
                allowed = " or ".join(str(n) for n in numbers)
                raise IllegalMove(
                    f"You cannot draw a {command.number} from "
                    f"{table_text(state.table, state.table_values)}: "
                    + (f"you may draw {allowed} (what is left must still be a set, and played "
                       f"jokers stay)." if numbers else "no card can be drawn from it (played "
                       "jokers stay, and what is left must still be a set)."))
        elif isinstance(command, DrawJoker):
            self._expect(kinds, "move", state, seat)
            if state.jokers[seat] <= 0:
                raise IllegalMove("You have no joker left in front of you this bout.")
        elif isinstance(command, Place):
            self._expect(kinds, "place", state, seat)
            size = len(state.hands[seat])
            if not 0 <= command.position <= size:
                raise IllegalMove(f"Choose a position from 1 (front) to {size + 1} (end).")
        elif isinstance(command, Double):
            self._expect(kinds, "move", state, seat)
            self._check_double(state, seat)
        elif isinstance(command, Answer):
            self._expect(kinds, "double_answer", state, seat)
        elif isinstance(command, Pass):
            self._expect(kinds, "move", state, seat)
            raise IllegalMove("There is no pass to choose: the bot passes for a player only when "
                              "they can neither play, draw a card, draw a joker nor double. "
                              + self.usage(state, seat))
        else:
            raise IllegalMove("That is not a Double or Nothing move.")

    def _check_play(self, state: DoubleOrNothingState, seat: int, cards: list[str]) -> None:
        hand = state.hands[seat]
        if not cards:
            raise IllegalMove("Name the cards you play, in hand order: e.g. 'play 5 6 7'.")
        if any(c != JOKER and not (c.isascii() and c.isdigit() and 1 <= int(c) <= 10)
               for c in cards):
            raise IllegalMove("Cards are 1 to 10 and J (joker).")
        shown = render_set(cards)
        if len(cards) > len(hand):
            raise IllegalMove(f"You have only {plural(len(hand), 'card')}.")
        found = rules.windows(hand, cards)
        if not found:
            raise IllegalMove(f"You do not hold {shown} side by side in your hand. Name adjacent "
                              f"cards in hand order (jokers as J); your hand is in your table "
                              f"channel.")
        value = rules.evaluate(cards)
        if value is None:
            raise IllegalMove(f"{shown} is not a set: a set is equal cards (5-5-5) or consecutive "
                              f"numbers going up or down in hand order (1-2-3 or 3-2-1, not "
                              f"2-3-1).")
        if not rules.beats(value, state.table_values):
            raise IllegalMove(
                f"{shown} does not beat the table's {render_set(state.table, state.table_values)}:"
                f" play more cards, or as many equal cards against a run, or the same kind with "
                f"higher numbers.")

    def _check_double(self, state: DoubleOrNothingState, seat: int) -> None:
        if state.crawford:
            raise IllegalMove("This is a Crawford bout: the doubling die cannot be used.")
        if state.last_doubler == seat:
            raise IllegalMove("You made the last accepted double: only your opponent may propose "
                              "the next one.")
        if state.stake * 2 > state.settings.max_stake:
            raise IllegalMove(f"The stake is {state.stake}: it cannot go over "
                              f"{state.settings.max_stake}.")

    def _expect(self, kinds: set[str], kind: str, state: DoubleOrNothingState, seat: int) -> None:
        if kind in kinds:
            return
        if kinds:
            raise IllegalMove(f"That is not what you are asked now. {self.usage(state, seat)}")
        waiting = {"choose_starter": "the choice of the first player", "move": "a move",
                   "place": "a card to be placed", "position": "a choice of position",
                   "double_answer": "an answer to a double"}
        now = self.pending(state)
        what = waiting[now[1]] if now is not None else "nothing"
        raise IllegalMove(f"It is not your turn (waiting for {what}).")

    # --- applying -----------------------------------------------------------------------
    def apply(self, state: DoubleOrNothingState, seat: int, command: Command) -> list[Event]:
        ev: list[Event] = []
        if isinstance(command, ChooseStarter):
            flow.choose_starter(state, command.starter, ev)
        elif isinstance(command, Play):
            cards = list(command.cards)
            flow.play_named(state, seat, cards, rules.windows(state.hands[seat], cards), ev)
        elif isinstance(command, PlayAt):
            flow.resolve_which(state, seat, command.start, ev)
        elif isinstance(command, Draw):
            flow.draw(state, seat, command.number, ev)
        elif isinstance(command, DrawJoker):
            flow.draw_joker(state, seat, ev)
        elif isinstance(command, Place):
            flow.place(state, seat, command.position, ev)
        elif isinstance(command, Double):
            flow.propose_double(state, seat, ev)
        elif isinstance(command, Answer):
            flow.answer_double(state, seat, command.accept, ev)
        elif isinstance(command, AwardBout):
            flow.say(ev, "bout.awarded", f"The hosts award bout {state.bout} to {{P{seat}}}: "
                     f"{command.reason}.")
            flow.win_bout(state, seat, "awarded by the hosts", ev)
        if not isinstance(command, PlayAt):  # the quiet answer leaves every other decision
            state.serial += 1                # (and its prompt key, its clock) as it was
        for e in ev:
            if e.audience.kind == "public":
                state.log.append(e.text)
        del state.log[:-LOG_KEEP]
        return ev

    def host_award_units(self, state: DoubleOrNothingState) -> tuple[str, ...]:
        """A bout can be awarded while one runs (after bout 1's starter is chosen)."""
        return ("bout",) if state.phase not in (Phase.STARTER, Phase.OVER) else ()

    def host_award(self, state: DoubleOrNothingState, seat: int, unit: str,
                   reason: str) -> Command:
        if unit not in self.host_award_units(state):
            raise IllegalMove("No bout is running: award the match instead."
                              if unit == "bout" else f"Hosts can award a bout or the match, "
                              f"not {unit!r}.")
        return AwardBout(reason=reason)

    def outcome(self, state: DoubleOrNothingState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(state.score[0], state.score[1]))

    # --- information --------------------------------------------------------------------
    def view(self, state: DoubleOrNothingState, seat: int | None) -> BaseModel:
        from games.double_or_nothing.views import build_view

        return build_view(state, seat)

    def describe(self, state: DoubleOrNothingState, seat: int | None) -> str:
        s = state.settings
        lines = [f"Bout {state.bout}. Score: {score_text(state.score, s.target)}.",
                 f"Stake {state.stake} (cap {s.max_stake}). "
                 + self._double_text(state),
                 f"Table: {table_text(state.table, state.table_values)}.",
                 f"Hands: {p(0)} {len(state.hands[0])} cards, {p(1)} {len(state.hands[1])} cards."
                 f" Jokers in front: {p(0)} {state.jokers[0]}, {p(1)} {state.jokers[1]}."]
        if state.discard:
            lines.append(f"Discarded this bout: {' '.join(state.discard)}.")
        if seat is not None and state.phase != Phase.OVER:
            lines.append(f"Your hand (position:card): {hand_line(state.hands[seat])}")
        if state.phase == Phase.OVER:
            lines.append(f"Match over: {state.reason}.")
        return "\n".join(lines)

    def _double_text(self, state: DoubleOrNothingState) -> str:
        if state.crawford:
            return "Crawford bout: no doubling."
        who = [x for x in (0, 1) if self._may_double(state, x)]
        if not who:
            return "The die is at its cap: no more doubling."
        return "May double on their turn: " + " and ".join(p(x) for x in who) + "."

    def status(self, state: DoubleOrNothingState) -> str | None:
        if state.phase == Phase.OVER:
            return None
        crawford = ", Crawford (no doubling)" if state.crawford else ""
        return (f"Bout {state.bout} · stake {state.stake}{crawford} · score {p(0)} "
                f"{state.score[0]}-{state.score[1]} {p(1)}")

    def secrets(self, state: DoubleOrNothingState) -> list[Secret]:
        if state.phase == Phase.OVER:
            return []
        out = [Secret(value=hand_token(seat, state.hands[seat]), known_to=frozenset({seat}),
                      label=f"seat {seat} hand") for seat in (0, 1)]
        out.append(Secret(value=hand_token(2, state.unused), label="unused cards"))
        return out

    def twin(self, state: DoubleOrNothingState, seat: int,
             rng: random.Random) -> DoubleOrNothingState | None:
        """The same match with `seat`'s hand changed where the opponent cannot tell: some of
        its number cards swapped with unused ones (positions and sizes kept), and one card
        moved elsewhere in the hand (a different private placement). Cards of a pending
        choice between identical sets stay where they are."""
        if state.phase == Phase.OVER:
            return None
        if state.which == seat:
            return None  # the hand before the play must stay as it was
        twin = state.model_copy(deep=True)
        hand = twin.hands[seat]
        free = [i for i, c in enumerate(hand) if c != JOKER]
        if not free and not twin.unused:
            return None
        for i in rng.sample(free, rng.randint(1, len(free))) if free and twin.unused else []:
            j = rng.randrange(len(twin.unused))
            hand[i], twin.unused[j] = twin.unused[j], hand[i]
        if len(hand) > 1 and rng.random() < 0.5:
            card = hand.pop(rng.randrange(len(hand)))
            hand.insert(rng.randrange(len(hand) + 1), card)
        if twin.model_dump() == state.model_dump():
            return None
        return twin

    # --- text ---------------------------------------------------------------------------
    def parse(self, state: DoubleOrNothingState, seat: int, text_in: str) -> Command:
        from games.double_or_nothing.grammar import parse

        return parse(self, state, seat, text_in)

    def usage(self, state: DoubleOrNothingState, seat: int) -> str:
        from games.double_or_nothing.grammar import usage

        return usage(self, state, seat)

    def decision_words(self) -> DecisionWords:
        from games.double_or_nothing.grammar import DECISIONS

        return DECISIONS

    def move_words(self, state: DoubleOrNothingState) -> MoveWords:
        from games.double_or_nothing.grammar import MOVE_WORDS

        return MOVE_WORDS

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: DoubleOrNothingState, prompt: Prompt,
                       rng: random.Random) -> Command:
        from games.double_or_nothing.bots import random_move

        seat = prompt.seat
        return random_move(prompt, state.hands[seat], state.table_values,
                           rules.drawable_numbers(state.table, state.table_values),
                           state.jokers[seat] > 0, self._may_double(state, seat),
                           state.options, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        from games.double_or_nothing.bots import BOTS

        return BOTS

    # --- checks -------------------------------------------------------------------------
    def invariants(self, state: DoubleOrNothingState) -> None:
        s = state.settings
        if state.phase == Phase.OVER:
            assert state.winner is not None and state.score[state.winner] >= s.target
            return
        assert max(state.score) < s.target, f"score {state.score} past the target, match running"
        placing = [state.placing] if state.placing else []
        everywhere = [*state.hands[0], *state.hands[1], *state.table, *state.discard,
                      *state.unused, *placing]
        numbers = sorted((c for c in everywhere if c != JOKER), key=int)
        assert numbers == sorted(rules.deck(), key=int), "number cards not conserved"
        jokers = everywhere.count(JOKER) + sum(state.jokers)
        assert jokers == 2 * s.jokers, f"jokers not conserved: {jokers}"
        assert len(state.unused) == len(rules.deck()) - 2 * s.hand_size, "unused pile changed"
        assert len(state.table) == len(state.table_values), "table values out of step"
        assert rules.is_set(state.table_values), f"table {state.table_values} is not a set"
        for card, value in zip(state.table, state.table_values, strict=True):
            assert card == JOKER or int(card) == value, "a table card changed value"
            assert 1 <= value <= 10, "table value out of range"
        assert state.stake in {1 << i for i in range(8)} and state.stake <= s.max_stake, \
            f"stake {state.stake}"
        assert all(0 <= j <= s.jokers for j in state.jokers), "jokers in front"
        if state.phase in (Phase.TURN, Phase.POSITION, Phase.DOUBLE):
            assert state.hands[0] and state.hands[1], "a bout runs on with an empty hand"
        if state.which is not None:
            k = len(state.option_cards)
            assert state.which != state.turn or state.phase == Phase.DOUBLE, \
                "an identical-set answer outlived the start of its player's move"
            assert state.hands[state.which] == (state.which_hand[:state.options[0]]
                                                + state.which_hand[state.options[0] + k:]), \
                "the hand is not the leftmost copy's until the answer"
        assert (state.placing is not None) == (state.phase == Phase.PLACE), "placing"
        assert state.crawford is False or state.stake == 1, "stake raised in a Crawford bout"
