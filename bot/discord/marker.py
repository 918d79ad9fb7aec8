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

START = "\u2060"
BITS = {"0": "\u200b", "1": "\u200c"}
ALPHABET = "0123456789."
#: Room the marker takes in a post (tags up to 15 characters: ids below 10**12, part up to 99).
ROOM = 1 + 4 * 15


def mark(content: str, tag: str) -> str:
    """`content` with the invisible marker of `tag` at its end."""
    code = "".join(BITS[b] for ch in tag for b in format(ALPHABET.index(ch), "04b"))
    return f"{content}{START}{code}"


def read_mark(content: str) -> tuple[str, str | None]:
    """The visible text of a post and its tag (None when it carries no valid marker)."""
    at = content.rfind(START)
    if at < 0:
        return content, None
    code = content[at + 1:]
    if not code or len(code) % 4 or any(c not in BITS.values() for c in code):
        return content, None
    bits = "".join("0" if c == BITS["0"] else "1" for c in code)
    values = [int(bits[i:i + 4], 2) for i in range(0, len(bits), 4)]
    if any(v >= len(ALPHABET) for v in values):
        return content, None
    return content[:at], "".join(ALPHABET[v] for v in values)
