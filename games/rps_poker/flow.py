"""The match flow of Turn-based RPS Poker: the automatic steps between decisions.

Each function mutates the state and appends the events it causes to `ev`. A choice (a kept
draft card, a played card) stays hidden until both seats have chosen; then the draft round
or the game resolves, and the next one is dealt. `APPLY` (one per command) and `TIMEOUTS`
(one per decision kind) are the engine's tables.
"""

from __future__ import annotations

from games.core.contract import (
    ApplyHandler,
    Audience,
    Event,
    Prompt,
    TimeoutHandler,
    say,
    seat_name,
)
from games.rps_poker import rules, text
from games.rps_poker.cards import render
from games.rps_poker.commands import Keep, Play
from games.rps_poker.state import DraftRound, GameRecord, Phase, RpsState

UMPIRE = Audience.umpire()


def options(state: RpsState, seat: int) -> list[str]:
    """The cards `seat` chooses among now, in the order positions refer to."""
    if state.phase == Phase.DRAFT:
        return list(state.offers[seat])
    if state.phase == Phase.MAIN:
        return list(state.hand[seat])
    return []


def prompt_key(state: RpsState, seat: int) -> str:
    if state.phase == Phase.DRAFT:
        return f"draft{state.draft_round + 1}-seat{seat}"
    return f"game{len(state.history) + 1}-seat{seat}"


# --- a choice ----------------------------------------------------------------------------------
def apply_choice(state: RpsState, seat: int, c: Keep | Play, ev: list[Event]) -> None:
    choose(state, seat, c.card, ev)


