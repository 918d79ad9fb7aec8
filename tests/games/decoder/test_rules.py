"""The seed's rules and worked examples, as pure functions and through the engine."""

from __future__ import annotations

import pytest

from games.core.contract import IllegalMove, Timeout
from games.decoder import GAME, rules
from games.decoder.commands import ChooseClue, GuessTotal, RaiseTime, Ready, SabotageTank, TakeTurn
from games.decoder.letters import ALPHABET, COMMON, RARE, UNCOMMON
from tests.support.games.decoder import (
    EVEN,
    ask,
    pass_turn,
    set_hands,
    settings,
    started,
    submit,
    texts,
)


# --- Regarding timer tanks --------------------------------------------------------------
def test_57_seconds_is_5_units() -> None:
    assert rules.recharge_units(57) == 5


@pytest.mark.parametrize(("seconds", "units"), [(1, 1), (9, 1), (10, 1), (19, 1), (20, 2),
                                                (70, 7), (299, 29), (300, 30), (400, 30)])
def test_units_round_down_under_10_is_1_at_most_30(seconds: int, units: int) -> None:
    assert rules.recharge_units(seconds) == units


def test_puzzle_times_any_value_from_the_official_time_up_to_300_until_the_host_locks() -> None:
    """Ruling: until the host locks setup a player may set each of their times to any value
    from the official time up to 300 s, as often as they like (raising, then lowering again);
    "ready" is a signal to the host and locks nothing."""
    times = [[57, 100, 100, 100, 100, 100, 100], [100] * 7]
    state = GAME.setup(settings(times), "raise")
    submit(state, 0, RaiseTime(puzzle="Arithmetic Box", seconds=150))
    assert state.seats[0].tank("Arithmetic Box").units == 15
    submit(state, 0, RaiseTime(puzzle="Arithmetic Box", seconds=80))  # lowered again
    assert state.seats[0].tank("Arithmetic Box").units == 8
    with pytest.raises(IllegalMove, match="official 57 s up to 300 s"):
        GAME.check(state, 0, RaiseTime(puzzle="Arithmetic Box", seconds=56))
    with pytest.raises(IllegalMove, match="up to 300 s"):
        GAME.check(state, 0, RaiseTime(puzzle="Gear Train", seconds=301))
    submit(state, 0, Ready())
    submit(state, 0, RaiseTime(puzzle="Arithmetic Box", seconds=57))  # ready locked nothing
    submit(state, 0, RaiseTime(puzzle="Cipher Wheel", seconds=300))
    assert state.seats[0].tank("Arithmetic Box").units == 5
    assert state.phase == "tuning"
    for p in GAME.prompts(state):  # the host locks setup: every tuning prompt times out
        submit(state, p.seat, Timeout(prompt_key=p.key))
    assert state.phase == "selection"
    with pytest.raises(IllegalMove):
        GAME.check(state, 0, RaiseTime(puzzle="Gear Train", seconds=200))
    assert state.seats[0].tank("Cipher Wheel").units == 30


def test_ready_from_both_players_locks_setup_unless_the_host_keeps_it() -> None:
    state = GAME.setup(settings(), "both-ready")
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    assert state.phase == "selection"
    state = GAME.setup(settings(lock_when_ready=False), "host-only")
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    assert state.phase == "tuning" and len(GAME.prompts(state)) == 2
    submit(state, 1, RaiseTime(puzzle="Gear Train", seconds=120))


# --- Selecting letter tiles -------------------------------------------------------------
def test_5_vs_7_units_gives_the_extra_tile() -> None:
    assert rules.earns_extra_tile(5, 7)
    assert not rules.earns_extra_tile(7, 5)


def test_57_vs_70_seconds_compares_units_not_seconds() -> None:
    assert not 57 < 0.75 * 70  # the seconds alone would not earn it
    times = [[57, 100, 100, 100, 100, 100, 100], [70, 100, 100, 100, 100, 100, 100]]
    state = GAME.setup(settings(times), "57v70")
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    assert state.seats[0].tank("Arithmetic Box").extra_tile
    assert state.seats[0].extra_count == 1
    assert state.seats[1].extra_count == 0


