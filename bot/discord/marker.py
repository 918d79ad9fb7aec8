"""An invisible marker at the end of each post of the outbox: which outbox message (and part)
it is, readable back from the channel's history.

Discord deduplicates a repeated nonce (`enforce_nonce`) for a few minutes only, and does not
keep the nonce: a message read back from `GET /channels/{id}/messages` has none. So a resend
after a longer outage looks for this marker instead. The text alone is not enough: two
messages of a channel can read the same (the same prompt in two rounds), and taking a
delivered one for the undelivered one would lose the second.

The marker is a word joiner (U+2060) followed by the tag (`<outbox id>` or `<id>.<part>`),
four bits per character, each bit a zero-width space (0) or zero-width non-joiner (1). None
of these are whitespace (Discord does not trim them) and none joins emoji (no U+200D).
"""

from __future__ import annotations

import re

START = "\u2060"
BITS = {"0": "\u200b", "1": "\u200c"}
ALPHABET = "0123456789."
#: Room the marker takes in a post (tags up to 15 characters: ids below 10**12, part up to 99).
ROOM = 1 + 4 * 15


def mark(content: str, tag: str) -> str:
    """`content` with the invisible marker of `tag` at its end."""
    code = "".join(BITS[b] for ch in tag for b in format(ALPHABET.index(ch), "04b"))
    return f"{content}{START}{code}"


#: Every marker in a text (a batched host log post ends each entry with its own).
MARKS = re.compile(f"{START}([{BITS['0']}{BITS['1']}]+)")


def _tag(code: str) -> str | None:
    """The tag a marker's code spells, or None when it is not a valid one."""
    if not code or len(code) % 4 or any(c not in BITS.values() for c in code):
        return None
    bits = "".join("0" if c == BITS["0"] else "1" for c in code)
    values = [int(bits[i:i + 4], 2) for i in range(0, len(bits), 4)]
    if any(v >= len(ALPHABET) for v in values):
        return None
    return "".join(ALPHABET[v] for v in values)


def read_mark(content: str) -> tuple[str, str | None]:
    """The visible text of a post and its tag (None when it carries no valid marker)."""
    at = content.rfind(START)
    if at < 0:
        return content, None
    tag = _tag(content[at + 1:])
    return (content, None) if tag is None else (content[:at], tag)


def tags_in(text: str) -> set[str]:
    """The tags of every marker in a text, wherever they are."""
    return {tag for code in MARKS.findall(text) if (tag := _tag(code)) is not None}


def strip_marks(text: str) -> str:
    """The text without its markers (what a reader sees)."""
    return MARKS.sub("", text)
