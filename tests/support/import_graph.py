"""What the import-graph tests of games/ and bot/ share: the modules of a package tree, where
an import statement points, and each module imported alone in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# For each module, a forked child that has imported none of the tree yet imports that one
# alone; prints the failures as JSON. argv: the module names (JSON), then the packages every
# child shares (imported once, before the fork).
_IMPORT_EACH = """
import json, os, sys, traceback
for shared in json.loads(sys.argv[2]):
    __import__(shared)
failed = {}
for name in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            __import__(name)
            code = 0
        except BaseException:
            os.write(write, traceback.format_exc().encode())
            code = 1
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        error = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed[name] = error or f"exit status {status}"
print(json.dumps(failed))
"""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(top: Path) -> dict[str, Path]:
    """Every module of the package tree `top`, by dotted name."""
    return {module_name(p): p for p in sorted(top.rglob("*.py"))}


def import_targets(node: ast.Import | ast.ImportFrom, name: str, path: Path,
                   known: dict[str, Path]) -> set[str]:
    """The known modules one import statement of module `name` names (`from pkg import sub`
    is the submodule `pkg.sub`, not the package)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in known}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    base = node.module or ""
    if node.level:
        base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1],
                         *([base] if base else [])])
    targets: set[str] = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in known:
            targets.add(sub)
        elif base in known:
            targets.add(base)
    return targets


def runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import that runs, when the module loads or later: module level and inside
    functions, never under `if TYPE_CHECKING:` (those run only for the type checker)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for alt in child.orelse:
                    visit(alt)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def runtime_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of `known` it imports anywhere (`runtime_imports`; `from pkg
    import sub` is an edge to the submodule `pkg.sub`, not to the package)."""
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        edges: set[str] = set()
        for node in runtime_imports(ast.parse(path.read_text(), str(path))):
            edges |= import_targets(node, name, path, known)
        edges.discard(name)
        graph[name] = edges
    return graph


def failures_importing_alone(names: list[str], shared: list[str]) -> dict[str, str]:
    """Module -> the traceback of importing it alone in a fresh interpreter (none: {})."""
    done = subprocess.run([sys.executable, "-c", _IMPORT_EACH, json.dumps(names),
                           json.dumps(shared)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    failed: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return failed


def circles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Every elementary circle of the graph, each as its modules in import order, starting
    from its alphabetically first module (so that one circle has one spelling)."""
    found: set[tuple[str, ...]] = set()
    for group in _strongly_connected(graph):
        if len(group) < 2:
            continue
        for start in sorted(group):  # circles through `start` and later modules only
            stack = [(start, (start,))]
            while stack:
                node, path = stack.pop()
                for nxt in graph[node] & group:
                    if nxt == start:
                        found.add(path)
                    elif nxt > start and nxt not in path:
                        stack.append((nxt, (*path, nxt)))
    return found


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The graph's strongly connected groups (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    groups.append(group)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return groups
