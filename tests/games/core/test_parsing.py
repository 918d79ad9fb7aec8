"""The shared reading of typed text: one entrance (`read_move`) and one number reader, the
same in every game, bounded and sign-aware."""

import pytest

from games.core import ParseError
from games.core.parsing import MAX_DIGITS, MAX_MOVE_CHARS, integers, number, position, read_move


def _usage() -> str:
    return "Type 'raise N'."


def test_digits_of_other_scripts_are_refused_with_what_to_type():
    for text in ("raise ٣", "raise ４２", "guess ²", "play ½", "Ⅻ"):
        with pytest.raises(ParseError, match=r"digits 0 to 9.*Type 'raise N'"):
            read_move(text, _usage)
    assert integers("raise ٣ and ４２") == []  # never read as 3 and 42


def test_a_five_thousand_digit_number_is_a_refusal_that_teaches():
    with pytest.raises(ParseError, match=r"5,000 digits.*Type 'raise N'"):
        read_move("raise " + "9" * 5000, lambda: "Type 'raise N'.")
    with pytest.raises(ParseError, match="not a number a move takes"):
        number("9" * 5000)
    with pytest.raises(ParseError):
        position("#" + "7" * 5000)


def test_leading_zeros_do_not_make_a_number_long():
    assert read_move("raise " + "0" * 20 + "7", _usage)
    assert integers("raise 0000000000007") == [7]


def test_numbers_keep_their_sign_and_a_dash_between_numbers_is_no_sign():
    assert integers("draw -6") == [-6]
    assert integers("take −6") == [-6]
    assert integers("play 5-5 and 1-2-3") == [5, 5, 1, 2, 3]
    assert integers("raise 4") == [4]


def test_a_message_over_the_cap_is_refused_unread():
    assert read_move("x" * MAX_MOVE_CHARS, _usage)
    with pytest.raises(ParseError, match=rf"at most {MAX_MOVE_CHARS:,}.*Type 'raise N'"):
        read_move("x" * (MAX_MOVE_CHARS + 1), _usage)


def test_runs_of_blanks_are_squeezed_and_lines_kept():
    assert read_move("R2   B3 \n\n  G5\tB9", _usage) == "R2 B3\nG5 B9"


def test_max_digits_is_read():
    assert integers("9" * MAX_DIGITS) == [int("9" * MAX_DIGITS)]
