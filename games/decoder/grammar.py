"""What players type, read tolerantly and in context (the seat's pending prompt decides).

Examples: `use Arithmetic Box ask DECODER not ANY`, `use arith guess q power surge`,
`use gear restore`, `ODD`, `two unexpected sabotage`, `guess 17`, `sabotage Bijective Matrix`,
`swap E`, `swap E for Q`, `no swap`, `give up T`, `insurance`, `raise Cipher Wheel to 2:30`,
`set Cipher Wheel to 80`, `ready`, `2 common 1 rare`, `none`, `keep A D E K S T`, `keep all`,
`drop X`.
"""

from __future__ import annotations

import re

from games.core.contract import Command, ParseError, Prompt
from games.core.parsing import (
    DIGITS,
    DecisionWords,
    MoveWords,
    normalize,
    number,
    read_move,
    refuse_negative,
)
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
from games.decoder.letters import HAND_SIZE, fold_letter_emoji
from games.decoder.rules import CLUES, Clue, rarity_options
from games.decoder.state import DecoderState

USAGE = {
    "tune": "set <puzzle> to <seconds> (e.g. set Cipher Wheel to 150; raise or lower, from the "
            "official time up), or ready",
    "rarity": "the rarities of your extra tiles, e.g. 2 common 1 rare (or ccr); none if you "
              "earned none",
    "hand": "keep <six letters> (e.g. keep A D E K S T), drop <letters>, or keep all",
    "turn": "use <tank> ask <word> not <ANY|ODD|TWO> | use <tank> guess <letter> | "
            "use <tank> restore  (add: power surge, new evidence)",
    "give_up": "give up <one of your letters>, or insurance",
    "clue": "the clue you answer: ANY, ODD or TWO (the two not refused)",
    "swap": "swap <your letter> (for the offered one), or no swap",
    "guess_total": "guess <total units>, e.g. guess 17",
    "sabotage_tank": "sabotage <restored tank>",
    "sabotage_option": "unexpected sabotage, or pass",
}
US_SUFFIX = " (add: unexpected sabotage)"

ACTIONS = {"ask": "ask", "word": "ask", "guess": "guess", "letter": "guess", "restore": "restore",
           "restores": "restore", "restoring": "restore"}
NEGATIONS = {"not", "no", "exclude", "excluding", "without", "except", "refuse", "refusing", "skip"}
DECLINE = {"no", "nope", "decline", "pass", "skip", "none", "keep", "nothing"}
YES = {"yes", "y", "use", "play", "sabotage", "unexpected", "us", "ok"}
LEAD = {"use", "using", "with", "tank"}


#: The words that start a move of each decision (house ruling: a word of another decision is
#: refused, never read as this one's: "use Gear Train restore" is no clue answer).
DECISIONS = DecisionWords(kinds={
    "tune": ("set", "raise", "ready", "increase", "change", "lower", "decrease", "reduce"),
    "rarity": ("common", "commons", "uncommon", "uncommons", "unc", "rare", "rares"),
    "hand": ("keep", "drop", "discard", "remove"),
    "turn": ("use", "using", "tank", "ask", "restore", "restores", "restoring", "guess"),
    "give_up": ("give up", "giveup", "insurance", "insure"),
    "clue": ("any", "odd", "two"),
    "swap": ("swap", "no swap", "trade", "keep"),
    "guess_total": ("guess",),
    "sabotage_tank": ("sabotage", "sab"),
    "sabotage_option": ("unexpected sabotage", "unexpected", "us", "pass", "keep", "sabotage"),
})


