"""Tournament formats: pure, deterministic, JSON-storable (see `base.Format`).

`FORMATS` names every format a host can choose; `format_named` looks one up with an
error that lists the valid names.
"""

from __future__ import annotations

from .base import Format, FormatError, FormatState, Pairing, Result, Standing
from .double import DoubleElimination
from .roundrobin import RoundRobin
from .single import SingleElimination
from .swiss import Swiss

FORMATS: dict[str, Format] = {
    "single": SingleElimination(),
    "double": DoubleElimination(),
    "roundrobin": RoundRobin(),
    "swiss": Swiss(),
}


def format_named(name: str) -> Format:
    """The format called `name` ("single", "double", "roundrobin", "swiss")."""
    try:
        return FORMATS[name.strip().lower()]
    except KeyError:
        raise FormatError(
            f"There is no tournament format {name!r}; choose one of: {', '.join(FORMATS)}."
        ) from None


__all__ = [
    "FORMATS",
    "Format",
    "FormatError",
    "FormatState",
    "Pairing",
    "Result",
    "Standing",
    "format_named",
]