@pytest.mark.parametrize(("mine", "theirs", "earns"), [(6, 8, False), (5, 8, True), (7, 7, False),
                                                       (1, 1, False), (1, 2, True), (22, 30, True),
                                                       (23, 30, False)])
def test_strictly_below_75_percent(mine: int, theirs: int, earns: bool) -> None:
    assert rules.earns_extra_tile(mine, theirs) is earns


def test_rarities_initial_deal_and_no_shared_tile() -> None:
    state = GAME.setup(settings([[20] * 7, [100] * 7]), "deal")  # seat 0 earns 7 extras
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    a, b = state.seats
    for me in (a, b):
        assert sum(ch in COMMON for ch in me.initial) == 3
        assert sum(ch in UNCOMMON for ch in me.initial) == 2
        assert sum(ch in RARE for ch in me.initial) == 1
    assert a.extra_count == 7 and b.extra_count == 0
    assert rules.rarity_options(7) == [(3, 3, 1)]
    from games.decoder.commands import ChooseHand, ChooseRarities
    with pytest.raises(Exception, match="at most 3 common"):
        GAME.check(state, 0, ChooseRarities(common=4, uncommon=2, rare=1))
    submit(state, 0, ChooseRarities(common=3, uncommon=3, rare=1))
    assert len(a.extras) == 7 and not set(a.setup_letters) & set(b.setup_letters)
    assert len(set(a.setup_letters) | set(b.setup_letters)) == 19
    submit(state, 0, ChooseHand(letters=tuple(a.extras[:6])))
    assert a.hand == sorted(a.extras[:6])
    assert state.phase == "selection"  # seat 1 (no extra tile) goes through the same steps
    submit(state, 1, ChooseRarities())
    submit(state, 1, ChooseHand(letters=tuple(b.initial)))
    assert state.phase == "play" and b.hand == b.initial


def test_rarity_options_offer_order_and_caps() -> None:
    assert rules.rarity_options(1) == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    assert rules.rarity_options(2) == [(2, 0, 0), (1, 1, 0), (1, 0, 1), (0, 2, 0), (0, 1, 1)]
    assert all(c <= 3 and u <= 3 and r <= 1 for c, u, r in rules.rarity_options(5))


def test_extra_tiles_are_told_only_to_their_owner() -> None:
    times = [[57, 100, 100, 100, 100, 100, 100], [70, 100, 100, 100, 100, 100, 100]]
    state = GAME.setup(settings(times), "info")
    submit(state, 0, Ready())
    events = submit(state, 1, Ready())
    assert "extra tile from Arithmetic Box" in texts(events, "seat0")
    assert "extra tile from" not in texts(events, "seat1") + texts(events, "public")


# --- Ask a word -------------------------------------------------------------------------
def test_decoder_against_abcdef_counts_5() -> None:
    assert rules.clue_count("DECODER", "ABCDEF") == 5
    assert rules.clue_answer("TWO", 5) is False
    assert rules.clue_answer("ODD", 5) is True
    assert rules.clue_answer("ANY", 5) is True


@pytest.mark.parametrize(("clue", "answer"), [("TWO", "NO"), ("ODD", "YES")])
def test_decoder_example_through_the_engine(clue: str, answer: str) -> None:
    state = started()
    set_hands(state, "GHIJKL", "ABCDEF")
    events = ask(state, 0, "Arithmetic Box", "DECODER", "ANY")
    with pytest.raises(Exception, match="answer `ODD` or `TWO`"):
        GAME.check(state, 1, ChooseClue(clue="ANY"))
    events = submit(state, 1, ChooseClue(clue=clue))
    assert f"gives {clue} for DECODER: {answer}" in texts(events)
    assert state.history[0].answers[0].answer is (answer == "YES")


def test_word_rules_length_list_and_used_once() -> None:
    state = started()
    bad = {"QI": "2 letters", "ABCDEFGHIJKLMNOP": "16 letters", "ZZZQX": "not in the word list",
           "DE-CODE": "letters A-Z only"}
    for word, why in bad.items():
        with pytest.raises(Exception, match=why):
            GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word=word, exclude="ANY"))
    ask(state, 0, "Arithmetic Box", "QIS", "ANY", clue="ODD")
    seat = state.active
    with pytest.raises(Exception, match="already asked"):
        GAME.check(state, seat, TakeTurn(tank="Bijective Matrix", action="ask", word="qis",
                                         exclude="ODD"))