def choice_timeout(state: RpsState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """The bot chooses uniformly at random (from the match's Chance) for the player."""
    opts = options(state, seat)
    card = opts[state.chance.below(len(opts))]
    state.timed_out[seat] = True
    verb = "keeps" if state.phase == Phase.DRAFT else "plays"
    say(ev, "timeout", f"Time ran out for {seat_name(seat)}: the bot chose at random for them.",
        seat=seat, prompt=prompt.key)
    say(ev, "timeout.choice", f"Time ran out: the bot chose {render(card)} for you at random.",
        Audience.to(seat), card=card)
    say(ev, "timeout.choice", f"Timeout: {seat_name(seat)} {verb} {card} (chosen at random).",
        UMPIRE, seat=seat, card=card)
    choose(state, seat, card, ev)


def choose(state: RpsState, seat: int, card: str, ev: list[Event]) -> None:
    """`seat`'s (first, final) choice; once both have chosen, the round or game resolves."""
    state.pending[seat] = card
    if state.phase == Phase.DRAFT:
        draft_submitted(state, seat, card, ev)
    else:
        play_submitted(state, seat, card, ev)
    if state.pending[0] is not None and state.pending[1] is not None:
        if state.phase == Phase.DRAFT:
            resolve_draft(state, ev)
        else:
            resolve_game(state, ev)


# --- draft -------------------------------------------------------------------------------------
def deal_draft(state: RpsState) -> None:
    offer0, offer1 = rules.draft_offers(state.undealt, 0)
    del state.undealt[:2 * rules.DRAFT_DEAL]
    state.offers = [list(offer0), list(offer1)]


def draft_dealt(state: RpsState, ev: list[Event]) -> None:
    r = state.draft_round + 1
    say(ev, "draft.dealt", text.draft_dealt_public(r), round=r)
    for seat in (0, 1):
        say(ev, "draft.dealt", text.draft_dealt_private(r, seat, state.offers[seat]),
            Audience.to(seat), round=r, cards=list(state.offers[seat]))
    say(ev, "draft.dealt", f"Draft round {r}: {seat_name(0)} is given "
        f"{' '.join(state.offers[0])}, {seat_name(1)} is given {' '.join(state.offers[1])}.",
        UMPIRE, round=r, offers=[list(o) for o in state.offers])


def draft_submitted(state: RpsState, seat: int, card: str, ev: list[Event]) -> None:
    offer = state.offers[seat]
    passed = offer[1 - offer.index(card)]
    say(ev, "draft.chosen", f"{seat_name(seat)} has chosen.", seat=seat)
    say(ev, "draft.chosen", f"You keep {render(card)}; {render(passed)} will go to "
        f"{seat_name(1 - seat)}.", Audience.to(seat), kept=card, passed=passed)
    say(ev, "draft.chosen", f"{seat_name(seat)} keeps {card} and passes {passed}.", UMPIRE,
        seat=seat, kept=card, passed=passed)


def resolve_draft(state: RpsState, ev: list[Event]) -> None:
    r = state.draft_round + 1
    kept, passed = [], []
    for seat in (0, 1):
        offer, pick = state.offers[seat], state.pending[seat]
        assert pick is not None  # (the draft resolves once both seats picked)
        k, p = rules.draft_pass(offer, offer.index(pick))
        kept.append(k)
        passed.append(p)
    state.drafts.append(DraftRound(offers=[list(o) for o in state.offers], kept=kept,
                                   timed_out=list(state.timed_out)))
    say(ev, "draft.passed", f"Draft round {r} of {rules.DRAFT_ROUNDS}: both players keep a "
        "card and pass the other.", round=r)
    for seat in (0, 1):
        state.kept[seat].append(kept[seat])
        state.received[1 - seat].append(passed[seat])
    for seat in (0, 1):
        say(ev, "draft.passed", f"Round {r}: you keep {render(kept[seat])} and pass "
            f"{render(passed[seat])}; {seat_name(1 - seat)} passes you "
            f"{render(passed[1 - seat])}.", Audience.to(seat),
            round=r, kept=kept[seat], passed=passed[seat], received=passed[1 - seat])
    state.offers = [[], []]
    state.pending = [None, None]
    state.timed_out = [False, False]
    state.draft_round += 1
    if state.draft_round < rules.DRAFT_ROUNDS:
        deal_draft(state)
        draft_dealt(state, ev)
        return
    start_main(state, ev)


# --- main phase --------------------------------------------------------------------------------
def start_main(state: RpsState, ev: list[Event]) -> None:
    state.phase = Phase.MAIN
    decks = [state.kept[s] + state.received[s] for s in (0, 1)]
    remaining = list(state.undealt)  # after five rounds: the ten undrafted cards
    state.undealt = []
    hand0, hand1 = rules.start_main(decks[0], decks[1], remaining, state.chance.shuffle)
    state.draw_pile, state.hand, state.remaining = decks, [hand0, hand1], remaining
    say(ev, "main.start", "The draft is over. Each player's deck and the remaining deck are "
        "shuffled, and each player draws three cards.", remaining=len(remaining))
    for seat in (0, 1):
        say(ev, "main.hand", f"Your deck: "
            f"{text.render_all(sorted(state.kept[seat] + state.received[seat]))}. "
            f"You draw {text.render_all(state.hand[seat])}.", Audience.to(seat),
            hand=list(state.hand[seat]))
    say(ev, "main.hand", f"Hands: {seat_name(0)} {' '.join(hand0)}, {seat_name(1)} "
        f"{' '.join(hand1)}. Base cards in order: {' '.join(remaining)}.", UMPIRE,
        hands=[hand0, hand1], remaining=list(remaining))
    next_game(state, ev)


def next_game(state: RpsState, ev: list[Event]) -> None:
    state.base = state.remaining.pop(0)
    n = len(state.history) + 1
    say(ev, "game.base", f"Game {n} of {rules.GAMES}: the base card is {render(state.base)}.",
        game=n, base=state.base)
    if state.settings.auto_play_last_card and all(len(h) == 1 for h in state.hand):
        state.pending = [state.hand[0][0], state.hand[1][0]]
        resolve_game(state, ev, auto=True)


def play_submitted(state: RpsState, seat: int, card: str, ev: list[Event]) -> None:
    say(ev, "game.chosen", f"{seat_name(seat)} has chosen.", seat=seat)
    say(ev, "game.chosen", f"You play {render(card)}; it is revealed when both have chosen.",
        Audience.to(seat), card=card)
    say(ev, "game.chosen", f"{seat_name(seat)} plays {card}.", UMPIRE, seat=seat, card=card)


def resolve_game(state: RpsState, ev: list[Event], auto: bool = False) -> None:
    play0, play1 = state.pending
    assert play0 is not None and play1 is not None and state.base is not None
    plays = [play0, play1]
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
    if auto:
        say(ev, "game.auto", "Each player has one card left; both are played.", game=n)
    say(ev, "game.result", text.game_result(n, base, plays, winner, reason, state.score),
        game=n, base=base, plays=plays, winner=winner, reason=reason, score=list(state.score))
    for seat in (0, 1):
        before = len(state.hand[seat])
        rules.draw(state.draw_pile[seat], state.hand[seat])
        if len(state.hand[seat]) > before:
            card = state.hand[seat][-1]
            say(ev, "game.draw", f"You draw {render(card)}. Your hand: "
                f"{text.render_all(state.hand[seat])}.", Audience.to(seat),
                card=card, hand=list(state.hand[seat]))
    if n < rules.GAMES:
        next_game(state, ev)
        return
    state.phase = Phase.OVER
    winner_of_match = rules.match_winner(*state.score)
    say(ev, "match.over", text.match_result(state.score, winner_of_match),
        score=list(state.score), winner=winner_of_match)


# --- the engine's tables -------------------------------------------------------------------------
APPLY: dict[str, ApplyHandler] = {"keep": apply_choice, "play": apply_choice}
TIMEOUTS: dict[str, TimeoutHandler] = {"draft_pick": choice_timeout, "play": choice_timeout}
