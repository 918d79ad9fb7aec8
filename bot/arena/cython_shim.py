"""Stands in for the `cython` module when Cython is not installed (it is needed only to
build the compiled core): pure Python reads `cython.compiled` and nothing else, since the
C types are written as annotations of locals, which Python does not evaluate."""

compiled = False


def _same(function):
    return function


ccall = cfunc = inline = _same


def exceptval(*_args, **_kwargs):
    return _same
