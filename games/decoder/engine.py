"""The Decoder game: setup (tuning, letter selection), turns, responses, clocks and items."""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import BaseModel

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
    seat_name,
)
from games.decoder import rules
from games.decoder.commands import (
    COMMAND_TYPES,
    ChooseClue,
    ChooseHand,
    ChooseRarities,
    GiveUp,
    GuessTotal,
    RaiseTime,
    Ready,
    SabotageTank,
    Swap,
    TakeTurn,
    UnexpectedSabotage,
)
from games.decoder.letters import (
    ALPHABET,
    HAND_SIZE,
    INITIAL,
    RARITIES,
    RARITY_ORDER,
    render_letters,
)
from games.decoder.settings import DecoderSettings, generate_times
from games.decoder.state import ClueAnswer, DecoderState, Offer, SeatState, Tank, TurnRecord
from games.decoder.text import (
    CLUE_MEANING,
    extra_token,
    items_text,
    seconds_text,
    tank_token,
    timer_token,
    yes_no,
)
from games.decoder.views import DecoderView
from games.decoder.wordlist import MAX_LENGTH, MIN_LENGTH, load_words

P = seat_name
PUBLIC = Audience.public()
UMPIRE = Audience.umpire()

# Which command answers which prompt kind.
KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "tune": (RaiseTime, Ready),
    "rarity": (ChooseRarities,),
    "hand": (ChooseHand,),
    "turn": (TakeTurn,),
    "give_up": (GiveUp,),
    "clue": (ChooseClue,),
    "swap": (Swap,),
    "guess_total": (GuessTotal,),
    "sabotage_tank": (SabotageTank,),
    "sabotage_option": (UnexpectedSabotage,),
}
GAME_REMINDERS = (30.0, 15.0, 5.0)
LOSE_TEXT = "if your turn timer and then your time bank run out, you lose the match"


def _to(seat: int) -> Audience:
    return Audience.to(seat)


def _ev(kind: str, audience: Audience, text: str, **data: object) -> Event:
    return Event(kind=kind, audience=audience, text=text, data=dict(data))


