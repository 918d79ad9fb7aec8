"""The invisible outbox marker at the end of every post (bot/discord/marker.py)."""

from __future__ import annotations

import unicodedata

import pytest

from bot.discord.marker import ROOM, mark, read_mark


@pytest.mark.parametrize("tag", ["1", "42", "123456789", "987654321012.3", "7.12"])
@pytest.mark.parametrize("text", ["", "⏱ The hosts gave everyone 60 s more.", "🪨7 📄0 ✂️9",
                                  "line one\nline two ⏰ <t:1795448431:R>"])
def test_a_marked_post_reads_back_as_its_text_and_tag(text: str, tag: str) -> None:
    marked = mark(text, tag)
    assert read_mark(marked) == (text, tag)
    added = marked[len(text):]
    assert marked.startswith(text) and len(added) <= ROOM
    # Invisible and never trimmed: format characters only, no whitespace, no emoji joiner.
    assert all(unicodedata.category(c) == "Cf" and not c.isspace() for c in added)
    assert "\u200d" not in added


@pytest.mark.parametrize("content", ["plain text", "text\u2060", "text\u2060\u200b\u200b",
                                     "text\u2060\u200cx\u200b\u200b",
                                     "text\u2060" + "\u200c" * 4])  # 15: not a symbol
def test_a_post_without_a_valid_marker_has_no_tag(content: str) -> None:
    assert read_mark(content) == (content, None)
