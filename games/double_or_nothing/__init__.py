"""Double or Nothing (seed 004_3028570b3bfc985e): shed a hand you may not reorder by
playing ever stronger sets, with jokers, the doubling die and the Crawford rule. `GAME` is
the engine the runtime discovers."""

from games.double_or_nothing.engine import DoubleOrNothing
from games.double_or_nothing.settings import DoubleOrNothingSettings
from games.double_or_nothing.state import DoubleOrNothingState

GAME = DoubleOrNothing()

__all__ = ["GAME", "DoubleOrNothing", "DoubleOrNothingSettings", "DoubleOrNothingState"]
