"""Prompts, events, views and secrets of the engine."""

from __future__ import annotations

from games.core import OnTimeout
from games.rps_poker import GAME
from games.rps_poker.cards import render
from tests.support.games.rps_poker import first_pick_all, new_match


def test_opening_deals_privately_and_prompts_both_players_at_once() -> None:
    state = new_match("open")
    events = GAME.opening_events(state)
    public = [e for e in events if e.audience.kind == "public"]
    assert [e.text for e in public] == ["Draft round 1 of 5: each player is given two cards."]
    for seat in (0, 1):
        mine = [e for e in events if e.audience.kind == "seat" and e.audience.seat == seat]
        assert mine[0].data["cards"] == state.offers[seat]
    prompts = GAME.prompts(state)
    assert [(p.key, p.seat, p.kind, p.private) for p in prompts] == [
        ("draft1-seat0", 0, "draft_pick", True), ("draft1-seat1", 1, "draft_pick", True)]
    p = prompts[0]
    assert p.time_limit == 30 and p.on_timeout == OnTimeout.DEFAULT and not p.resubmittable
    assert p.choices == tuple(f"keep {render(c)}" for c in state.offers[0])
    for choice in p.choices:
        assert GAME.parse(state, 0, choice).card in state.offers[0]


def test_plays_are_revealed_together() -> None:
    state = new_match("reveal")
    for _ in range(5):
        first_pick_all(state)
    card = state.hand[0][0]
    events = GAME.submit(state, 0, GAME.parse(state, 0, "1"))
    public = [e.text for e in events if e.audience.kind == "public"]
    assert public == ["{P0} has chosen."]
    events = GAME.submit(state, 1, GAME.parse(state, 1, "1"))
    result = [e for e in events if e.kind == "game.result"][0]
    assert result.audience.kind == "public" and result.data["plays"][0] == card
    assert render(card) in result.text


def test_view_has_deck_hand_known_opponent_cards_and_history() -> None:
    state = new_match("view")
    for _ in range(5):
        first_pick_all(state)
    first_pick_all(state)
    v = GAME.view(state, 0)
    assert sorted(v.deck) == sorted(state.kept[0] + state.received[0])
    assert v.hand == state.hand[0] and len(v.draw_pile) == 6
    assert v.opponent_known == state.received[1]
    assert len(v.drafts) == 5 and v.games[0].hand and v.score == state.score
    spectator = GAME.view(state, None)
    assert spectator.hand == [] and spectator.deck == [] and spectator.games[0].hand == []
    assert spectator.games[0].plays == v.games[0].plays


def test_secrets_cover_undealt_cards_and_each_players_kept_cards() -> None:
    state = new_match("secret")
    secrets = {s.value: s.known_to for s in GAME.secrets(state)}
    for card in state.undealt:
        assert secrets[card if card not in ("P0", "P1") else f'"{card}"'] == frozenset()
        assert secrets[render(card)] == frozenset()
    for seat in (0, 1):
        for card in state.offers[seat]:
            assert secrets[render(card)] == frozenset({seat})


def test_state_survives_json_round_trip_mid_match() -> None:
    state = new_match("json")
    for _ in range(7):
        first_pick_all(state)
    GAME.submit(state, 0, GAME.parse(state, 0, "#2"))
    dumped = state.model_dump_json()
    assert GAME.load_state(dumped).model_dump_json() == dumped


def test_auto_play_last_card_setting() -> None:
    auto = new_match("auto")
    manual = new_match("auto", auto_play_last_card=False)
    for _ in range(14):
        first_pick_all(auto)
        first_pick_all(manual)
    assert auto.phase == "over" and auto.history[-1].auto
    assert manual.phase == "main" and len(manual.history) == 9
    assert [p.kind for p in GAME.prompts(manual)] == ["play", "play"]
    first_pick_all(manual)
    assert manual.score == auto.score
