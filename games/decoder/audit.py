"""What the conformance harness checks in every state: which values are secret from whom (its
leak check), and the invariants the rules keep."""

from __future__ import annotations

from games.core.contract import Secret
from games.decoder import rules
from games.decoder.letters import ALPHABET, HAND_SIZE, INITIAL
from games.decoder.state import DecoderState
from games.decoder.text import extra_token, tank_token, timer_token


def secrets(state: DecoderState) -> list[Secret]:
    out: list[Secret] = []
    for seat, me in enumerate(state.seats):
        for t in me.tanks:
            out.append(Secret(value=tank_token(seat, t.name, t.units),
                              known_to=frozenset({seat}), label="tank value"))
    for seat, me in enumerate(state.seats):
        mine = frozenset({seat})
        for t in me.tanks:
            if t.extra_tile:
                out.append(Secret(value=extra_token(t.name), known_to=mine,
                                  label=f"seat {seat} extra tile"))
        if state.phase == "play":
            out.append(Secret(value=timer_token(seat, me.timer), known_to=frozenset(),
                              label="recharge timer"))
    # A hand as it stood when New Evidence last had it answered, or a guess last took a
    # letter of it: those come from the hand without its owner deciding anything (the asker's
    # move discloses a part of it), so the value changes with each and the old one counts as
    # revealed. (A correct guess shows the hand held the letter, even one the guesser had
    # seen privately before, as an offer it did not swap in.)
    for seat, me in enumerate(state.seats):
        if me.hand_chosen:
            answered = sum(1 for r in state.history if r.seat != seat and r.new_evidence
                           and r.answers)
            out.append(Secret(value=f"hand-of-seat-{seat}-after-{answered}-evidence-{me.lost}-lost",
                              known_to=frozenset({seat}), label="hand (as New Evidence saw it)"))
    # Letters a seat knows privately (hand, setup tiles, offers), unless named in public.
    for letter in ALPHABET:
        if letter in state.named:
            continue
        knowers = frozenset(i for i in (0, 1) if letter in state.seats[i].private_letters)
        if knowers:
            out.append(Secret(value=letter, known_to=knowers, label="private letter"))
    return out


def invariants(state: DecoderState) -> None:
    seen: set[str] = set()
    for seat, me in enumerate(state.seats):
        assert len(me.hand) == len(set(me.hand)), f"seat {seat} holds a letter twice"
        assert all(ch in ALPHABET for ch in me.hand)
        assert not seen & set(me.hand), "a letter is in both hands"
        seen |= set(me.hand)
        assert not set(me.hand) & set(state.revealed), "a revealed letter is in a hand"
        if me.hand_chosen:
            assert len(me.hand) == HAND_SIZE - me.lost, f"seat {seat} tiles not conserved"
        assert len(me.setup_letters) == len(set(me.setup_letters))
        if me.initial:
            assert len(me.initial) == sum(INITIAL.values())
        assert len(me.extras) <= me.extra_count
        for t in me.tanks:
            assert 1 <= t.units <= rules.MAX_UNITS, f"tank {t.name} at {t.units} units"
            assert t.seconds >= 1
        assert me.unused(), f"seat {seat} has no unused tank"
        assert 0 <= me.bank <= state.settings.time_bank
        assert all(v >= 0 for v in me.items.model_dump().values())
        assert me.timer >= 0
    a, b = state.seats
    assert not set(a.setup_letters) & set(b.setup_letters), "setup tiles shared"
    assert len(state.revealed) == len(set(state.revealed)), "a letter revealed twice"
    assert len(state.used_words) == len(set(state.used_words)), "a word asked twice"
    if state.phase == "play" and state.step == "turn":
        assert state.active is not None and state.seats[state.active].timer == 0
    assert sum(s.lost for s in state.seats) == len(state.revealed)
