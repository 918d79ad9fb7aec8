"""Who must decide what now: the private setup prompts, then the one decision a turn waits for."""

from __future__ import annotations

from games.core.contract import OnTimeout, Prompt
from games.decoder import rules
from games.decoder.events import P
from games.decoder.letters import HAND_SIZE, render_letters
from games.decoder.state import DecoderState
from games.decoder.text import tanks_setup_text

GAME_REMINDERS = (30.0, 15.0, 5.0)
LOSE_TEXT = "if your turn timer and then your time bank run out, you lose the match"


def prompts(state: DecoderState) -> list[Prompt]:
    s = state.settings
    out: list[Prompt] = []
    if state.phase == "tuning":
        for seat in (0, 1):
            if not state.seats[seat].locked:
                out.append(Prompt(
                    key=f"tune.s{seat}", seat=seat, kind="tune", private=True,
                    text=tanks_setup_text(state, seat)
                    + f" Type `set <puzzle> to <seconds>` (any time from the official one up to "
                    f"{s.max_seconds} s; you may change it again until setup is locked), or "
                    f"`ready` to tell the hosts you are done.",
                    time_limit=s.tuning_time, reminders=(60.0, 30.0),
                    on_timeout=OnTimeout.DEFAULT,
                    timeout_text="when setup is locked, your current times stand",
                    choices=("ready",),
                ))
    elif state.phase == "selection":
        # Every player goes through the same two steps with the same clock, whether or not they
        # earned extra tiles: the prompts' kinds, order and clocks tell the opponent nothing.
        for seat in (0, 1):
            me = state.seats[seat]
            if me.rarities is None:
                out.append(_rarity_prompt(state, seat))
            elif not me.hand_chosen:
                out.append(_hand_prompt(state, seat))
    elif state.phase == "play" and state.step is not None and state.active is not None:
        out.append(play_prompt(state))
    return out


def _setup_prompt(state: DecoderState, seat: int, kind: str, text: str, timeout_text: str,
                  choices: tuple[str, ...]) -> Prompt:
    """A letter-selection step. The hand step is quiet: when a player reaches it tells the
    opponent how quickly they made their rarity choice (house ruling: nothing of it shows)."""
    return Prompt(
        key=f"{kind}.s{seat}", seat=seat, kind=kind, private=True, text=text,
        time_limit=max(state.seats[seat].setup_left, 0.0), reminders=(60.0, 30.0, 10.0),
        on_timeout=OnTimeout.DEFAULT, timeout_text=timeout_text, choices=choices[:25],
        quiet=kind == "hand",
    )


def _rarity_prompt(state: DecoderState, seat: int) -> Prompt:
    me = state.seats[seat]
    options = rules.rarity_options(me.extra_count)
    first = rules.describe_rarities(options[0])
    if me.extra_count:
        text = (f"Your tiles: {render_letters(me.initial)}. You earned {me.extra_count} extra "
                f"tile(s). Choose their rarities (at most 3 common, 3 uncommon, 1 rare), "
                f"e.g. `{first}`.")
        timeout = f"you get {first}, and the first {HAND_SIZE} of your tiles as your hand"
    else:
        text = (f"Your tiles: {render_letters(me.initial)}. You earned no extra tiles: type "
                f"`none` to go on to your hand.")
        timeout = "you keep these tiles as your hand"
    return _setup_prompt(state, seat, "rarity", text, timeout,
                         tuple(rules.describe_rarities(o) for o in options))


def _hand_prompt(state: DecoderState, seat: int) -> Prompt:
    tiles = state.seats[seat].setup_letters
    if len(tiles) == HAND_SIZE:
        text = (f"Your tiles: {render_letters(tiles)}. You keep all {HAND_SIZE}: type "
                f"`keep all`.")
        choices: tuple[str, ...] = ("keep all",)
    else:
        text = (f"Your tiles: {render_letters(tiles)}. Keep {HAND_SIZE}: type "
                f"`keep <six letters>` or `drop <letters>`.")
        choices = tuple(f"drop {ch}" for ch in tiles) if len(tiles) == HAND_SIZE + 1 else ()
    return _setup_prompt(state, seat, "hand", text,
                         f"you keep {render_letters(tiles[:HAND_SIZE])}", choices)


def time_left(state: DecoderState, seat: int) -> float:
    """What is left of the seat's budget for this turn before its bank runs (a part of a bank
    step already charged counts as time left)."""
    me = state.seats[seat]
    budget = rules.turn_budget(state.settings, seat == state.active)
    return max(0.0, budget - me.turn_used + me.turn_charged)


def play_prompt(state: DecoderState) -> Prompt:
    """The decision the current turn waits for: the active player's, or their opponent's."""
    s = state.settings
    active = state.active
    assert active is not None and state.step is not None
    step = state.step
    seat = active if step in ("turn", "give_up") else 1 - active
    me = state.seats[seat]
    limit = time_left(state, seat)
    cur = state.current
    us = " You may add `unexpected sabotage`." if me.items.unexpected_sabotage else ""
    private = False
    choices: tuple[str, ...] = ()
    brief = ""
    if step == "turn":
        unused = me.unused()
        brief = (f"your turn. Unused tanks: {', '.join(t.name for t in unused)}: use <tank> "
                 "ask | guess | restore.")
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
            brief += " + " + " or ".join(extras) + "."
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
                f"Type `unexpected sabotage` or `pass` (no answer in time is a pass).")
        choices = ("unexpected sabotage", "pass")
        # Offered, never required: it runs on the rest of this turn's budget, without the bank.
        return Prompt(
            key=f"t{state.turn}.{step}.s{seat}", seat=seat, kind=step, private=False, text=text,
            time_limit=limit, reminders=GAME_REMINDERS, on_timeout=OnTimeout.DEFAULT,
            timeout_text="you pass", choices=choices, fix_seconds=s.fix_seconds,
        )
    return Prompt(
        key=f"t{state.turn}.{step}.s{seat}", seat=seat, kind=step, private=private, text=text,
        brief=brief, time_limit=limit, bank=float(me.bank), bank_step=float(s.bank_step),
        reminders=GAME_REMINDERS, bank_reminder_every=30.0, on_timeout=OnTimeout.LOSE,
        timeout_text=LOSE_TEXT, choices=choices[:25],
        # the prompt fix is for moves typed in the room; a private swap is taken at once
        fix_seconds=0.0 if private else s.fix_seconds,
    )


def pending(state: DecoderState, seat: int) -> Prompt | None:
    """The seat's pending prompt, if any (a seat never has two at once)."""
    return next((p for p in prompts(state) if p.seat == seat), None)


def by_key(state: DecoderState, key: str) -> Prompt | None:
    """The pending prompt with this key: a timeout for any other is stale."""
    return next((p for p in prompts(state) if p.key == key), None)
