"""What each seat (or a spectator) may know: the model bots decide from and the runtime shows."""

from __future__ import annotations

from pydantic import BaseModel, Field

from games.core.contract import seat_name
from games.decoder.letters import render_letters
from games.decoder.settings import Items
from games.decoder.state import DecoderState, Offer, TurnRecord
from games.decoder.text import extra_token, seconds_text, tank_token


class TankView(BaseModel):
    name: str
    used: bool
    units: int | None = None  # owner only
    seconds: int | None = None  # owner only
    official: int | None = None  # owner only: the lowest time the owner may set
    extra_tile: bool | None = None  # owner only
    label: str  # "Arithmetic Box: 5 units (unused)" for the owner, "Arithmetic Box (unused)" else


class PlayerView(BaseModel):
    """What everyone knows about a player."""

    seat: int
    bank: int  # seconds left in the time bank (public)
    items: Items  # granted by the host at setup, public; counts go down as they are played
    hand_size: int | None  # None before hands are chosen
    tanks: list[TankView]
    ready: bool
    hand_chosen: bool


class DecoderView(BaseModel):
    seat: int | None
    phase: str
    puzzles: list[str]
    word_list: str | None
    max_seconds: int  # players may raise their puzzle times up to this
    turn: int
    active: int | None
    step: str | None
    players: list[PlayerView]
    revealed: list[str]
    used_words: list[str]
    history: list[TurnRecord]
    # --- the seat's own secrets (empty for spectators and the other seat)
    hand: list[str] = Field(default_factory=list)
    initial_tiles: list[str] = Field(default_factory=list)
    extra_tiles: list[str] = Field(default_factory=list)
    extra_count: int | None = None
    extra_tile_tanks: list[str] = Field(default_factory=list)  # "extra tile from <tank>" lines
    offers: list[Offer] = Field(default_factory=list)
    fills: dict[int, int] = Field(default_factory=dict)  # my turn number -> units my timer got
    setup_seconds_left: float | None = None
    winner: int | None = None
    reason: str = ""


def _tank_views(state: DecoderState, owner: int, viewer: int | None) -> list[TankView]:
    out = []
    for t in state.seats[owner].tanks:
        status = "used" if t.used else "unused"
        if viewer == owner:
            out.append(TankView(name=t.name, used=t.used, units=t.units, seconds=t.seconds,
                                official=t.official if t.official is not None else t.seconds,
                                extra_tile=t.extra_tile,
                                label=f"{tank_token(owner, t.name, t.units)} ({status})"))
        else:
            out.append(TankView(name=t.name, used=t.used, label=f"{t.name} ({status})"))
    return out


def build_view(state: DecoderState, seat: int | None) -> DecoderView:
    players = [
        PlayerView(seat=i, bank=s.bank, items=s.items.model_copy(),
                   hand_size=len(s.hand) if s.hand_chosen else None,
                   tanks=_tank_views(state, i, seat), ready=s.ready, hand_chosen=s.hand_chosen)
        for i, s in enumerate(state.seats)
    ]
    view = DecoderView(
        seat=seat, phase=state.phase, puzzles=list(state.settings.puzzles),
        word_list=state.settings.word_list, max_seconds=state.settings.max_seconds,
        turn=state.turn, active=state.active, step=state.step,
        players=players, revealed=list(state.revealed), used_words=list(state.used_words),
        history=list(state.history),
        winner=state.winner, reason=state.reason,
    )
    if seat is not None:
        me = state.seats[seat]
        view.hand = list(me.hand)
        view.initial_tiles = list(me.initial)
        view.extra_tiles = list(me.extras)
        view.extra_count = me.extra_count if state.phase != "tuning" else None
        view.extra_tile_tanks = [extra_token(t.name) for t in me.tanks if t.extra_tile]
        view.offers = list(me.offers)
        view.fills = dict(me.fills)
        view.setup_seconds_left = me.setup_left if state.phase == "selection" else None
    return view


def describe(view: DecoderView, seat: int | None) -> str:
    """For a player: their hand and their tanks (used/unused, with recharge times, as the
    seed lets them ask any time); for everyone: banks, hand sizes, revealed letters."""
    lines: list[str] = []
    if seat is not None:
        if view.hand:
            lines.append(f"Your hand: {render_letters(view.hand)}")
        lines.append("Your tanks: " + "; ".join(t.label for t in view.players[seat].tanks))
    for pv in view.players:
        tiles = "not chosen yet" if pv.hand_size is None else f"{pv.hand_size} tiles"
        lines.append(f"{seat_name(pv.seat)}: time bank {pv.bank} s, hand {tiles}.")
    if view.revealed:
        lines.append("Revealed letters: " + ", ".join(view.revealed))
    if view.used_words:
        lines.append("Used words: " + ", ".join(view.used_words))
    return "\n".join(lines)


def status_line(state: DecoderState) -> str | None:
    """Both time banks during the play (public: each bank is announced as it is charged)."""
    if state.phase != "play":
        return None
    banks = " · ".join(f"{seat_name(i)} {seconds_text(s.bank)}" for i, s in enumerate(state.seats))
    return f"⏳ Time banks: {banks}"