# --- Guess a tile -----------------------------------------------------------------------
def test_correct_guess_removes_the_letter_and_the_last_one_wins() -> None:
    state = started()
    set_hands(state, "GHIJKL", "A")
    state.seats[1].lost = 5
    events = submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="A"))
    assert "correct" in texts(events)
    assert state.phase == "over" and GAME.outcome(state).winner == 0
    assert state.revealed == ["A"]


def test_wrong_guess_give_up_is_revealed_and_opponent_is_offered_a_qualifying_letter() -> None:
    from games.decoder.commands import GiveUp, Swap
    state = started(seed="comp")
    set_hands(state, "ABCDEF", "GHIJKL")
    state.seats[0].extras = ["M"]  # seen by seat 0 at setup (not kept)
    events = submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z"))
    assert "wrong" in texts(events) and state.step == "give_up"
    events = submit(state, 0, GiveUp(letter="B"))
    assert state.revealed == ["B"] and state.seats[0].hand == list("ACDEF")
    offer = state.seats[1].offers[-1].letter
    banned = set("ABCDEF") | set("GHIJKL") | {"M"}
    assert offer is not None and offer not in banned
    assert offer in texts(events, "seat1") and offer not in texts(events, "public").split()
    assert "compensation" in texts(events).lower() and state.step == "swap"
    prompt = GAME.prompts(state)[0]
    assert prompt.private and prompt.seat == 1
    submit(state, 1, Swap(give="G"))
    assert sorted(state.seats[1].hand) == sorted(set("HIJKL") | {offer})


def test_compensation_conditions() -> None:
    got = rules.compensation_letters(revealed="QX", receiver_hand="ABCDEF", guesser_setup="GHIJKLM",
                                     guesser_hand="NG")
    assert set(got) == set(ALPHABET) - set("QXABCDEFGHIJKLMN")
    assert rules.compensation_letters(ALPHABET[:10], ALPHABET[10:16], ALPHABET[16:], "") == []


def test_no_qualifying_letter_means_no_swap_said_privately() -> None:
    from games.decoder.commands import GiveUp
    state = started()
    set_hands(state, "ABCDEF", "GHIJKL")
    state.seats[0].extras = list("MNOPQRSTUVWXYZ")
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z"))
    events = submit(state, 0, GiveUp(letter="A"))
    assert "no letter qualifies" in texts(events, "seat1")
    assert "qualifies" not in texts(events, "public")
    assert state.step == "turn" and state.seats[1].offers[-1].letter is None


def test_giving_up_your_last_tile_loses() -> None:
    from games.decoder.commands import GiveUp
    state = started()
    set_hands(state, "A", "GHIJKL")
    state.seats[0].lost = 5
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="Z"))
    submit(state, 0, GiveUp(letter="A"))
    out = GAME.outcome(state)
    assert out is not None and out.winner == 1 and "last tile" in out.reason
    assert GAME.prompts(state) == []


# --- Taking turns -----------------------------------------------------------------------
def test_the_seeds_turn_order_example_turn_for_turn() -> None:
    """Danny (seat 0) starts at 0 units, pseud (seat 1) at 1; tanks of 5, 14, 6 and 4 units."""
    times = [[57, 60, 40, 100, 100, 100, 100], [140, 100, 100, 100, 100, 100, 100]]
    state = started(settings(times))
    d, p = state.seats
    assert (d.timer, p.timer, state.active) == (0, 1, 0)
    ask(state, 0, "Arithmetic Box", "DECODER", clue="ODD")  # Danny: 5 units
    assert (d.timer, p.timer, state.active) == (4, 0, 1)  # pseud hits zero; Danny has 4 left
    ask(state, 1, "Arithmetic Box", "PUZZLE", clue="ODD")  # pseud: 14 units
    assert (d.timer, p.timer, state.active) == (0, 10, 0)
    ask(state, 0, "Bijective Matrix", "LETTER", clue="ODD")  # Danny: 6 units
    assert (d.timer, p.timer, state.active) == (0, 4, 0)  # Danny again
    ask(state, 0, "Cipher Wheel", "TIMER", clue="ODD")  # Danny: 4 units -> both at 4
    assert (d.timer, p.timer, state.active) == (0, 0, 1)  # double zero: pseud, not the last mover
    ask(state, 1, "Bijective Matrix", "TANKS", clue="ODD")  # pseud fills (10 units)
    assert (d.timer, p.timer, state.active) == (0, 10, 0)  # Danny still at 0: his turn
    assert [r.seat for r in state.history] == [0, 1, 0, 0, 1]


