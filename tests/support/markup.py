"""What Discord would read as markup in a text, for the tests of the foreign-text renderer
(`bot.discord.render.escape`), written here on its own from Discord's markdown rules: a
backslash before any character that is neither a letter, a digit nor a space shows that
character as it is; anything else may start a construct."""

from __future__ import annotations

import re

#: Each construct Discord reads, in text where every escaped character is blanked.
CONSTRUCTS = {
    # a masked link: [text](scheme:...), the text holding brackets of its own or not
    "masked link": re.compile(
        r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?[A-Za-z][A-Za-z0-9+.-]*:[^\s)>]*"),
    "link": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<]*"),
    "mention": re.compile(r"<(?:@[!&]?|#)\d+>|@everyone|@here|</[^:>\s]+:\d+>"),
    "custom emoji": re.compile(r"<a?:\w+:\d+>"),
    "emphasis": re.compile(r"\*|_|~~|\|\||`"),
    "line start": re.compile(r"(?m)^\s*(?:#{1,3}\s|>|-#\s|[-*+]\s|\d+\.\s)"),
}


def unescaped(text: str) -> str:
    """`text` with every character Discord shows literally (escaped) blanked to NUL."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "\\" and nxt and not nxt.isalnum() and not nxt.isspace():
            out.append("\0")
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def live(text: str, *, allowed: tuple[str, ...] = ()) -> list[str]:
    """Every construct Discord would read in `text` (each as "kind: the text"), except the
    kinds in `allowed`."""
    plain = unescaped(text)
    return [f"{kind}: {m.group(0)}" for kind, pattern in CONSTRUCTS.items()
            if kind not in allowed for m in pattern.finditer(plain)]


def live_links(text: str) -> list[str]:
    """The masked links and bare links Discord would make clickable in `text`."""
    return [f for f in live(text) if f.startswith(("masked link", "link"))]
