"""The arena's optional compiled core (pyproject.toml holds the metadata): Cython compiles
games/rps_poker/players.py and bot/arena/match.py, each as it is, into a twin module
(games.rps_poker._players_c, bot.arena._match_c) with the SHA-256 of its source embedded,
so that bot.arena.core uses a twin only while its .py is unchanged; a .pxd beside a source
is copied beside its twin. Without a C compiler, or without Cython, the build warns in one
line and installs pure Python. `UMPIRE_PURE_PYTHON=1` in the build's environment skips
the compile on purpose (a build in seconds rather than a minute: the wheel test uses it)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# (source, the compiled twin's module name)
# The players' twin comes first: the match twin cimports its classes (players.pxd, copied
# beside it, declares them), to call the built-in bots' methods in C.
TWINS = (("games/rps_poker/players.py", "games.rps_poker._players_c"),
         ("bot/arena/match.py", "bot.arena._match_c"),
         ("bot/arena/wave.py", "bot.arena._wave_c"),
         ("bot/arena/hostloop.py", "bot.arena._hostloop_c"))
#: Set (to anything but 0) in a build's environment: install pure Python, compile nothing.
NO_COMPILE = "UMPIRE_PURE_PYTHON"


def twin_source(source: Path, module: str, into: Path) -> Path:
    """A copy of `source` named after its twin `module`, with the hash of `source` appended
    (Cython names a module after its file), its .pxd beside it if it has one, and the
    packages' __init__.py files, so that one twin can cimport another."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    target = into.joinpath(*module.split(".")).with_suffix(".py")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source.read_text() + f"\nSOURCE_SHA256 = {digest!r}\n")
    declarations = source.with_suffix(".pxd")
    if declarations.exists():
        target.with_suffix(".pxd").write_text(declarations.read_text())
    for package in target.parents:  # packages, for the cimport between twins
        if package == into:
            break
        package.joinpath("__init__.py").touch()
    return target


def rules_pages(into: Path) -> list[Path]:
    """Copy each docs/rules/<slug>.md to games/<slug with underscores>/rules.md under `into`
    (a build's folder): an installed package has no docs/, and /rules reads the page there
    (`Game.rules_page`, games/core/pages.py). docs/rules stays the one source."""
    written = []
    for page in sorted((HERE / "docs" / "rules").glob("*.md")):
        package = into / "games" / page.stem.replace("-", "_")
        if package.is_dir():
            target = package / "rules.md"
            target.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
            written.append(target)
    return written


class BuildPyWithRules(build_py):
    """build_py, then the rules pages into the built game packages."""

    def run(self) -> None:
        super().run()
        rules_pages(Path(self.build_lib))


class OptionalBuildExt(build_ext):
    """build_ext that cythonizes the twins first, and warns instead of failing: the
    pure-Python modules are the same code, only slower."""

    def finalize_options(self) -> None:
        self.not_built: BaseException | None = None
        if os.environ.get(NO_COMPILE, "").strip() not in ("", "0"):
            self.not_built = RuntimeError(f"{NO_COMPILE} is set")
            self.distribution.ext_modules = []
            super().finalize_options()
            return
        try:
            from Cython.Build import cythonize

            into = HERE / "build" / "twins"
            self.distribution.ext_modules = cythonize(
                [Extension(module, [str(twin_source(HERE / source, module, into))])
                 for source, module in TWINS],
                compiler_directives={"language_level": 3}, include_path=[str(into)],
                quiet=True)
        except Exception as exc:  # no Cython, or it refused the source
            self.not_built = exc
            self.distribution.ext_modules = []
        super().finalize_options()

    def run(self) -> None:
        try:
            if self.not_built is None:
                super().run()
        except Exception as exc:  # no compiler, or a failed compile
            self.not_built = exc
        if self.not_built is not None:
            self.extensions = []  # nothing to copy or to list in a wheel
            lines = str(self.not_built).strip().splitlines() or [""]
            reason = f"{type(self.not_built).__name__}: {lines[-1]}"
            reason = reason if len(reason) <= 100 else reason[:99] + "…"
            print(f"umpire: the compiled arena core was not built ({reason}); "
                  "pure Python will run (the same results, slower).", file=sys.stderr)


if __name__ == "__main__":  # (as pip's build backend runs it; the tests import it)
    setup(ext_modules=[Extension(module, []) for _, module in TWINS],
          cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithRules})
