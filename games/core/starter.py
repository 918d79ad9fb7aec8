"""The decision shared by the games whose first player is chosen: seat 0 (the first seat)
says who starts, in the public room, with "me" or "opponent"."""

from __future__ import annotations

from games.core.contract import OnTimeout, Prompt


def choose_starter_prompt(key: str, *, unit: str, then: str, seconds: float,
                          reminders: tuple[float, ...], timeout_text: str,
                          on_timeout: OnTimeout = OnTimeout.DEFAULT) -> Prompt:
    """`unit`: what the starter starts ("round", "bout"); `then`: the sentence after the
    instruction that says what starting means in this game."""
    return Prompt(
        key=key, seat=0, kind="choose_starter", private=False,
        text=f"Choose who starts {unit} 1: type 'me' (you start) or 'opponent'. {then}",
        time_limit=seconds, reminders=reminders, on_timeout=on_timeout,
        timeout_text=timeout_text, choices=("me", "opponent"))
