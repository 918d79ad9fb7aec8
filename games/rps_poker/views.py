"""What a seat (or a spectator) may know: the input of every bot."""

from __future__ import annotations

from pydantic import BaseModel, Field

from games.rps_poker.cards import render_all
from games.rps_poker.state import Phase, RpsState


class DraftSeen(BaseModel):
    """A resolved draft round as this seat saw it."""

    round: int  # 1..5
    offer: list[str]  # the two cards this seat was given
    kept: str
    passed: str  # the card this seat gave the opponent
    received: str  # the card the opponent gave this seat


class GameSeen(BaseModel):
    """A resolved game; `hand` (this seat's hand when it played) only in a seat's view."""

    number: int
    base: str
    plays: list[str]
    winner: int
    reason: str
    hand: list[str] = Field(default_factory=list)


class RpsView(BaseModel):
    seat: int | None
    phase: str
    draft_round: int  # 1..5 while drafting (the current round), 5 afterwards
    game_number: int  # the current game (1..10) in the main phase, else 0 or 10 at the end
    score: list[int]
    base: str | None  # the current base card
    bases_seen: list[str]  # every base card shown so far, in order (current one last)
    games: list[GameSeen]
    submitted: list[bool]  # who has already chosen in the current round
    hand_sizes: list[int]
    draw_pile_sizes: list[int]
    remaining_count: int  # undrawn base cards
    # only in a seat's own view
    offer: list[str] = Field(default_factory=list)  # current draft pair
    pending: str | None = None  # my submitted choice, not yet revealed
    drafts: list[DraftSeen] = Field(default_factory=list)
    kept: list[str] = Field(default_factory=list)
    received: list[str] = Field(default_factory=list)
    deck: list[str] = Field(default_factory=list)  # my 10 cards: kept + received
    opponent_known: list[str] = Field(default_factory=list)  # the cards I passed them
    opponent_known_unplayed: list[str] = Field(default_factory=list)
    hand: list[str] = Field(default_factory=list)
    draw_pile: list[str] = Field(default_factory=list)  # my undrawn cards, sorted (order unknown)


def build_view(state: RpsState, seat: int | None) -> RpsView:
    bases = [g.base for g in state.history] + ([state.base] if state.base else [])
    main = state.phase != Phase.DRAFT
    view = RpsView(
        seat=seat,
        phase=state.phase.value,
        draft_round=min(state.draft_round + 1, 5) if state.phase == Phase.DRAFT else 5,
        game_number=(len(state.history) + (1 if state.phase == Phase.MAIN else 0)) if main else 0,
        score=list(state.score),
        base=state.base,
        bases_seen=bases,
        games=[
            GameSeen(number=g.number, base=g.base, plays=list(g.plays), winner=g.winner,
                     reason=g.reason, hand=list(g.hands[seat]) if seat is not None else [])
            for g in state.history
        ],
        submitted=[p is not None for p in state.pending],
        hand_sizes=[len(h) for h in state.hand],
        draw_pile_sizes=[len(d) for d in state.draw_pile],
        remaining_count=len(state.remaining),
    )
    if seat is None:
        return view
    other = 1 - seat
    played_by_other = {g.plays[other] for g in state.history}
    passed = [d.offers[seat][1 - d.offers[seat].index(d.kept[seat])] for d in state.drafts]
    view.offer = list(state.offers[seat]) if state.phase == Phase.DRAFT else []
    view.pending = state.pending[seat]
    view.drafts = [
        DraftSeen(round=i + 1, offer=list(d.offers[seat]), kept=d.kept[seat], passed=p,
                  received=d.offers[other][1 - d.offers[other].index(d.kept[other])])
        for i, (d, p) in enumerate(zip(state.drafts, passed, strict=True))
    ]
    view.kept = list(state.kept[seat])
    view.received = list(state.received[seat])
    view.deck = view.kept + view.received
    view.opponent_known = passed
    view.opponent_known_unplayed = [c for c in passed if c not in played_by_other]
    view.hand = list(state.hand[seat])
    view.draw_pile = sorted(state.draw_pile[seat])
    return view


def describe_view(view: RpsView) -> str:
    """The view as sentences for a player who asks (`/view`, `/mine`); {P0}/{P1} are names."""
    def cards(items: list[str]) -> str:
        return render_all(items, ", ") if items else "none"

    me = view.seat
    who = ["{P0}", "{P1}"]
    lines: list[str] = []
    score = f"{who[0]} {view.score[0]}, {who[1]} {view.score[1]}"
    if view.phase == "draft":
        lines.append(f"Draft round {view.draft_round} of 5.")
    elif view.phase == "main":
        lines.append(f"Game {view.game_number} of 10; the base card is "
                     f"{cards([view.base] if view.base else [])}. Score: {score}.")
    else:
        lines.append(f"The match is over. Final score: {score}.")
    if me is not None:
        them = who[1 - me]
        if view.offer:
            lines.append(f"You are given {cards(view.offer)}: keep one, the other goes to {them}.")
        if view.pending:
            lines.append(f"You have chosen {cards([view.pending])} (not revealed yet).")
        if view.kept or view.received:
            lines.append(f"You kept {cards(view.kept)}; {them} passed you {cards(view.received)}.")
        if view.hand:
            lines.append(f"Your hand: {cards(view.hand)}.")
        if view.draw_pile:
            lines.append(f"Still to draw (in an order you do not know): {cards(view.draw_pile)}.")
        if view.opponent_known:
            lines.append(f"You passed {them} {cards(view.opponent_known)}; not played yet: "
                         f"{cards(view.opponent_known_unplayed)}.")
    else:
        lines.append(f"Cards in hand: {who[0]} {view.hand_sizes[0]}, {who[1]} "
                     f"{view.hand_sizes[1]}.")
    for g in view.games:
        mine = f" (your hand: {cards(g.hand)})" if g.hand else ""
        lines.append(f"Game {g.number}: base {cards([g.base])}; {who[0]} played "
                     f"{cards([g.plays[0]])}, {who[1]} played {cards([g.plays[1]])}: "
                     f"{who[g.winner]} won ({g.reason}){mine}.")
    return "\n".join(lines)
