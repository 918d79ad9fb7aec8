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
            if not state.seats[seat].ready:
                out.append(Prompt(
                    key=f"tune.s{seat}", seat=seat, kind="tune", private=True,
                    text=tanks_setup_text(state, seat)
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
        out.append(play_prompt(state))
    return out


def play_prompt(state: DecoderState) -> Prompt:
    """The decision the current turn waits for: the active player's, or their opponent's."""
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


def pending(state: DecoderState, seat: int) -> Prompt | None:
    """The seat's pending prompt, if any (a seat never has two at once)."""
    return next((p for p in prompts(state) if p.seat == seat), None)


def by_key(state: DecoderState, key: str) -> Prompt | None:
    """The pending prompt with this key: a timeout for any other is stale."""
    return next((p for p in prompts(state) if p.key == key), None)
