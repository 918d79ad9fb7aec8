"""Building Decoder's events: the audiences, the event constructor and private messages."""

from __future__ import annotations

from games.core.contract import Audience, Event, seat_name

P = seat_name
PUBLIC = Audience.public()
UMPIRE = Audience.umpire()


def ev(kind: str, audience: Audience, text: str, **data: object) -> Event:
    return Event(kind=kind, audience=audience, text=text, data=dict(data))


def tell(seat: int, kind: str, text: str, events: list[Event]) -> None:
    """Tell one seat something in private."""
    events.append(ev(kind, Audience.to(seat), text))


def tell_and_log(seat: int, kind: str, text: str, events: list[Event]) -> None:
    """Tell one seat something in private, and copy it to the umpire log under their name."""
    tell(seat, kind, text, events)
    events.append(ev(kind, UMPIRE, f"{P(seat)}: {text}"))