class Tokens:
    """A message as lower-case tokens (emoji letters folded, chat punctuation dropped)."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.list = normalize(fold_letter_emoji(text)).replace("-", " - ").split()

    def has(self, *words: str) -> bool:
        return any(w in self.list for w in words)

    def phrase(self, phrase: str) -> bool:
        return f" {phrase} " in f" {' '.join(self.list)} "


def _letters(tokens: list[str]) -> list[str]:
    return [t.upper() for t in tokens if len(t) == 1 and t.isalpha()]


def match_tank(names: list[str], phrase: str) -> str | None:
    """The tank a phrase names: exact, or a unique case-insensitive prefix (spaces optional).
    None when nothing matches; ParseError when several do."""
    want = " ".join(phrase.lower().split())
    if not want:
        return None
    compact = want.replace(" ", "")
    for n in names:
        if n.lower() == want:
            return n
    hits = [n for n in names if n.lower().startswith(want)
            or n.lower().replace(" ", "").startswith(compact)]
    if len(hits) > 1:
        raise ParseError(f"'{phrase}' could be {', '.join(hits)}: type more of the name.")
    return hits[0] if hits else None


def _unexpected(tok: Tokens) -> bool:
    return tok.phrase("unexpected sabotage") or tok.has("unexpected", "us")


def parse(prompt: Prompt | None, state: DecoderState, seat: int, text: str) -> Command:
    """Read `text` for `seat`'s pending decision `prompt` (a seat has one at most)."""
    if prompt is None:
        raise ParseError("Nothing is pending for you now.")
    text = read_move(text, lambda: usage_line(state, seat, prompt))
    refuse_negative(text, usage_line(state, seat, prompt))  # tokens drop "-": never "-17" as 17
    if prompt.kind != "clue":  # the clue reader refuses anything but one clue, naming both
        DECISIONS.refuse_other(text, [prompt.kind], usage_line(state, seat, prompt))
    tok = Tokens(text)
    if not tok.list:
        raise ParseError(usage_line(state, seat, prompt))
    reader = _READERS[prompt.kind]
    return reader(state, seat, tok, prompt)


def usage_line(state: DecoderState, seat: int, prompt: Prompt) -> str:
    line = USAGE[prompt.kind]
    if prompt.kind in ("clue", "swap", "guess_total") and \
            state.seats[seat].items.unexpected_sabotage:
        line += US_SUFFIX
    return "Type: " + line


def usage(prompt: Prompt | None, state: DecoderState, seat: int) -> str:
    """What `seat`, whose pending decision is `prompt`, could type now."""
    if prompt is None:
        return "Nothing is pending for you now."
    return usage_line(state, seat, prompt)


# ---------------------------------------------------------------------------- setup
_TIME = re.compile(
    r"(?P<m>\d+):(?P<s>\d{1,2})\b"
    r"|(?P<mins>\d+)\s*(?:m|min|mins|minutes?)\b(?:\s*(?P<secs>\d+)\s*(?:s|sec|secs|seconds?)?\b)?"
    r"|(?P<plain>\d+)\s*(?:s|sec|secs|seconds?)?\b"
)


