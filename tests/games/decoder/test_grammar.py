"""What players type: tolerant, context-aware parsing and its rejection messages."""

from __future__ import annotations

import pytest

from games.core.contract import ParseError
from games.decoder import GAME
from games.decoder.commands import (
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
from games.decoder.settings import Items
from tests.support.games.decoder import set_hands, settings, started, submit


def parse(state, seat: int, text: str):
    return GAME.parse(state, seat, text)


@pytest.mark.parametrize(("text", "expected"), [
    ("use Arithmetic Box ask DECODER not ANY",
     TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY")),
    ("USE arithmetic box ASK decoder NOT any",
     TakeTurn(tank="Arithmetic Box", action="ask", word="DECODER", exclude="ANY")),
    ("use arith ask puzzle -odd",
     TakeTurn(tank="Arithmetic Box", action="ask", word="PUZZLE", exclude="ODD")),
    ("use b ask odd not two", TakeTurn(tank="Bijective Matrix", action="ask", word="ODD", exclude="TWO")),
    ("ask SURGE not ANY with Cipher Wheel, power surge",
     TakeTurn(tank="Cipher Wheel", action="ask", word="SURGE", exclude="ANY", power_surge=True)),
    ("use arithmetic box guess Q", TakeTurn(tank="Arithmetic Box", action="guess", letter="Q")),
    ("use gear guess 🇶", TakeTurn(tank="Gear Train", action="guess", letter="Q")),
    ("use Arithmetic Box restore", TakeTurn(tank="Arithmetic Box", action="restore")),
    ("use domino grid restore + surge",
     TakeTurn(tank="Domino Grid", action="restore", power_surge=True)),
    ("use folding map ask CAT not TWO new evidence",
     TakeTurn(tank="Folding Map", action="ask", word="CAT", exclude="TWO", new_evidence=True)),
])
def test_turn_commands(text: str, expected: TakeTurn) -> None:
    state = started()
    assert parse(state, 0, text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("hello", "use <tank> ask <word>"),
    ("use zebra ask CAT not ANY", "use <tank> ask <word>"),
    ("ask CAT not ANY", "Name the tank"),
    ("use arith ask CAT", "Say which clue you refuse"),
    ("use arith guess QX", "one letter"),
    ("use arith restore now", "use <tank> restore"),
])
def test_turn_rejections(text: str, message: str) -> None:
    state = started()
    with pytest.raises(ParseError, match=message):
        parse(state, 0, text)


def test_tank_prefix_must_be_unambiguous() -> None:
    s = settings(puzzles=["Cipher Wheel", "Cipher Lock", "A", "B", "C", "D", "E"])
    state = started(s)
    with pytest.raises(ParseError, match="could be Cipher Wheel, Cipher Lock"):
        parse(state, 0, "use cipher guess q")
    assert parse(state, 0, "use cipher w guess q").tank == "Cipher Wheel"


def test_last_tank_restore_needs_no_name() -> None:
    state = started()
    for t in state.seats[0].tanks[:-1]:
        t.used = True
    assert parse(state, 0, "restore") == TakeTurn(tank="Gear Train", action="restore")


def test_nothing_pending_and_usage() -> None:
    state = started()
    with pytest.raises(ParseError, match="Nothing is pending"):
        parse(state, 1, "ODD")
    assert "use <tank> ask <word>" in GAME.usage(state, 0)
    with pytest.raises(ParseError, match="Type: use <tank>"):
        parse(state, 0, "   ")


def test_clue_response() -> None:
    state = started(settings(items=(Items(), Items(unexpected_sabotage=1))))
    submit(state, 0, parse(state, 0, "use arith ask DECODER not ANY"))
    assert parse(state, 1, "odd") == ChooseClue(clue="ODD")
    assert parse(state, 1, "TWO!") == ChooseClue(clue="TWO")
    assert parse(state, 1, "two, unexpected sabotage") == ChooseClue(clue="TWO", unexpected_sabotage=True)
    with pytest.raises(ParseError, match="one clue, nothing else: `ODD` or `TWO`"):
        parse(state, 1, "maybe")
    assert "unexpected sabotage" in GAME.usage(state, 1)
    from games.core.contract import IllegalMove
    with pytest.raises(IllegalMove, match="refused ANY: answer `ODD` or `TWO`"):
        GAME.check(state, 1, parse(state, 1, "any"))


def test_give_up_and_swap() -> None:
    state = started(settings(items=(Items(hand_insurance=1), Items())))
    set_hands(state, "ABCDEI", "GHJKLM")
    submit(state, 0, parse(state, 0, "use arith guess Z"))
    assert parse(state, 0, "give up I") == GiveUp(letter="I")
    assert parse(state, 0, "giveup b") == GiveUp(letter="B")
    assert parse(state, 0, "c") == GiveUp(letter="C")
    assert parse(state, 0, "insurance") == GiveUp(insurance=True)
    assert parse(state, 0, "play new evidence") == GiveUp(insurance=True)  # the seed's wording
    with pytest.raises(ParseError, match="give up <one of your letters>"):
        parse(state, 0, "give up A B")
    submit(state, 0, GiveUp(letter="A"))
    offer = state.seats[1].offers[-1].letter
    assert parse(state, 1, "swap G") == Swap(give="G")
    assert parse(state, 1, f"swap G for {offer}") == Swap(give="G")
    assert parse(state, 1, f"swap {offer} for g") == Swap(give="G")
    assert parse(state, 1, "no swap") == Swap(give=None)
    assert parse(state, 1, "decline") == Swap(give=None)
    with pytest.raises(ParseError, match="not in your hand"):
        parse(state, 1, "swap A")


def test_total_guess_and_sabotage() -> None:
    state = started(settings(items=(Items(), Items(unexpected_sabotage=1))))
    state.seats[0].tank("Arithmetic Box").used = True
    submit(state, 0, parse(state, 0, "use gear restore"))
    assert parse(state, 1, "guess 17") == GuessTotal(total=17)
    assert parse(state, 1, "10 + unexpected sabotage") == GuessTotal(total=10, unexpected_sabotage=True)
    with pytest.raises(ParseError, match="guess <total units>"):
        parse(state, 1, "guess ten")
    submit(state, 1, GuessTotal(total=10))  # Arithmetic Box has 10 units: correct
    assert parse(state, 1, "sabotage Arithmetic Box") == SabotageTank(tank="Arithmetic Box")
    assert parse(state, 1, "arith") == SabotageTank(tank="Arithmetic Box")
    with pytest.raises(ParseError, match="sabotage <one of: Arithmetic Box>"):
        parse(state, 1, "sabotage")


def test_sabotage_option() -> None:
    state = started(settings(items=(Items(), Items(unexpected_sabotage=1))))
    submit(state, 0, parse(state, 0, "use gear restore"))
    assert parse(state, 1, "unexpected sabotage") == UnexpectedSabotage(use=True)
    assert parse(state, 1, "pass") == UnexpectedSabotage(use=False)
    with pytest.raises(ParseError, match="unexpected sabotage, or pass"):
        parse(state, 1, "hmm")


def test_setup_grammar() -> None:
    state = GAME.setup(settings([[20] * 7, [100] * 7]), "grammar")
    assert parse(state, 0, "raise Cipher Wheel to 150") == RaiseTime(puzzle="Cipher Wheel", seconds=150)
    assert parse(state, 0, "cipher 2:30") == RaiseTime(puzzle="Cipher Wheel", seconds=150)
    assert parse(state, 0, "set gear train 4 min") == RaiseTime(puzzle="Gear Train", seconds=240)
    assert parse(state, 0, "arith 300s") == RaiseTime(puzzle="Arithmetic Box", seconds=300)
    assert parse(state, 0, "ready") == Ready()
    assert parse(state, 0, "lower cipher wheel to 90") == RaiseTime(puzzle="Cipher Wheel", seconds=90)
    with pytest.raises(ParseError, match="set <puzzle> to <seconds>"):
        parse(state, 0, "faster please")
    submit(state, 0, Ready())
    submit(state, 1, Ready())
    assert parse(state, 0, "3 common 3 uncommon 1 rare") == ChooseRarities(common=3, uncommon=3, rare=1)
    assert parse(state, 0, "cccuuur") == ChooseRarities(common=3, uncommon=3, rare=1)
    assert parse(state, 0, "#1") == ChooseRarities(common=3, uncommon=3, rare=1)
    with pytest.raises(ParseError, match="rarities"):
        parse(state, 0, "lots of vowels")
    submit(state, 0, ChooseRarities(common=3, uncommon=3, rare=1))
    tiles = state.seats[0].setup_letters
    assert parse(state, 0, "keep " + " ".join(tiles[:6])) == ChooseHand(letters=tuple(tiles[:6]))
    assert parse(state, 0, "keep " + "".join(tiles[:6]).lower()) == ChooseHand(letters=tuple(tiles[:6]))
    dropped = parse(state, 0, "drop " + " ".join(tiles[6:]))
    assert dropped == ChooseHand(letters=tuple(tiles[:6]))
    with pytest.raises(ParseError, match="keep <six letters>"):
        parse(state, 0, "keep 1 2 3")


# --- Issue: a clue answer names exactly one allowed clue and nothing that contradicts it -----
@pytest.mark.parametrize("text", ["definitely not odd", "not ODD", "ODD or TWO", "odd two",
                                  "use arith ask DECODER not ANY", "use gear guess Q",
                                  "any"])
def test_clue_answer_must_name_exactly_one_allowed_clue(text: str) -> None:
    from games.core.contract import IllegalMove
    state = started()
    submit(state, 0, parse(state, 0, "use arith ask DECODER not ANY"))
    before = state.model_dump_json()
    with pytest.raises((ParseError, IllegalMove), match="`ODD` or `TWO`"):
        GAME.check(state, 1, parse(state, 1, text))
    assert state.model_dump_json() == before  # nothing applied


@pytest.mark.parametrize(("text", "clue"), [("ODD", "ODD"), ("i give two", "TWO"),
                                            ("clue: odd", "ODD")])
def test_clue_answer_in_plain_words(text: str, clue: str) -> None:
    state = started()
    submit(state, 0, parse(state, 0, "use arith ask DECODER not ANY"))
    assert parse(state, 1, text) == ChooseClue(clue=clue)


def test_issue_29_a_negative_number_is_refused_never_read_without_its_sign():
    """Decoder's tokens split "-" off a word, so "guess -17" was read as a guess of 17."""
    import pytest

    from games.core.contract import ParseError
    from games.decoder import GAME
    from tests.support.games.decoder import started

    state = started()
    for text in ("use Arithmetic Box guess -17", "-3 common", "set Gear Train to -150"):
        with pytest.raises(ParseError, match="is negative; it is never read as"):
            GAME.parse(state, 0, text)