def test_advance_timers() -> None:
    t = [5, 1]
    assert rules.advance_timers(t, 0) == 1 and t == [4, 0]
    t = [4, 4]
    assert rules.advance_timers(t, 0) == 1 and t == [0, 0]
    t = [0, 7]
    assert rules.advance_timers(t, 1) == 0 and t == [0, 7]


def test_used_tank_is_unavailable_and_the_last_one_must_restore() -> None:
    state = started(settings([[100] * 7, [300] * 7]))
    words = iter(["CAT", "DOG", "EMU", "GNU", "YAK", "ELK"])
    for name in ["Arithmetic Box", "Bijective Matrix", "Cipher Wheel", "Domino Grid",
                 "Encrypted Image", "Folding Map"]:
        while state.active != 0:
            pass_turn(state)
        ask(state, 0, name, next(words), clue="ODD")
        assert state.seats[0].tank(name).used
    while state.active != 0:
        pass_turn(state)
    with pytest.raises(Exception, match="used up until you restore"):
        GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="restore"))
    with pytest.raises(Exception, match="must use it to restore"):
        GAME.check(state, 0, TakeTurn(tank="Gear Train", action="guess", letter="Q"))
    events = submit(state, 0, TakeTurn(tank="Gear Train", action="restore"))
    assert "restores Arithmetic Box, Bijective Matrix, Cipher Wheel, Domino Grid, " \
        "Encrypted Image, Folding Map" in texts(events)
    assert state.step == "guess_total"
    gear = state.seats[0].tank("Gear Train")
    assert gear.used and all(not t.used for t in state.seats[0].tanks if t is not gear)


# --- Restore timer tanks ----------------------------------------------------------------
def test_sabotage_turns_5_into_8_and_22_into_30() -> None:
    assert rules.sabotaged(5) == 8
    assert rules.sabotaged(22) == 30
    assert rules.sabotaged(30) == 30
    assert rules.sabotaged(1) == 2


def _restore_after(state, seat: int, used: list[str], tank: str) -> list:
    for t in used:
        state.seats[seat].tank(t).used = True
    return submit(state, seat, TakeTurn(tank=tank, action="restore"))


def test_correct_total_sabotages_a_restored_tank_known_only_to_its_owner() -> None:
    times = [[57, 220, 100, 100, 100, 100, 100], [100] * 7]
    state = started(settings(times))
    _restore_after(state, 0, ["Arithmetic Box", "Bijective Matrix"], "Cipher Wheel")
    assert GAME.prompts(state)[0].kind == "guess_total"
    events = submit(state, 1, GuessTotal(total=27))  # 5 + 22
    assert "correct" in texts(events) and state.step == "sabotage_tank"
    with pytest.raises(Exception, match="restored tanks"):
        GAME.check(state, 1, SabotageTank(tank="Cipher Wheel"))
    events = submit(state, 1, SabotageTank(tank="Bijective Matrix"))
    assert state.seats[0].tank("Bijective Matrix").units == 30
    assert "Bijective Matrix: 30 units" in texts(events, "seat0")
    assert "Bijective Matrix: 30" not in texts(events, "public") + texts(events, "seat1")
    assert GAME.view(state, 1).players[0].tanks[1].units is None


def test_wrong_total_has_no_penalty_and_restore_with_nothing_used_has_no_guess() -> None:
    state = started()
    _restore_after(state, 0, ["Arithmetic Box"], "Cipher Wheel")
    events = submit(state, 1, GuessTotal(total=3))
    assert "wrong" in texts(events) and state.step == "turn"
    state2 = started()
    events = submit(state2, 0, TakeTurn(tank="Cipher Wheel", action="restore"))
    assert "nothing is restored" in texts(events)
    assert state2.step == "turn" and state2.turn == 2


