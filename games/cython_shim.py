"""Stands in for the `cython` module when Cython is not installed (it is needed only to
build the compiled arena core, see setup.py): the modules written in Cython's pure-Python
mode (bot/arena/match.py, games/rps_poker/players.py) read `cython.compiled` and use a few
decorators; their C types are annotations, which Python does not evaluate."""

compiled = False


def _same(target):
    return target


ccall = cfunc = cclass = inline = final = _same


def exceptval(*_args, **_kwargs):
    return _same


cdivision = exceptval


def fused_type(*_types):
    """A fused type names the C specialisations of a compiled function; Python has one."""
    return object