class DecoderGame(Game[DecoderState]):
    slug = "decoder"
    title = "Decoder"
    settings_model = DecoderSettings
    state_model = DecoderState
    command_types = COMMAND_TYPES

    # ------------------------------------------------------------------ life cycle
    def setup(self, settings: BaseModel, seed: str) -> DecoderState:
        assert isinstance(settings, DecoderSettings)
        chance = Chance.from_seed(seed)
        times = settings.times if settings.times is not None else generate_times(chance)
        seats = []
        for seat in (0, 1):
            tanks = [
                Tank(name=name, seconds=times[seat][i], units=rules.recharge_units(times[seat][i]))
                for i, name in enumerate(settings.puzzles)
            ]
            seats.append(SeatState(
                tanks=tanks, items=settings.items[seat].model_copy(), bank=settings.time_bank,
                timer=0 if seat == 0 else 1, setup_left=settings.setup_time,
            ))
        return DecoderState(settings=settings.model_copy(deep=True), chance=chance, seats=seats)

    def opening_events(self, state: DecoderState) -> list[Event]:
        s = state.settings
        names = ", ".join(s.puzzles)
        items = "; ".join(f"{P(i)}: {items_text(state.seats[i].items)}" for i in (0, 1))
        events = [_ev(
            "setup.start", PUBLIC,
            f"Decoder begins. Timer tanks (both players): {names}. {P(0)} holds the advantage: "
            f"recharge timer 0, so {P(0)} makes the first turn; {P(1)} starts at 1 unit. "
            f"Time banks: {seconds_text(s.time_bank)} each. Items: {items}. "
            f"Each player may now raise their own puzzle times (up to {s.max_seconds} s) in "
            f"private, then say ready.",
            puzzles=list(s.puzzles), time_bank=s.time_bank,
        )]
        for seat in (0, 1):
            text = self._tanks_setup_text(state, seat)
            events.append(_ev("setup.tanks", _to(seat), text))
            events.append(_ev("setup.tanks", UMPIRE, f"{P(seat)}'s tanks: " + text))
        return events

    # ------------------------------------------------------------------ prompts
    def prompts(self, state: DecoderState) -> list[Prompt]:
        s = state.settings
        out: list[Prompt] = []
        if state.phase == "tuning":
            for seat in (0, 1):
                if not state.seats[seat].ready:
                    out.append(Prompt(
                        key=f"tune.s{seat}", seat=seat, kind="tune", private=True,
                        text=self._tanks_setup_text(state, seat)
                        + " Type `raise <puzzle> to <seconds>` or `ready`.",
                        time_limit=s.tuning_time, reminders=(60.0, 30.0),
                        on_timeout=OnTimeout.DEFAULT,
                        timeout_text="when setup is locked, your current times stand",
                        choices=("ready",),
                    ))
        elif state.phase == "selection":
            for seat in (0, 1):
                me = state.seats[seat]
                if me.extra_count and me.rarities is None:
                    options = rules.rarity_options(me.extra_count)
                    out.append(Prompt(
                        key=f"rarity.s{seat}", seat=seat, kind="rarity", private=True,
                        text=f"Your tiles: {render_letters(me.initial)}. You earned "
                        f"{me.extra_count} extra tile(s). Choose their rarities (at most 3 common, "
                        f"3 uncommon, 1 rare), e.g. `{rules.describe_rarities(options[0])}`.",
                        time_limit=max(me.setup_left, 0.0), reminders=(60.0, 30.0, 10.0),
                        on_timeout=OnTimeout.DEFAULT,
                        timeout_text=f"you get {rules.describe_rarities(options[0])}",
                        choices=tuple(rules.describe_rarities(o) for o in options)[:25],
                    ))
                elif not me.hand_chosen:
                    tiles = me.setup_letters
                    out.append(Prompt(
                        key=f"hand.s{seat}", seat=seat, kind="hand", private=True,
                        text=f"Your tiles: {render_letters(tiles)}. Keep {HAND_SIZE}: type "
                        f"`keep <six letters>` or `drop <letters>`.",
                        time_limit=max(me.setup_left, 0.0), reminders=(60.0, 30.0, 10.0),
                        on_timeout=OnTimeout.DEFAULT,
                        timeout_text=f"you keep {render_letters(tiles[:HAND_SIZE])}",
                        choices=tuple(f"drop {ch}" for ch in tiles) if len(tiles) == 7 else (),
                    ))
        elif state.phase == "play" and state.step is not None and state.active is not None:
            out.append(self._play_prompt(state))
        return out

    def _play_prompt(self, state: DecoderState) -> Prompt:
        s = state.settings
        active = state.active
        assert active is not None and state.step is not None
        step = state.step
        seat = active if step in ("turn", "give_up") else 1 - active
        me = state.seats[seat]
        limit = s.turn_time if seat == active else s.response_time
        cur = state.current
        us = " You may add `unexpected sabotage`." if me.items.unexpected_sabotage else ""
        private = False
        choices: tuple[str, ...] = ()
        if step == "turn":
            unused = me.unused()
            if len(unused) == 1:
                text = (f"{P(seat)}, your turn. {unused[0].name} is your last unused tank: "
                        f"type `use {unused[0].name} restore`.")
            else:
                text = (f"{P(seat)}, your turn. Unused tanks: {', '.join(t.name for t in unused)}. "
                        f"Type `use <tank> ask <word> not <ANY|ODD|TWO>`, "
                        f"`use <tank> guess <letter>` or `use <tank> restore`.")
            extras = []
            if me.items.power_surge:
                extras.append("`power surge`")
            if me.items.new_evidence:
                extras.append("`new evidence` (when asking)")
            if extras:
                text += " You may add " + " or ".join(extras) + "."
            choices = tuple(f"use {t.name} restore" for t in unused)
        elif step == "give_up":
            text = f"{P(seat)}, your guess was wrong: type `give up <one of your letters>`"
            if me.items.hand_insurance:
                text += " or `insurance` (Hand Insurance)"
                choices = ("insurance",)
            text += "."
        elif step == "clue":
            assert cur is not None and cur.exclude is not None
            a, b = rules.offered_clues(cur.exclude)
            text = (f"{P(seat)}, {P(active)} asks {cur.word} and refuses {cur.exclude}. "
                    f"Choose the clue you answer: `{a}` or `{b}`.{us}")
            choices = (a, b)
            if me.items.unexpected_sabotage:
                choices += (f"{a} unexpected sabotage", f"{b} unexpected sabotage")
        elif step == "swap":
            offer = me.offers[-1]
            private = True
            text = (f"Compensation: you may swap one of your letters ({render_letters(me.hand)}) "
                    f"for {offer.letter}. Type `swap <your letter>` or `no swap`.{us}")
            choices = ("no swap", *(f"swap {ch}" for ch in me.hand))
        elif step == "guess_total":
            assert cur is not None
            text = (f"{P(seat)}, {P(active)} restores {', '.join(cur.restored)}. Guess their total "
                    f"recharge time: type `guess <number>`.{us}")
        elif step == "sabotage_tank":
            assert cur is not None
            text = f"{P(seat)}, your guess is right: choose a restored tank to sabotage."
            choices = tuple(f"sabotage {name}" for name in cur.restored)
        else:  # sabotage_option
            assert cur is not None
            text = (f"{P(seat)}, play Unexpected Sabotage on {P(active)}'s {cur.tank}? "
                    f"Type `unexpected sabotage` or `pass`.")
            choices = ("unexpected sabotage", "pass")
        return Prompt(
            key=f"t{state.turn}.{step}.s{seat}", seat=seat, kind=step, private=private, text=text,
            time_limit=limit, bank=float(me.bank), bank_step=float(s.bank_step),
            reminders=GAME_REMINDERS, bank_reminder_every=30.0, on_timeout=OnTimeout.LOSE,
            timeout_text=LOSE_TEXT, choices=choices[:25],
        )

    def _pending(self, state: DecoderState, seat: int) -> Prompt | None:
        return next((p for p in self.prompts(state) if p.seat == seat), None)

    # ------------------------------------------------------------------ check
    def check(self, state: DecoderState, seat: int, command: Command) -> None:
        if seat not in (0, 1):
            raise IllegalMove("Only the two players can play.")
        if state.phase == "over":
            raise IllegalMove("The match is over.")
        if isinstance(command, Timeout):
            p = self.prompt(state, command.prompt_key)
            if p is None or p.seat != seat:
                raise IllegalMove("That decision is not pending (its clock is stale).")
            return
        prompt = self._pending(state, seat)
        if prompt is None:
            raise IllegalMove(self._waiting_text(state, seat))
        allowed = KIND_COMMANDS[prompt.kind]
        if not isinstance(command, allowed):
            raise IllegalMove(f"Not now: {prompt.text}")
        me = state.seats[seat]
        handler = getattr(self, f"_check_{command.type}")
        handler(state, seat, me, command)

    def _waiting_text(self, state: DecoderState, seat: int) -> str:
        if state.phase == "tuning":
            return "Your times are locked; waiting for the other player."
        if state.phase == "selection":
            return "Your hand is chosen; waiting for the other player."
        if state.active is not None and state.active != seat and state.step == "turn":
            return f"It is {P(state.active)}'s turn; wait for it."
        return "Nothing is pending for you now."

    def _check_raise_time(self, state: DecoderState, seat: int, me: SeatState,
                          c: RaiseTime) -> None:
        tank = me.tank(c.puzzle)
        if tank is None:
            raise IllegalMove(f"No puzzle named {c.puzzle}. Puzzles: {', '.join(state.settings.puzzles)}.")
        cap = state.settings.max_seconds
        if tank.seconds >= cap:
            raise IllegalMove(f"{tank.name} is already at {tank.seconds} s; the most is {cap} s.")
        if not tank.seconds < c.seconds <= cap:
            raise IllegalMove(f"You can only raise {tank.name} from {tank.seconds} s to at most "
                              f"{cap} s (a whole number of seconds above {tank.seconds}).")

    def _check_ready(self, state: DecoderState, seat: int, me: SeatState, c: Ready) -> None:
        return None

    def _check_choose_rarities(self, state: DecoderState, seat: int, me: SeatState,
                               c: ChooseRarities) -> None:
        split = (c.common, c.uncommon, c.rare)
        options = rules.rarity_options(me.extra_count)
        if split not in options:
            raise IllegalMove(
                f"Choose exactly {me.extra_count} extra tile(s), at most 3 common, 3 uncommon and "
                f"1 rare: " + "; ".join(rules.describe_rarities(o) for o in options) + ".")

    def _check_choose_hand(self, state: DecoderState, seat: int, me: SeatState,
                           c: ChooseHand) -> None:
        tiles = me.setup_letters
        if len(c.letters) != HAND_SIZE or len(set(c.letters)) != HAND_SIZE:
            raise IllegalMove(f"Keep exactly {HAND_SIZE} different tiles of yours: {render_letters(tiles)}.")
        missing = [ch for ch in c.letters if ch not in tiles]
        if missing:
            raise IllegalMove(f"You do not have {', '.join(missing)}; your tiles: {render_letters(tiles)}.")

    def _check_take_turn(self, state: DecoderState, seat: int, me: SeatState, c: TakeTurn) -> None:
        tank = me.tank(c.tank)
        unused = me.unused()
        names = ", ".join(t.name for t in unused)
        if tank is None:
            raise IllegalMove(f"You have no tank named {c.tank}. Unused tanks: {names}.")
        if tank.used:
            raise IllegalMove(f"{tank.name} is used up until you restore. Unused tanks: {names}.")
        if len(unused) == 1 and c.action != "restore":
            raise IllegalMove(f"{tank.name} is your last unused tank: you must use it to restore "
                              f"(`use {tank.name} restore`).")
        if c.power_surge and me.items.power_surge < 1:
            raise IllegalMove("You have no Power Surge.")
        if c.new_evidence and c.action != "ask":
            raise IllegalMove("New Evidence is played when asking a word.")
        if c.action == "ask":
            if c.new_evidence and me.items.new_evidence < 1:
                raise IllegalMove("You have no New Evidence.")
            self._check_word(state, c.word)
            if c.exclude not in rules.CLUES:
                raise IllegalMove("Say which clue you do not want: `not ANY`, `not ODD` or `not TWO`.")
            if c.letter is not None:
                raise IllegalMove("Ask a word or guess a letter, not both.")
        elif c.action == "guess":
            if c.letter is None or len(c.letter) != 1 or c.letter not in ALPHABET:
                raise IllegalMove("Guess one letter A-Z: `use <tank> guess <letter>`.")
            if c.word is not None or c.exclude is not None:
                raise IllegalMove("Guess a letter or ask a word, not both.")
        elif c.word is not None or c.letter is not None or c.exclude is not None:
            raise IllegalMove("Restoring takes no word or letter: `use <tank> restore`.")

    def _check_word(self, state: DecoderState, word: str | None) -> None:
        if not word:
            raise IllegalMove("Name the word you ask: `use <tank> ask <word> not <clue>`.")
        w = word.upper()
        if not (w.isascii() and w.isalpha()):
            raise IllegalMove(f"{word} is not a word: letters A-Z only.")
        if not MIN_LENGTH <= len(w) <= MAX_LENGTH:
            raise IllegalMove(f"{w} has {len(w)} letters; a word must have {MIN_LENGTH} to "
                              f"{MAX_LENGTH} letters.")
        if w in state.used_words:
            raise IllegalMove(f"{w} was already asked in this match; choose another word.")
        if w not in load_words(state.settings.word_list):
            raise IllegalMove(f"{w} is not in the word list.")

    def _check_give_up(self, state: DecoderState, seat: int, me: SeatState, c: GiveUp) -> None:
        if c.insurance:
            if c.letter is not None:
                raise IllegalMove("Give up a letter or play Hand Insurance, not both.")
            if me.items.hand_insurance < 1:
                raise IllegalMove("You have no Hand Insurance; give up one of your letters.")
            return
        if c.letter is None or c.letter not in me.hand:
            raise IllegalMove(f"Give up one of your letters: {render_letters(me.hand)}.")

    def _check_choose_clue(self, state: DecoderState, seat: int, me: SeatState,
                           c: ChooseClue) -> None:
        cur = state.current
        assert cur is not None and cur.exclude is not None
        a, b = rules.offered_clues(cur.exclude)
        if c.clue not in (a, b):
            raise IllegalMove(f"{P(state.active or 0)} refused {cur.exclude}: choose {a} or {b}.")
        self._check_us(me, c.unexpected_sabotage)

    def _check_swap(self, state: DecoderState, seat: int, me: SeatState, c: Swap) -> None:
        if c.give is not None and c.give not in me.hand:
            raise IllegalMove(f"Swap one of your letters ({render_letters(me.hand)}) or say `no swap`.")
        self._check_us(me, c.unexpected_sabotage)

    def _check_guess_total(self, state: DecoderState, seat: int, me: SeatState,
                           c: GuessTotal) -> None:
        if not 0 <= c.total <= 999:
            raise IllegalMove("Guess the total as a whole number of units, e.g. `guess 17`.")
        self._check_us(me, c.unexpected_sabotage)

    def _check_sabotage_tank(self, state: DecoderState, seat: int, me: SeatState,
                             c: SabotageTank) -> None:
        cur = state.current
        assert cur is not None
        if c.tank not in cur.restored:
            raise IllegalMove(f"Choose one of the restored tanks: {', '.join(cur.restored)}.")

    def _check_unexpected_sabotage(self, state: DecoderState, seat: int, me: SeatState,
                                   c: UnexpectedSabotage) -> None:
        self._check_us(me, c.use)

    @staticmethod
    def _check_us(me: SeatState, wanted: bool) -> None:
        if wanted and me.items.unexpected_sabotage < 1:
            raise IllegalMove("You have no Unexpected Sabotage.")

    # ------------------------------------------------------------------ apply
    def apply(self, state: DecoderState, seat: int, command: Command) -> list[Event]:
        events: list[Event] = []
        if isinstance(command, Timeout):
            self._apply_timeout(state, seat, command, events)
            return events
        if state.phase == "play":
            if not self._charge(state, seat, command, events):
                return events
        elif state.phase == "selection" and command.elapsed is not None:
            me = state.seats[seat]
            me.setup_left = max(0.0, me.setup_left - command.elapsed)
        getattr(self, f"_apply_{command.type}")(state, seat, command, events)
        return events

    def _charge(self, state: DecoderState, seat: int, command: Command, events: list[Event]) -> bool:
        """Charge the time bank for a decision that took `command.elapsed` seconds; False (and the
        match lost) when the bank could not cover it."""
        s = state.settings
        limit = s.turn_time if seat == state.active else s.response_time
        charge = rules.bank_charge(command.elapsed, limit, s.bank_step)
        if charge == 0:
            return True
        me = state.seats[seat]
        if charge > me.bank:
            me.bank = 0
            self._lose(state, seat, "ran out of time (time bank exhausted)", events)
            return False
        me.bank -= charge
        events.append(_ev("clock.bank", PUBLIC,
                          f"{P(seat)} used {charge} s of their time bank ({me.bank} s left).",
                          seat=seat, charged=charge, bank=me.bank))
        return True

    def _apply_timeout(self, state: DecoderState, seat: int, command: Timeout,
                       events: list[Event]) -> None:
        prompt = self.prompt(state, command.prompt_key)
        assert prompt is not None
        me = state.seats[seat]
        if prompt.kind == "tune":
            events.append(_ev("setup.locked", PUBLIC, f"{P(seat)}'s puzzle times are locked."))
            self._apply_ready(state, seat, Ready(), events, announce=False)
        elif prompt.kind == "rarity":
            split = rules.rarity_options(me.extra_count)[0]
            events.append(_ev("setup.timeout", PUBLIC,
                              f"{P(seat)} ran out of setup time: the default choices apply."))
            self._apply_choose_rarities(
                state, seat, ChooseRarities(common=split[0], uncommon=split[1], rare=split[2]), events)
        elif prompt.kind == "hand":
            events.append(_ev("setup.timeout", PUBLIC,
                              f"{P(seat)} ran out of setup time: the default hand applies."))
            self._apply_choose_hand(state, seat, ChooseHand(letters=tuple(me.setup_letters[:HAND_SIZE])),
                                    events)
        else:
            me.bank = 0
            self._lose(state, seat, "ran out of time (turn timer and time bank)", events)

    def _lose(self, state: DecoderState, loser: int, why: str, events: list[Event]) -> None:
        state.phase = "over"
        state.winner = 1 - loser
        state.step = None
        state.reason = f"{P(loser)} {why}"
        events.append(_ev("match.over", PUBLIC, f"{P(loser)} {why}. {P(1 - loser)} wins Decoder!",
                          winner=1 - loser, loser=loser))
        events.append(_ev("match.reveal", UMPIRE, "Final hands: " + "; ".join(
            f"{P(i)} {render_letters(state.seats[i].hand)}" for i in (0, 1))))

    # --- setup ---------------------------------------------------------------------------
    def _apply_raise_time(self, state: DecoderState, seat: int, c: RaiseTime,
                          events: list[Event]) -> None:
        tank = state.seats[seat].tank(c.puzzle)
        assert tank is not None
        tank.seconds = c.seconds
        tank.units = rules.recharge_units(c.seconds)
        text = f"Raised {tank.name} to {c.seconds} s: {tank_token(seat, tank.name, tank.units)}."
        self._tell(state, seat, "setup.raise", text, events)
        events.append(_ev("setup.raise", UMPIRE, f"{P(seat)}: {text}"))

    def _apply_ready(self, state: DecoderState, seat: int, c: Ready, events: list[Event],
                     announce: bool = True) -> None:
        state.seats[seat].ready = True
        if announce:
            events.append(_ev("setup.ready", PUBLIC, f"{P(seat)} is ready."))
        if all(s.ready for s in state.seats):
            self._start_selection(state, events)

    def _start_selection(self, state: DecoderState, events: list[Event]) -> None:
        state.phase = "selection"
        a, b = state.seats
        for me, them in ((a, b), (b, a)):
            for mine, theirs in zip(me.tanks, them.tanks, strict=True):
                mine.extra_tile = rules.earns_extra_tile(mine.units, theirs.units)
            me.extra_count = sum(t.extra_tile for t in me.tanks)
        pool = {r: list(letters) for r, letters in RARITIES.items()}
        for me in state.seats:
            for rarity in RARITY_ORDER:
                me.initial += self._draw(state, pool[rarity], INITIAL[rarity])
        events.append(_ev("setup.selection", PUBLIC,
                          f"Puzzle times are locked. Letter selection begins "
                          f"({seconds_text(state.settings.setup_time)} each)."))
        for seat, me in enumerate(state.seats):
            me.private_letters = sorted(set(me.private_letters) | set(me.initial))
            earned = [extra_token(t.name) for t in me.tanks if t.extra_tile]
            text = ("Your tanks: " + "; ".join(tank_token(seat, t.name, t.units) for t in me.tanks) + ". "
                    + (f"You earned {len(earned)} extra tile(s): " + ", ".join(earned) + ". "
                       if earned else "You earned no extra tiles. ")
                    + f"Your initial tiles: {render_letters(me.initial)}.")
            self._tell(state, seat, "setup.deal", text, events)
            events.append(_ev("setup.deal", UMPIRE, f"{P(seat)}: {text}"))
            if me.extra_count == 0:
                self._set_hand(state, seat, list(me.initial), events)
        self._maybe_start_play(state, events)

    @staticmethod
    def _remaining_pool(state: DecoderState) -> dict[str, list[str]]:
        taken = {ch for me in state.seats for ch in me.setup_letters}
        return {r: [ch for ch in letters if ch not in taken] for r, letters in RARITIES.items()}

    @staticmethod
    def _draw(state: DecoderState, pool: list[str], k: int) -> list[str]:
        picked = state.chance.sample(pool, k)
        for ch in picked:
            pool.remove(ch)
        return sorted(picked)

    def _apply_choose_rarities(self, state: DecoderState, seat: int, c: ChooseRarities,
                               events: list[Event]) -> None:
        me = state.seats[seat]
        me.rarities = (c.common, c.uncommon, c.rare)
        pool = self._remaining_pool(state)
        extras: list[str] = []
        for rarity, n in zip(RARITY_ORDER, me.rarities, strict=True):
            extras += self._draw(state, pool[rarity], n)
        me.extras = extras
        me.private_letters = sorted(set(me.private_letters) | set(extras))
        text = (f"Extra tiles ({rules.describe_rarities(me.rarities)}): {render_letters(extras)}. "
                f"All your tiles: {render_letters(me.setup_letters)}.")
        self._tell(state, seat, "setup.extras", text, events)
        events.append(_ev("setup.extras", UMPIRE, f"{P(seat)}: {text}"))
        events.append(_ev("setup.rarities", PUBLIC, f"{P(seat)} has chosen the rarities."))

    def _apply_choose_hand(self, state: DecoderState, seat: int, c: ChooseHand,
                           events: list[Event]) -> None:
        self._set_hand(state, seat, list(c.letters), events)
        events.append(_ev("setup.hand", PUBLIC, f"{P(seat)} has chosen their hand."))
        self._maybe_start_play(state, events)

    def _set_hand(self, state: DecoderState, seat: int, letters: list[str],
                  events: list[Event]) -> None:
        me = state.seats[seat]
        me.hand = sorted(letters)
        me.hand_chosen = True
        text = f"Your hand: {render_letters(me.hand)}."
        self._tell(state, seat, "setup.hand", text, events)
        events.append(_ev("setup.hand", UMPIRE, f"{P(seat)}'s hand: {render_letters(me.hand)}."))

    def _maybe_start_play(self, state: DecoderState, events: list[Event]) -> None:
        if state.phase != "selection" or not all(s.hand_chosen for s in state.seats):
            return
        state.phase = "play"
        state.turn = 1
        state.active = 0
        state.step = "turn"
        events.append(_ev("play.start", PUBLIC,
                          f"Both hands are chosen: the match begins. {P(0)} makes the first turn."))
        events.append(_ev("play.timers", UMPIRE, self._timers_text(state)))

    # --- turns ---------------------------------------------------------------------------
    def _apply_take_turn(self, state: DecoderState, seat: int, c: TakeTurn,
                         events: list[Event]) -> None:
        me = state.seats[seat]
        them = state.seats[1 - seat]
        tank = me.tank(c.tank)
        assert tank is not None
        rec = TurnRecord(number=state.turn, seat=seat, tank=tank.name, action=c.action,
                         power_surge=c.power_surge)
        state.history.append(rec)
        state.last_mover = seat
        if c.power_surge:
            me.items.power_surge -= 1
        restored: list[Tank] = []
        if c.action == "restore":
            restored = [t for t in me.tanks if t.used and t.name != tank.name]
            for t in restored:
                t.used = False
            rec.restored = [t.name for t in restored]
        if not c.power_surge:
            tank.used = True
        me.timer = tank.units
        me.fills[state.turn] = tank.units
        # The owner's running display of their tanks (issue 6): private, after every turn.
        events.append(_ev("tanks.status", Audience.to(seat), self._tanks_status_text(state, seat),
                          seat=seat, turn=state.turn))
        surge = " with Power Surge (the tank stays available)" if c.power_surge else ""
        head = f"{P(seat)} uses {tank.name}{surge}"
        if c.action == "ask":
            assert c.word is not None and c.exclude is not None
            word = c.word.upper()
            rec.word, rec.exclude, rec.new_evidence = word, c.exclude, c.new_evidence
            state.used_words.append(word)
            if c.new_evidence:
                me.items.new_evidence -= 1
                count = rules.clue_count(word, them.hand)
                for clue in rules.offered_clues(c.exclude):
                    rec.answers.append(ClueAnswer(clue=clue, answer=rules.clue_answer(clue, count)))
                answers = ", ".join(f"{a.clue}: {yes_no(a.answer)}" for a in rec.answers)
                events.append(_ev("turn.ask", PUBLIC,
                                  f"{head} and asks {word}, refusing {c.exclude}, with New Evidence. "
                                  f"Answers for {P(1 - seat)}'s hand: {answers}.",
                                  turn=state.turn, seat=seat, tank=tank.name, word=word,
                                  exclude=c.exclude, answers=[a.model_dump() for a in rec.answers]))
                self._after_action(state, events)
            else:
                a, b = rules.offered_clues(c.exclude)
                events.append(_ev("turn.ask", PUBLIC,
                                  f"{head} and asks {word}, refusing {c.exclude}. "
                                  f"{P(1 - seat)} chooses {a} or {b}.",
                                  turn=state.turn, seat=seat, tank=tank.name, word=word,
                                  exclude=c.exclude))
                state.step = "clue"
        elif c.action == "guess":
            assert c.letter is not None
            rec.letter = c.letter
            self._name(state, c.letter)
            if c.letter in them.hand:
                rec.correct = True
                them.hand.remove(c.letter)
                them.lost += 1
                state.revealed.append(c.letter)
                events.append(_ev("turn.guess", PUBLIC,
                                  f"{head} and guesses {c.letter}: correct! {P(1 - seat)} loses "
                                  f"{c.letter} ({len(them.hand)} tile(s) left).",
                                  turn=state.turn, seat=seat, tank=tank.name, letter=c.letter,
                                  correct=True, tiles_left=len(them.hand)))
                if not them.hand:
                    self._finish(state, seat, f"{P(seat)} guessed {P(1 - seat)}'s last tile",
                                 events)
                    return
                self._after_action(state, events)
            else:
                rec.correct = False
                events.append(_ev("turn.guess", PUBLIC,
                                  f"{head} and guesses {c.letter}: wrong. {P(seat)} must give up "
                                  f"a letter (or play Hand Insurance).",
                                  turn=state.turn, seat=seat, tank=tank.name, letter=c.letter,
                                  correct=False))
                state.step = "give_up"
        else:
            if restored:
                events.append(_ev("turn.restore", PUBLIC,
                                  f"{head} and restores {', '.join(rec.restored)}. "
                                  f"{P(1 - seat)} may guess their total recharge time.",
                                  turn=state.turn, seat=seat, tank=tank.name, restored=rec.restored))
                state.step = "guess_total"
            else:
                events.append(_ev("turn.restore", PUBLIC,
                                  f"{head} and restores: no tank was used, so nothing is restored.",
                                  turn=state.turn, seat=seat, tank=tank.name, restored=[]))
                self._after_action(state, events)

    def _apply_give_up(self, state: DecoderState, seat: int, c: GiveUp,
                       events: list[Event]) -> None:
        me = state.seats[seat]
        rec = state.current
        assert rec is not None
        if c.insurance:
            me.items.hand_insurance -= 1
            rec.insurance = True
            events.append(_ev("turn.insurance", PUBLIC,
                              f"{P(seat)} plays Hand Insurance and gives up no letter."))
        else:
            assert c.letter is not None
            me.hand.remove(c.letter)
            me.lost += 1
            state.revealed.append(c.letter)
            self._name(state, c.letter)
            rec.gave_up = c.letter
            events.append(_ev("turn.give_up", PUBLIC,
                              f"{P(seat)} gives up {c.letter} ({len(me.hand)} tile(s) left).",
                              seat=seat, letter=c.letter, tiles_left=len(me.hand)))
            if not me.hand:
                self._finish(state, 1 - seat, f"{P(seat)} gave up their last tile", events)
                return
        self._offer(state, 1 - seat, events)

    def _offer(self, state: DecoderState, receiver: int, events: list[Event]) -> None:
        """Compensation for being wrongly accused: a random qualifying letter, offered privately."""
        rec = state.current
        assert rec is not None
        them = state.seats[receiver]
        guesser = state.seats[1 - receiver]
        candidates = rules.compensation_letters(state.revealed, them.hand, guesser.setup_letters,
                                                guesser.hand)
        if not candidates:
            them.offers.append(Offer(turn=state.turn, letter=None, decided=True))
            self._tell(state, receiver, "swap.none",
                       "Compensation: no letter qualifies, so no swap is offered this time.", events)
            events.append(_ev("swap.none", UMPIRE, f"No compensation letter qualifies for {P(receiver)}."))
            self._after_action(state, events)
            return
        letter = state.chance.choice(candidates)
        them.offers.append(Offer(turn=state.turn, letter=letter))
        them.private_letters = sorted(set(them.private_letters) | {letter})
        self._tell(state, receiver, "swap.offer",
                   f"Compensation: you may swap one of your letters ({render_letters(them.hand)}) "
                   f"for {letter}, or decline.", events)
        events.append(_ev("swap.offer", UMPIRE, f"{P(receiver)} is offered {letter} "
                          f"(from {len(candidates)} qualifying letters)."))
        events.append(_ev("swap.pending", PUBLIC,
                          f"{P(receiver)} is shown a compensation letter in private and may swap."))
        state.step = "swap"

    def _apply_swap(self, state: DecoderState, seat: int, c: Swap, events: list[Event]) -> None:
        me = state.seats[seat]
        offer = me.offers[-1]
        assert offer.letter is not None
        offer.decided = True
        if c.give is not None:
            offer.gave = c.give
            me.hand[me.hand.index(c.give)] = offer.letter
            me.hand.sort()
            text = f"You swapped {c.give} for {offer.letter}. Your hand: {render_letters(me.hand)}."
        else:
            text = f"You kept your hand: {render_letters(me.hand)}."
        self._tell(state, seat, "swap.done", text, events)
        events.append(_ev("swap.done", UMPIRE, f"{P(seat)}: {text}"))
        events.append(_ev("swap.decided", PUBLIC, f"{P(seat)} has made their compensation decision."))
        if c.unexpected_sabotage:
            self._unexpected(state, seat, events)
        self._end_turn(state, events)

    def _apply_choose_clue(self, state: DecoderState, seat: int, c: ChooseClue,
                           events: list[Event]) -> None:
        rec = state.current
        assert rec is not None and rec.word is not None
        count = rules.clue_count(rec.word, state.seats[seat].hand)
        answer = rules.clue_answer(c.clue, count)
        rec.answers.append(ClueAnswer(clue=c.clue, answer=answer))
        events.append(_ev("turn.clue", PUBLIC,
                          f"{P(seat)} gives {c.clue} for {rec.word}: {yes_no(answer)} "
                          f"({CLUE_MEANING[c.clue]}: {yes_no(answer).lower()}).",
                          word=rec.word, clue=c.clue, answer=answer))
        if c.unexpected_sabotage:
            self._unexpected(state, seat, events)
        self._end_turn(state, events)

    def _apply_guess_total(self, state: DecoderState, seat: int, c: GuessTotal,
                           events: list[Event]) -> None:
        rec = state.current
        assert rec is not None and state.active is not None
        owner = state.seats[state.active]
        total = sum(t.units for t in owner.tanks if t.name in rec.restored)
        rec.total_guess = c.total
        rec.total_correct = c.total == total
        events.append(_ev("turn.total", PUBLIC,
                          f"{P(seat)} guesses a total of {c.total}: "
                          + ("correct! They may sabotage a restored tank." if rec.total_correct
                             else "wrong."),
                          guess=c.total, correct=rec.total_correct))
        if c.unexpected_sabotage:
            self._unexpected(state, seat, events)
        if rec.total_correct:
            state.step = "sabotage_tank"
        else:
            self._end_turn(state, events)

    def _apply_sabotage_tank(self, state: DecoderState, seat: int, c: SabotageTank,
                             events: list[Event]) -> None:
        rec = state.current
        assert rec is not None and state.active is not None
        owner = state.active
        tank = state.seats[owner].tank(c.tank)
        assert tank is not None
        old = tank.units
        tank.units = rules.sabotaged(old)
        rec.sabotaged = tank.name
        events.append(_ev("turn.sabotage", PUBLIC,
                          f"{P(seat)} sabotages {P(owner)}'s {tank.name}: its recharge time goes "
                          f"up by half (rounded up, at most 30 units).", tank=tank.name))
        self._tell(state, owner, "turn.sabotaged",
                   f"Sabotaged: {tank_token(owner, tank.name, tank.units)} now (was {old}).", events)
        events.append(_ev("turn.sabotage", UMPIRE, f"{P(owner)}'s {tank.name}: {old} -> {tank.units}."))
        self._end_turn(state, events)

    def _apply_unexpected_sabotage(self, state: DecoderState, seat: int, c: UnexpectedSabotage,
                                   events: list[Event]) -> None:
        if c.use:
            self._unexpected(state, seat, events)
        else:
            events.append(_ev("turn.pass", PUBLIC, f"{P(seat)} passes."))
        self._end_turn(state, events)

    def _unexpected(self, state: DecoderState, seat: int, events: list[Event]) -> None:
        """Unexpected Sabotage on the tank the active player just used: it applies to this turn."""
        rec = state.current
        assert rec is not None and state.active is not None
        owner = state.seats[state.active]
        state.seats[seat].items.unexpected_sabotage -= 1
        rec.unexpected_sabotage = True
        tank = owner.tank(rec.tank)
        assert tank is not None
        old = tank.units
        tank.units = rules.sabotaged(old)
        owner.timer = tank.units
        owner.fills[state.turn] = tank.units
        events.append(_ev("turn.unexpected", PUBLIC,
                          f"{P(seat)} plays Unexpected Sabotage on {P(state.active)}'s {rec.tank}: "
                          f"its recharge time goes up by half (rounded up, at most 30 units), "
                          f"starting with this turn.", tank=rec.tank))
        self._tell(state, state.active, "turn.sabotaged",
                   f"Unexpected Sabotage: {tank_token(state.active, tank.name, tank.units)} now (was {old}); "
                   f"your recharge timer uses the new time.", events)
        events.append(_ev("turn.unexpected", UMPIRE,
                          f"{P(state.active)}'s {tank.name}: {old} -> {tank.units}."))

    def _after_action(self, state: DecoderState, events: list[Event]) -> None:
        """The turn's action is resolved without a response decision: offer Unexpected Sabotage to
        an opponent who holds it, else end the turn."""
        assert state.active is not None
        rec = state.current
        opp = state.seats[1 - state.active]
        if opp.items.unexpected_sabotage > 0 and rec is not None and not rec.unexpected_sabotage:
            state.step = "sabotage_option"
        else:
            self._end_turn(state, events)

    def _end_turn(self, state: DecoderState, events: list[Event]) -> None:
        timers = [state.seats[0].timer, state.seats[1].timer]
        nxt = rules.advance_timers(timers, state.last_mover)
        state.seats[0].timer, state.seats[1].timer = timers
        state.turn += 1
        state.active = nxt
        state.step = "turn"
        events.append(_ev("play.next", PUBLIC, f"Turn {state.turn}: {P(nxt)} to move.",
                          turn=state.turn, seat=nxt))
        events.append(_ev("play.timers", UMPIRE, self._timers_text(state)))

    def _finish(self, state: DecoderState, winner: int, why: str, events: list[Event]) -> None:
        state.phase = "over"
        state.winner = winner
        state.step = None
        state.reason = why
        events.append(_ev("match.over", PUBLIC, f"{why}. {P(winner)} wins Decoder!",
                          winner=winner))
        events.append(_ev("match.reveal", UMPIRE, "Final hands: " + "; ".join(
            f"{P(i)} {render_letters(state.seats[i].hand)}" for i in (0, 1))))

    # --- helpers ---------------------------------------------------------------------------
    def _tell(self, state: DecoderState, seat: int, kind: str, text: str,
              events: list[Event]) -> None:
        events.append(_ev(kind, _to(seat), text))

    @staticmethod
    def _name(state: DecoderState, letter: str) -> None:
        if letter not in state.named:
            state.named.append(letter)

    @staticmethod
    def _timers_text(state: DecoderState) -> str:
        return "Recharge timers: " + ", ".join(timer_token(i, state.seats[i].timer) for i in (0, 1))

    @staticmethod
    def _tanks_status_text(state: DecoderState, seat: int) -> str:
        me = state.seats[seat]
        unused = [tank_token(seat, t.name, t.units) for t in me.tanks if not t.used]
        used = [tank_token(seat, t.name, t.units) for t in me.tanks if t.used]
        return (f"Your tanks now. Unused: {'; '.join(unused) or 'none'}. "
                f"Used: {'; '.join(used) or 'none'}.")

    def _tanks_setup_text(self, state: DecoderState, seat: int) -> str:
        me = state.seats[seat]
        return "Your timer tanks: " + "; ".join(
            f"{tank_token(seat, t.name, t.units)} ({t.seconds} s)" for t in me.tanks) + "."

    # ------------------------------------------------------------------ outcome
    def outcome(self, state: DecoderState) -> Outcome | None:
        if state.phase != "over" or state.winner is None:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(len(state.seats[0].hand), len(state.seats[1].hand)))

    # ------------------------------------------------------------------ information
    def describe(self, state: DecoderState, seat: int | None) -> str:
        """For a player: their hand and their tanks (used/unused, with recharge times, as the
        seed lets them ask any time); for everyone: banks, hand sizes, revealed letters."""
        v = self.view(state, seat)
        assert isinstance(v, DecoderView)
        lines: list[str] = []
        if seat is not None:
            if v.hand:
                lines.append(f"Your hand: {render_letters(v.hand)}")
            lines.append("Your tanks: " + "; ".join(t.label for t in v.players[seat].tanks))
        for pv in v.players:
            tiles = "not chosen yet" if pv.hand_size is None else f"{pv.hand_size} tiles"
            lines.append(f"{P(pv.seat)}: time bank {pv.bank} s, hand {tiles}.")
        if v.revealed:
            lines.append("Revealed letters: " + ", ".join(v.revealed))
        if v.used_words:
            lines.append("Used words: " + ", ".join(v.used_words))
        return "\n".join(lines)

    def view(self, state: DecoderState, seat: int | None) -> BaseModel:
        from games.decoder.views import build_view

        return build_view(self, state, seat)

    def secrets(self, state: DecoderState) -> list[Secret]:
        out: list[Secret] = []
        for seat, me in enumerate(state.seats):
            for t in me.tanks:
                out.append(Secret(value=tank_token(seat, t.name, t.units),
                                  known_to=frozenset({seat}), label="tank value"))
        for seat, me in enumerate(state.seats):
            mine = frozenset({seat})
            for t in me.tanks:
                if t.extra_tile:
                    out.append(Secret(value=extra_token(t.name), known_to=mine,
                                      label=f"seat {seat} extra tile"))
            if state.phase == "play":
                out.append(Secret(value=timer_token(seat, me.timer), known_to=frozenset(),
                                  label="recharge timer"))
        # Letters a seat knows privately (hand, setup tiles, offers), unless named in public.
        for letter in ALPHABET:
            if letter in state.named:
                continue
            knowers = frozenset(i for i in (0, 1) if letter in state.seats[i].private_letters)
            if knowers:
                out.append(Secret(value=letter, known_to=knowers, label="private letter"))
        return out

    # ------------------------------------------------------------------ text
    def parse(self, state: DecoderState, seat: int, text: str) -> Command:
        from games.decoder.grammar import parse

        return parse(self, state, seat, text)

    def usage(self, state: DecoderState, seat: int) -> str:
        from games.decoder.grammar import usage

        return usage(self, state, seat)

    # ------------------------------------------------------------------ players
    def random_command(self, state: DecoderState, prompt: Prompt, rng: random.Random) -> Command:
        from games.decoder.bots import random_legal

        return random_legal(self, state, prompt, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        from games.decoder.bots import BOTS

        return BOTS

    # ------------------------------------------------------------------ checks
    def invariants(self, state: DecoderState) -> None:
        seen: set[str] = set()
        for seat, me in enumerate(state.seats):
            assert len(me.hand) == len(set(me.hand)), f"seat {seat} holds a letter twice"
            assert all(ch in ALPHABET for ch in me.hand)
            assert not seen & set(me.hand), "a letter is in both hands"
            seen |= set(me.hand)
            assert not set(me.hand) & set(state.revealed), "a revealed letter is in a hand"
            if me.hand_chosen:
                assert len(me.hand) == HAND_SIZE - me.lost, f"seat {seat} tiles not conserved"
            assert len(me.setup_letters) == len(set(me.setup_letters))
            if me.initial:
                assert len(me.initial) == sum(INITIAL.values())
            assert len(me.extras) <= me.extra_count
            for t in me.tanks:
                assert 1 <= t.units <= rules.MAX_UNITS, f"tank {t.name} at {t.units} units"
                assert t.seconds >= 1
            assert me.unused(), f"seat {seat} has no unused tank"
            assert 0 <= me.bank <= state.settings.time_bank
            assert all(v >= 0 for v in me.items.model_dump().values())
            assert me.timer >= 0
        a, b = state.seats
        assert not set(a.setup_letters) & set(b.setup_letters), "setup tiles shared"
        assert len(state.revealed) == len(set(state.revealed)), "a letter revealed twice"
        assert len(state.used_words) == len(set(state.used_words)), "a word asked twice"
        if state.phase == "play" and state.step == "turn":
            assert state.active is not None and state.seats[state.active].timer == 0
        assert sum(s.lost for s in state.seats) == len(state.revealed)
