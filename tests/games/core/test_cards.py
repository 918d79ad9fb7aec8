from games.core.cards import CardStyle, Suit

STYLE = CardStyle(
    suits=(Suit("R", "red", "🟥"), Suit("G", "green", "🟩"), Suit("B", "blue", "🟦")),
    numbers=tuple(range(1, 10)),
)


def test_cards_are_read_in_every_common_form():
    assert STYLE.find_cards("R7 b3, green 5 🟥9 7 blue") == ["R7", "B3", "G5", "R9", "B7"]
    assert STYLE.find_cards("r7b3") == ["R7", "B3"]
    assert STYLE.find_cards("3 red") == ["R3"]


def test_words_ending_in_a_suit_letter_are_not_cards():
    assert STYLE.find_cards("number 2") == []
    assert STYLE.find_cards("sub 3 R7") == ["R7"]


def test_read_cards_refuses_cards_the_game_does_not_have():
    assert STYLE.read_cards("R9 G1") == ["R9", "G1"]
    try:
        STYLE.read_cards("R0")
    except ValueError as exc:
        assert "no card R0" in str(exc)
    else:
        raise AssertionError("R0 accepted")


def test_render_and_deck():
    assert STYLE.render("B7") == "🟦7"
    assert len(STYLE.deck()) == 27 and len(set(STYLE.deck())) == 27
    assert len(STYLE.deck(copies=2)) == 54


def test_suitless_cards_with_a_joker():
    plain = CardStyle(suits=(), numbers=tuple(range(1, 11)), extra=("J",),
                      extra_aliases={"joker": "J"})
    assert plain.find_cards("play 5-6 joker") == ["5", "6", "J"]
    assert plain.deck(copies=4).count("10") == 4


def test_without_cards_leaves_the_rest_of_the_text():
    assert STYLE.without_cards("Renounce R7 set 2").split() == ["renounce", "set", "2"]
    assert STYLE.without_cards("🟥9 in #3").split() == ["in", "#3"]
    plain = CardStyle(suits=(), numbers=tuple(range(1, 11)), extra=("J",),
                      extra_aliases={"joker": "J"})
    assert plain.without_cards("play 5 joker now").split() == ["play", "now"]