# --- Game items -------------------------------------------------------------------------
def test_hand_insurance_keeps_the_letter_but_the_swap_is_still_offered() -> None:
    from games.decoder.commands import GiveUp
    from games.decoder.settings import Items
    state = started(settings(items=(Items(hand_insurance=1), Items())))
    set_hands(state, "ABCDEF", "GHIJKL")
    submit(state, 0, TakeTurn(tank="Arithmetic Box", action="guess", letter="G"))  # correct
    assert state.seats[0].items.hand_insurance == 1  # kept on a correct guess
    while state.active != 0:
        pass_turn(state)
    submit(state, 0, TakeTurn(tank="Bijective Matrix", action="guess", letter="Z"))
    events = submit(state, 0, GiveUp(insurance=True))
    assert state.seats[0].hand == list("ABCDEF") and state.seats[0].items.hand_insurance == 0
    assert "Hand Insurance" in texts(events) and state.step == "swap"
    with pytest.raises(IllegalMove, match="Nothing is pending"):
        GAME.check(state, 0, GiveUp(insurance=True))


def test_new_evidence_answers_both_remaining_clues() -> None:
    from games.decoder.settings import Items
    state = started(settings(items=(Items(new_evidence=1), Items())))
    set_hands(state, "GHIJKL", "ABCDEF")
    events = submit(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER",
                                       exclude="ANY", new_evidence=True))
    assert "ODD: YES, TWO: NO" in texts(events)
    assert state.step == "turn" and state.seats[0].items.new_evidence == 0


def test_power_surge_keeps_the_tank_but_fills_the_timer() -> None:
    from games.decoder.settings import Items
    state = started(settings(items=(Items(power_surge=1), Items())))
    ask_cmd = TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY",
                       power_surge=True)
    submit(state, 0, ask_cmd)
    assert not state.seats[0].tank("Arithmetic Box").used
    assert state.seats[0].timer == 10 and state.seats[0].items.power_surge == 0


def test_unexpected_sabotage_applies_to_this_turns_recharge() -> None:
    from games.decoder.commands import UnexpectedSabotage
    from games.decoder.settings import Items
    times = [[40, 100, 100, 100, 100, 100, 100], [100, 100, 100, 100, 100, 100, 100]]
    state = started(settings(times, items=(Items(), Items(unexpected_sabotage=1))))
    ask(state, 0, "Arithmetic Box", "DECODER", "ANY")
    events = submit(state, 1, ChooseClue(clue="ODD", unexpected_sabotage=True))
    assert state.seats[0].tank("Arithmetic Box").units == 6  # 4 -> 6
    assert "Unexpected Sabotage" in texts(events)
    assert "Arithmetic Box: 6 units" in texts(events, "seat0")
    # seat 0 waits out 6 units: seat 1 (timer 1) moves, then its 10 units run past seat 0's 5
    assert state.active == 1 and state.seats[0].timer == 5
    # with nothing to answer, the holder is asked whether to play it
    submit(state, 1, TakeTurn(tank="Arithmetic Box", action="restore"))
    assert state.seats[1].items.unexpected_sabotage == 0
    assert state.step == "turn"
    state2 = started(settings(times, items=(Items(), Items(unexpected_sabotage=1))))
    submit(state2, 0, TakeTurn(tank="Cipher Wheel", action="restore"))
    assert GAME.prompts(state2)[0].kind == "sabotage_option"
    submit(state2, 1, UnexpectedSabotage(use=False))
    assert state2.seats[1].items.unexpected_sabotage == 1


def test_items_only_when_held() -> None:
    state = started()
    with pytest.raises(Exception, match="no Power Surge"):
        GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="restore", power_surge=True))
    with pytest.raises(Exception, match="no New Evidence"):
        GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="CAT",
                                      exclude="ANY", new_evidence=True))
    ask(state, 0, "Arithmetic Box", "DECODER", "ANY")
    with pytest.raises(Exception, match="no Unexpected Sabotage"):
        GAME.check(state, 1, ChooseClue(clue="ODD", unexpected_sabotage=True))


def test_even_times_defaults() -> None:
    assert EVEN == [[100] * 7, [100] * 7]