def _read_tune(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    if tok.has("ready", "done", "lock", "locked", "go", "finished", "ok", "okay") and \
            not any(ch.isdigit() for ch in tok.raw):
        return Ready()
    raw = fold_letter_emoji(tok.raw).lower()
    found = list(_TIME.finditer(raw))
    if not found:
        raise ParseError("Type: " + USAGE["tune"])
    m = found[-1]  # the last time expression is the new time (names rarely end in numbers)
    if m.group("m") is not None:
        seconds = number(m.group("m")) * 60 + number(m.group("s"))
    elif m.group("mins") is not None:
        seconds = number(m.group("mins")) * 60 + number(m.group("secs") or "0")
    else:
        seconds = number(m.group("plain"))
    rest = normalize(raw[: m.start()] + " " + raw[m.end():]).split()
    rest = [w for w in rest if w not in {"raise", "set", "increase", "change", "to", "time", "=",
                                         "lower", "decrease", "reduce", "back"}]
    names = [t.name for t in state.seats[seat].tanks]
    tank = match_tank(names, " ".join(rest))
    if tank is None:
        raise ParseError(f"Name one of your puzzles ({', '.join(names)}): " + USAGE["tune"])
    return RaiseTime(puzzle=tank, seconds=seconds)


_RARITY_WORDS = {
    "common": 0, "commons": 0, "c": 0,
    "uncommon": 1, "uncommons": 1, "u": 1, "unc": 1,
    "rare": 2, "rares": 2, "r": 2,
}


def _read_rarity(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    options = rarity_options(state.seats[seat].extra_count)
    if tok.list in (["none"], ["no", "extras"], ["nothing"], ["ok"], ["continue"], ["go", "on"]):
        return ChooseRarities()
    counts = [0, 0, 0]
    words = [w for w in tok.list if w not in {"and", "plus", "+", "-", "x"}]
    m = re.fullmatch(r"(?:#|option |choice )(\d+)", " ".join(words))
    if m:
        i = number(m.group(1)) - 1
        if not 0 <= i < len(options):
            raise ParseError(f"Choose an option from 1 to {len(options)}.")
        c, u, r = options[i]
        return ChooseRarities(common=c, uncommon=u, rare=r)
    i = 0
    found = False
    while i < len(words):
        w = words[i]
        if w.isdecimal() and i + 1 < len(words) and words[i + 1] in _RARITY_WORDS:
            counts[_RARITY_WORDS[words[i + 1]]] += number(w)
            i += 2
            found = True
            continue
        if w in _RARITY_WORDS:
            counts[_RARITY_WORDS[w]] += 1
            found = True
        elif re.fullmatch(r"[cur]+", w):
            for ch in w:
                counts[_RARITY_WORDS[ch]] += 1
            found = True
        elif not re.fullmatch(r"\d+[cur]", w):
            raise ParseError("Type: " + USAGE["rarity"])
        else:
            counts[_RARITY_WORDS[w[-1]]] += number(w[:-1])
            found = True
        i += 1
    if not found:
        raise ParseError("Type: " + USAGE["rarity"])
    return ChooseRarities(common=counts[0], uncommon=counts[1], rare=counts[2])


def _read_hand(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    tiles = state.seats[seat].setup_letters
    if tok.list in (["keep", "all"], ["all"], ["keep", "them", "all"], ["keep"]) and \
            len(tiles) == HAND_SIZE:
        return ChooseHand(letters=tuple(tiles))
    verb = next((w for w in tok.list if w in {"keep", "drop", "discard", "remove", "without"}), None)
    letters: list[str] = []
    for w in tok.list:
        if w in {"keep", "drop", "discard", "remove", "without", "and", "hand", "tiles"}:
            continue
        if w.isalpha():
            letters += [ch.upper() for ch in w] if len(w) <= len(tiles) else []
        else:
            raise ParseError("Type: " + USAGE["hand"])
    if not letters:
        raise ParseError("Type: " + USAGE["hand"])
    if verb in {"drop", "discard", "remove", "without"} or \
            (verb is None and len(letters) == len(tiles) - HAND_SIZE and len(letters) < HAND_SIZE):
        unknown = [ch for ch in letters if ch not in tiles]
        if unknown:
            raise ParseError(f"You do not have {', '.join(unknown)}; your tiles: {' '.join(tiles)}.")
        return ChooseHand(letters=tuple(ch for ch in tiles if ch not in letters))
    return ChooseHand(letters=tuple(letters))


# ---------------------------------------------------------------------------- turns
def _flags(words: list[str]) -> tuple[bool, bool]:
    text = f" {' '.join(words)} "
    surge = " power surge " in text or any(w in ("surge", "ps") for w in words)
    evidence = " new evidence " in text or any(w in ("evidence", "ne") for w in words)
    return surge, evidence


_FLAG_WORDS = {"power", "surge", "ps", "new", "evidence", "ne", "and", "with", "play", "using", "+"}


def _read_turn(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    me = state.seats[seat]
    names = [t.name for t in me.tanks]
    words = tok.list
    tank: str | None = None
    start = 0
    while start < len(words) and words[start] in LEAD:
        start += 1
    action_at = None
    # A phrase naming a tank has at most as many words as the name has letters (see
    # match_tank), so only that many words are tried as one (not every prefix: quadratic).
    longest = max((len(n.replace(" ", "")) for n in names), default=0)
    for i in range(start + 1, min(len(words), start + longest + 1)):
        if words[i] in ACTIONS:
            found = match_tank(names, " ".join(words[start:i]))
            if found is not None:
                tank, action_at = found, i
                break
    if action_at is None:
        if start < len(words) and words[start] in ACTIONS:
            action_at = start
        else:
            raise ParseError("Type: " + USAGE["turn"])
    action = ACTIONS[words[action_at]]
    rest = words[action_at + 1:]
    # "... with <tank>" / "... using <tank>" after the action
    if tank is None:
        # words after each position that could name a tank: a longer tail names none, so it
        # is never joined (joining every tail would be quadratic in the message length)
        named = [0] * (len(rest) + 1)
        for j in range(len(rest) - 1, -1, -1):
            named[j] = named[j + 1] + (rest[j] not in _FLAG_WORDS)
        for j, w in enumerate(rest):
            if w in LEAD and named[j + 1] <= longest:
                tail = [x for x in rest[j + 1:] if x not in _FLAG_WORDS]
                found = match_tank(names, " ".join(tail))
                if found is not None:
                    tank = found
                    rest = rest[:j] + [x for x in rest[j + 1:] if x in _FLAG_WORDS]
                    break
    if tank is None:
        unused = me.unused()
        if len(unused) == 1:
            tank = unused[0].name
        else:
            raise ParseError("Name the tank you use: " + USAGE["turn"])

    if action == "ask":
        word: str | None = None
        word_at = -1
        exclude: Clue | None = None
        i = 0
        while i < len(rest):
            w = rest[i]
            if w in NEGATIONS and i + 1 < len(rest) and rest[i + 1].upper() in CLUES and \
                    (word is not None or i + 2 < len(rest)):
                exclude = rest[i + 1].upper()  # type: ignore[assignment]  # (a Clue: checked in CLUES)
                i += 2
                continue
            if w == "-" and i + 1 < len(rest) and rest[i + 1].upper() in CLUES:
                exclude = rest[i + 1].upper()  # type: ignore[assignment]  # (a Clue: checked in CLUES)
                i += 2
                continue
            if word is None and w.isalpha():
                word, word_at = w.upper(), i
            elif word is not None and exclude is None and w.upper() in CLUES and \
                    i == len(rest) - 1:
                exclude = w.upper()  # type: ignore[assignment]  # (a Clue: checked in CLUES)
            elif w not in _FLAG_WORDS:
                raise ParseError("Type: use <tank> ask <word> not <ANY|ODD|TWO>")
            i += 1
        if word is None:
            raise ParseError("Type: use <tank> ask <word> not <ANY|ODD|TWO>")
        if exclude is None:
            raise ParseError(f"Say which clue you refuse: use {tank} ask {word} not <ANY|ODD|TWO>")
        surge, evidence = _flags(words[:action_at] + rest[:word_at] + rest[word_at + 1:])
        return TakeTurn(tank=tank, action="ask", word=word, exclude=exclude, power_surge=surge,
                        new_evidence=evidence)
    surge, evidence = _flags(words[:action_at] + rest)
    if action == "guess":
        letters = _letters([w for w in rest if w not in _FLAG_WORDS])
        others = [w for w in rest if w not in _FLAG_WORDS and not (len(w) == 1 and w.isalpha())]
        if len(letters) != 1 or others:
            raise ParseError("Type: use <tank> guess <one letter>")
        return TakeTurn(tank=tank, action="guess", letter=letters[0], power_surge=surge,
                        new_evidence=evidence)
    if [w for w in rest if w not in _FLAG_WORDS]:
        raise ParseError("Type: use <tank> restore")
    return TakeTurn(tank=tank, action="restore", power_surge=surge, new_evidence=evidence)


def _read_give_up(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    if tok.has("insurance", "insure") or tok.phrase("new evidence"):
        return GiveUp(insurance=True)
    rest = [w for w in tok.list if w not in {"give", "up", "giveup", "drop", "lose", "reveal",
                                             "letter"}]
    letters = _letters(rest)
    if len(letters) != 1 or len(rest) != 1:
        raise ParseError("Type: " + USAGE["give_up"])
    return GiveUp(letter=letters[0])


# Words a clue answer may carry besides the clue itself ("I give ODD", "clue: two").
_CLUE_FILLER = {"i", "give", "giving", "clue", "answer", "choose", "pick", "the", "please", "my",
                "is", "it", "with", "and", "plus", "+", "unexpected", "sabotage", "us"}


def _read_clue(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    """Exactly one clue named as the answer, and nothing that contradicts it: "definitely not
    odd", "ODD or TWO" or a whole turn command are refused with the allowed forms."""
    words = [w for w in tok.list if w not in _CLUE_FILLER]
    if len(words) != 1 or words[0].upper() not in CLUES:
        choices = " or ".join(f"`{c}`" for c in prompt.choices[:2])
        raise ParseError(f"Answer with one clue, nothing else: {choices}"
                         + (" (add `unexpected sabotage` to play it)"
                            if state.seats[seat].items.unexpected_sabotage else "")
                         + ". Nothing was applied.")
    us = tok.phrase("unexpected sabotage") or tok.has("us")
    if not us and tok.has("unexpected", "sabotage"):
        raise ParseError("Type `unexpected sabotage` in full to play it. Nothing was applied.")
    return ChooseClue(clue=words[0].upper(), unexpected_sabotage=us)


def _read_swap(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    me = state.seats[seat]
    us = _unexpected(tok)
    words = [w for w in tok.list if w not in {"unexpected", "sabotage", "us", "and"}]
    offer = me.offers[-1].letter if me.offers else None
    letters = _letters([w for w in words if w not in {"swap", "for", "out", "give", "trade"}])
    in_hand = [ch for ch in letters if ch in me.hand]
    if not in_hand and (set(words) & DECLINE or tok.phrase("no swap")):
        return Swap(give=None, unexpected_sabotage=us)
    if len(in_hand) == 1 and all(ch in (in_hand[0], offer) for ch in letters):
        return Swap(give=in_hand[0], unexpected_sabotage=us)
    if len(letters) == 1 and not in_hand:
        raise ParseError(f"{letters[0]} is not in your hand ({' '.join(me.hand)}): "
                         f"swap one of your letters, or no swap.")
    raise ParseError(usage_line(state, seat, prompt))


def _read_guess_total(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    numbers = [number(w) for w in tok.list if w.isdecimal()]
    if len(numbers) != 1:
        raise ParseError(usage_line(state, seat, prompt))
    return GuessTotal(total=min(numbers[0], 10**6), unexpected_sabotage=_unexpected(tok))


def _read_sabotage_tank(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    cur = state.current
    restored = cur.restored if cur else []
    words = [w for w in tok.list if w not in {"sabotage", "sab", "tank", "the"}]
    if not words:
        raise ParseError("Type: sabotage <one of: " + ", ".join(restored) + ">")
    owner = state.seats[1 - seat]
    name = match_tank([t.name for t in owner.tanks], " ".join(words))
    if name is None:
        raise ParseError("Type: sabotage <one of: " + ", ".join(restored) + ">")
    return SabotageTank(tank=name)


def _read_sabotage_option(state: DecoderState, seat: int, tok: Tokens, prompt: Prompt) -> Command:
    words = set(tok.list)
    if words & YES and not words & DECLINE:
        return UnexpectedSabotage(use=True)
    if words & DECLINE and not words & YES:
        return UnexpectedSabotage(use=False)
    raise ParseError("Type: " + USAGE["sabotage_option"])


_READERS = {
    "tune": _read_tune,
    "rarity": _read_rarity,
    "hand": _read_hand,
    "turn": _read_turn,
    "give_up": _read_give_up,
    "clue": _read_clue,
    "swap": _read_swap,
    "guess_total": _read_guess_total,
    "sabotage_tank": _read_sabotage_tank,
    "sabotage_option": _read_sabotage_option,
}


_MOVE_LEADS = ("use", "using", "with", "tank", "ask", "guess", "restore", "give up", "give",
               "giveup", "insurance", "insure", "swap", "no swap", "keep", "drop", "discard",
               "remove", "raise", "ready", "sabotage", "sab", "unexpected", "pass", "odd", "two",
               "power surge", "new evidence", "skip", "decline", "trade", "common", "commons",
               "uncommon", "uncommons", "unc", "rare", "rares", *DIGITS)
_MOVE_ANSWERS = ("any", "no", "nope", "none", "nothing", "yes", "y", "ok", "us", "done",
                 *"abcdefghijklmnopqrstuvwxyz")


def move_words(state: DecoderState) -> MoveWords:
    """A move typed in the game room starts with a keyword of a decision (use, ask, guess,
    give up, swap, sabotage, odd, two...), a number or a puzzle's name (the match's public
    settings), or is a short answer (a single letter, any, no, yes...); anything else there is
    chat."""
    names = [n.lower() for n in state.settings.puzzles]
    return MoveWords(lead=(*_MOVE_LEADS, *names, *{n.split()[0] for n in names if n.split()}),
                     whole=_MOVE_ANSWERS)
