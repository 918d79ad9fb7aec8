"""The shared reading of typed numbers never crashes on what players type."""

from games.core.parsing import MAX_DIGITS, integers, position


def test_digits_of_other_scripts_read_as_numbers():
    assert integers("raise ٣ and ４２") == [3, 42]


def test_a_five_thousand_digit_number_reads_as_a_huge_number_not_a_crash():
    assert integers("raise " + "9" * 5000) == [int("9" * MAX_DIGITS)]
    assert position("#" + "7" * 5000) == int("9" * MAX_DIGITS) - 1


def test_superscripts_are_not_digits_of_a_number():
    assert integers("guess ²") == []
