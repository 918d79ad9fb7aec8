"""The type checker passes over games/ and bot/ (mypy, configured in pyproject.toml), and
every `# type: ignore` there names the error it silences and says why.

A cold run takes about 12 s on a quiet machine; later runs reuse .mypy_cache/."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize

from tests.support.import_graph import ROOT

#: `# type: ignore[code, ...]` followed by a second comment with the reason.
_EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(,\s*[a-z-]+)*\]\s+#\s*\S")
_IGNORE = re.compile(r"#\s*type:\s*ignore")


def unexplained_ignores(source: str) -> list[int]:
    """The lines whose comment says `type: ignore` without a code or without a reason."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if (token.type == tokenize.COMMENT and _IGNORE.search(token.string)
                and not _EXPLAINED.search(token.string)):
            found.append(token.start[0])
    return found


def test_mypy_passes_over_games_and_bot() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, f"mypy (pyproject.toml [tool.mypy]):\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout


def test_every_type_ignore_has_a_code_and_a_reason() -> None:
    paths = sorted([*(ROOT / "games").rglob("*.py"), *(ROOT / "bot").rglob("*.py")])
    assert len(paths) > 200
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in paths
           for line in unexplained_ignores(path.read_text())]
    assert not bad, "a `# type: ignore[code]  # why` is needed at:\n" + "\n".join(bad)


def test_the_ignore_check_itself() -> None:
    assert unexplained_ignores("x = f()  # type: ignore[arg-type]  # f is untyped\n") == []
    assert unexplained_ignores("x = f()  # type: ignore[arg-type, misc]  # untyped\n") == []
    assert unexplained_ignores("x = 1\ny = f()  # type: ignore\n") == [2]
    assert unexplained_ignores("y = f()  # type: ignore[arg-type]\n") == [1]
    assert unexplained_ignores("y = f()  # noqa  # type: ignore[misc]\n") == [1]
    assert unexplained_ignores('s = "# type: ignore"\n') == []  # (a string, not a comment)
