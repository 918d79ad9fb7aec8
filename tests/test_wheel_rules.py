"""An installed umpire shows each game's whole rules page (issue 44's one behaviour change).

`/rules` used to read `docs/rules/` beside the source tree, which `pip install .` and the
Docker image do not ship: installed, it showed only the game's one-paragraph summary. Here
the project is built as a wheel (the way pip and the Dockerfile build it, compiled core
skipped to save a minute: `UMPIRE_PURE_PYTHON`), installed into a fresh virtual
environment with pip, and run from a folder with no docs/ near it: `umpire play`'s `/rules`
and `Game.rules_page()` must give the page as docs/rules has it.

The fresh environment takes its dependencies (discord.py, SQLAlchemy, ...) from the test's
own environment through a path file placed after its own site-packages: the wheel's `bot`
and `games` are found first (checked), and nothing is downloaded but the build's tools.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "docs" / "rules"

pytestmark = pytest.mark.slow  # a wheel build and a venv: about 40 s on a quiet machine

#: What a source tree copy leaves out: what a checkout has that a build must not see.
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                  ".mypy_cache", ".pytest_cache", ".ruff_cache", "*.so", "*.c")


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)  # type: ignore[call-overload]  # (kwargs: cwd, env, input)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel built from this tree installed by pip: its bin folder."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    shutil.copytree(REPO, source, ignore=LEFT_OUT)
    env = {**os.environ, "UMPIRE_PURE_PYTHON": "1"}
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(root / "dist"),
          str(source)], env=env)
    (wheel,) = (root / "dist").glob("umpire-*.whl")
    venv = root / "fresh"
    _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-deps", str(wheel)])
    purelib = _run([str(venv / "bin" / "python"), "-c",
                    "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    # The dependencies: this environment's site-packages, after the fresh one's own (a path
    # file's folder is searched, but its own path files, the editable install's, are not run).
    Path(purelib, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def test_the_installed_package_is_the_wheel_not_this_checkout(installed: Path,
                                                              tmp_path: Path) -> None:
    where = _run([str(installed / "python"), "-c",
                  "import bot, games; print(games.__file__); print(bot.__file__)"],
                 cwd=tmp_path).stdout.split()
    assert all(str(installed.parent) in path for path in where), where
    assert not any(path.startswith(str(REPO)) for path in where), where


def test_rules_page_of_every_game_is_the_whole_page_when_installed(installed: Path,
                                                                    tmp_path: Path) -> None:
    script = ("import json; from games.registry import all_games; "
              "print(json.dumps({g.slug: g.rules_page() for g in all_games().values()}))")
    import json

    pages = json.loads(_run([str(installed / "python"), "-c", script], cwd=tmp_path).stdout)
    assert set(pages) >= {page.stem for page in RULES.glob("*.md")}
    for slug, page in pages.items():
        if (RULES / f"{slug}.md").is_file():
            assert page == (RULES / f"{slug}.md").read_text(encoding="utf-8"), slug


def test_rules_in_umpire_play_show_the_pages_last_line_when_installed(installed: Path,
                                                                      tmp_path: Path) -> None:
    """`/rules N` in a terminal match, paged to its end: the page's last paragraph is there,
    which the one-paragraph summary of old did not reach."""
    page = (RULES / "decoder.md").read_text(encoding="utf-8")
    last_words = page.strip().splitlines()[-1].split()[-4:]
    shown = _run([str(installed / "umpire"), "play", "decoder", "--db", str(tmp_path / "m.db")],
                 cwd=tmp_path, input="".join(f"/rules {n}\n" for n in range(1, 21)) + "/quit\n",
                 env={**os.environ, "COLUMNS": "100"}).stdout
    flat = " ".join(shown.split())
    assert " ".join(last_words) in flat, shown[-3000:]
    pages = re.findall(r"Rules page (\d+) of (\d+)", shown)
    assert pages and pages[-1][0] == pages[-1][1] != "1", pages  # paged to its last page
