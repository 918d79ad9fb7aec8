"""Which core plays arena matches: the compiled one, or the pure-Python source it came from.

`setup.py` compiles a module (e.g. bot/arena/match.py) with Cython under a distinct name
(bot/arena/_match_c) and embeds the SHA-256 of the source it compiled as `SOURCE_SHA256`.
The pure module asks `compiled(...)` for its twin at import and takes the twin's functions
only if that hash is the .py's on disk now: an edit without a rebuild never runs old
compiled code. `UMPIRE_PURE_PYTHON=1` forces pure Python.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

COMPILED, PURE = "compiled", "pure Python"
REBUILD = "pip install -e ."
# Set once a stale twin was reported, so that worker processes do not repeat it.
_WARNED = "UMPIRE_CORE_STALE_REPORTED"


def source_hash(path: str | Path) -> str:
    """The SHA-256 (hex) of a source file's bytes, as setup.py embeds it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def forced_pure() -> bool:
    """Whether UMPIRE_PURE_PYTHON asks for pure Python."""
    return os.environ.get("UMPIRE_PURE_PYTHON", "") not in ("", "0")


def compiled(name: str, source: str | Path) -> ModuleType | None:
    """The compiled twin `name` of the module at `source`, if it is built, allowed, and was
    built from that very file; None otherwise (a stale twin is reported once, on stderr)."""
    if forced_pure():
        return None
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None
    if getattr(module, "SOURCE_SHA256", None) == source_hash(source):
        return module
    if not os.environ.get(_WARNED):
        os.environ[_WARNED] = "1"
        print(f"umpire: the compiled {name} was built from an older {Path(source).name}; "
              f"running pure Python. Rebuild it with: {REBUILD}", file=sys.stderr)
    return None
