"""The standings and bracket pictures: text tables, text brackets and the PNG."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from bot.tournament import render
from bot.tournament.formats import Result, format_named

from .driver import play


def names(count):
    return [f"player {i + 1}" for i in range(count)]


def first_round_played(fmt_name, count, withdraw=None):
    fmt = format_named(fmt_name)
    state, _ = fmt.next_round(fmt.start(names(count), 0))
    if withdraw:
        state = fmt.withdraw(state, withdraw)
    for p in state.pending():
        state = fmt.record(state, Result(pairing=p.id, winner=p.player1))
    return fmt.next_round(state)[0]


def test_the_standings_table_has_a_line_per_player_and_the_format_s_tiebreaks():
    state = play(format_named("swiss"), 6, 0, 1)
    text = render.standings_text(state)
    lines = text.split("\n\n")[0].splitlines()
    assert lines[0].split() == ["#", "Player", "Pts", "W-D-L", "Buch", "SB", "H2H", "by"]
    assert len(lines) == 7
    for s, line in zip(format_named("swiss").standings(state), lines[1:], strict=True):
        assert line.split()[0] == str(s.rank) and s.player in line


def test_the_standings_table_marks_who_is_out_and_who_withdrew():
    state = first_round_played("single", 4, withdraw="player 1")
    text = render.standings_text(state)
    assert "player 1" in text and "withdrawn" in text  # p1 withdrew, p4 won by walkover
    assert text.split("\n\n")[0].count("out") == 1  # player 2 lost to player 3


def test_the_text_bracket_shows_byes_results_walkovers_and_what_is_to_come():
    state = first_round_played("single", 6, withdraw="player 4")
    text = render.bracket_text(state)
    assert "R1-1   player 1 (bye)" in text
    assert "R1-2   player 5 beat player 4 (walkover)" in text
    assert "R1-4   player 6 beat player 3" in text
    assert "R2-1   player 1 v player 5 (playing)" in text
    assert "R3-1   winner of R2-1 v winner of R2-2" in text


def test_the_text_of_a_points_event_lists_each_round():
    state = play(format_named("roundrobin"), 3, 0, 2)
    text = render.bracket_text(state)
    assert text.count("Round ") == 3 and text.count("(bye)") == 3


@pytest.mark.parametrize(
    ("fmt_name", "count", "picture"),
    [
        ("single", 8, False),
        ("single", 9, True),
        ("double", 16, True),
        ("swiss", 20, False),
    ],
)
def test_a_picture_is_drawn_past_eight_players_of_a_bracket(fmt_name, count, picture):
    assert render.needs_picture(format_named(fmt_name).start(names(count), 0)) is picture


@pytest.fixture
def drawn_text(monkeypatch):
    """Every string the picture drew, as Pillow was asked to draw it."""
    drawn: list[str] = []
    original = ImageDraw.ImageDraw.text

    def spy(self, xy, text, *args, **kwargs):
        drawn.append(text)
        return original(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    return drawn


@pytest.mark.parametrize(("fmt_name", "count"), [("single", 9), ("single", 33), ("double", 12)])
def test_the_bracket_picture_is_a_png_with_every_player_s_name(drawn_text, fmt_name, count):
    fmt = format_named(fmt_name)
    state = first_round_played(fmt_name, count)
    state = fmt.replace(state, state.pending()[-1].player0, "a substitute")  # one still in
    png = render.bracket_png(state)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.verify()
    first = (count + 1) // 2 if fmt_name == "single" else 8
    rounds = (count - 1).bit_length()
    assert image.format == "PNG"
    assert rounds * render.BOX_W <= image.size[0] <= 6 * rounds * render.BOX_W
    assert first * render.BOX_H <= image.size[1] <= 40 * first * render.BOX_H
    for name in [*names(count), "a substitute"]:
        assert name in drawn_text, f"{name} is not in the picture"


def test_a_long_name_is_shortened_in_the_picture(drawn_text):
    fmt = format_named("single")
    state = fmt.start(["a" * 40, *names(9)], 0)
    render.bracket_png(state)
    assert "a" * 21 + "…" in drawn_text


def test_the_picture_is_drawn_without_system_fonts(monkeypatch, drawn_text):
    # a slim container has no DejaVu: Pillow's own font is used instead
    original = render.ImageFont.truetype

    def no_system_font(font, *args, **kwargs):
        if font == "DejaVuSans.ttf":
            raise OSError("cannot open resource")
        return original(font, *args, **kwargs)

    monkeypatch.setattr(render.ImageFont, "truetype", no_system_font)
    render._font.cache_clear()
    try:
        png = render.bracket_png(format_named("single").start(names(9), 0))
    finally:
        render._font.cache_clear()
    assert Image.open(io.BytesIO(png)).format == "PNG"
    assert "player 9" in drawn_text


def test_the_standings_explain_their_columns_and_what_broke_each_tie():
    fmt = format_named("swiss")
    state, _ = fmt.next_round(fmt.start(names(3), 0, rounds=1))  # p1 v p2, p3 has the bye
    state = fmt.record(state, Result(pairing="r1m1", winner=None))
    text = render.standings_text(state)
    table, legend = text.split("\n\n")
    rows = {line.split()[1] + " " + line.split()[2]: line for line in table.splitlines()[1:]}
    assert rows["player 3"].split()[4] == "1-0-0*"  # the bye: a point, shown as a win
    assert rows["player 2"].split()[-1] == "seed"  # level on everything: the seed decided
    assert rows["player 1"].split()[-1] == "0.5"  # (H2H shown for the two still level)
    for word in ("Pts:", "W-D-L:", "Buch: Buchholz", "SB: Sonneborn-Berger", "H2H: head-to-head",
                 "by: what broke a tie", "* had a bye"):
        assert word in legend, word


def test_elimination_standings_rank_by_round_reached_not_by_wins():
    fmt = format_named("double")
    state = fmt.start(names(3), 0)
    while not fmt.finished(state):  # the better seed wins every match
        state, _ = fmt.next_round(state)
        for p in state.pending():
            best = min(p.player0, p.player1, key=names(3).index)
            state = fmt.record(state, Result(pairing=p.id, winner=best))
    table = render.standings_text(state).split("\n\n")[0].splitlines()
    assert table[0].split()[:4] == ["#", "Player", "Reached", "W-L"]
    assert "Pts" not in table[0]
    assert table[1].split()[1:4] == ["player", "1", "champion"]
    assert "grand final" in table[2] and "player 2" in table[2]
    assert "losers' round" in table[3] and "player 3" in table[3]
