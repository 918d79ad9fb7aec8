"""Extract from Discord's OpenAPI spec the part the fake Discord uses.

Usage: ``python -m testbed.fake_discord.spec.extract PATH/TO/openapi.json``

The input is ``specs/openapi.json`` of discord/discord-api-spec (MIT, see LICENSE beside this
file). The output, ``openapi.json`` beside this file, keeps the operations of every route the
fake serves (its router's table) and the components they reach through ``$ref``, unchanged;
everything else is dropped. Run it again after adding a route to the fake
(tests/fake_discord/test_spec.py fails until then).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OUTPUT = HERE / "openapi.json"
#: Where the extract comes from (recorded in the output's info).
SOURCE = "discord/discord-api-spec, specs/openapi.json at 74fda0fad044407ea280043a03ffc9bc64c4e49e"


def _param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def covers(template: str, spec_path: str) -> bool:
    """The fake's route ``template`` serves requests to ``spec_path``: the same segments, a
    parameter for a parameter (the two name them differently), and a parameter of the fake's
    also serves a fixed segment of the spec's (``{message_id}``: ``@original``)."""
    mine, theirs = template.split("/"), spec_path.split("/")
    return len(mine) == len(theirs) and all(
        a == b or _param(a) for a, b in zip(mine, theirs, strict=True))


def fake_routes() -> list[tuple[str, str]]:
    """(method, template) of every route the fake serves."""
    from testbed.fake_discord.server import FakeDiscord

    return [(r.method, r.template) for r in FakeDiscord().router.routes]


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.append(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def extract(spec: dict[str, Any], routes: list[tuple[str, str]]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for method, template in routes:
        served = [p for p in spec["paths"] if covers(template, p)
                  and method.lower() in spec["paths"][p]]
        if not served:
            raise SystemExit(f"the spec has no operation for {method} {template}")
        for path in served:
            entry = paths.setdefault(path, {})
            if "parameters" in spec["paths"][path]:
                entry["parameters"] = spec["paths"][path]["parameters"]
            entry[method.lower()] = spec["paths"][path][method.lower()]
    components: dict[str, dict[str, Any]] = {}
    pending = _refs(paths)
    while pending:
        ref = pending.pop()
        _, _, kind, name = ref.split("/")
        if name in components.get(kind, {}):
            continue
        target = spec["components"][kind][name]
        components.setdefault(kind, {})[name] = target
        pending.extend(_refs(target))
    return {
        "openapi": spec["openapi"],
        "info": {**spec["info"], "x-extracted-from": SOURCE},
        "paths": dict(sorted(paths.items())),
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    spec = json.loads(Path(argv[0]).read_text())
    result = extract(spec, fake_routes())
    OUTPUT.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")
    print(f"{OUTPUT}: {len(result['paths'])} paths, "
          f"{sum(len(v) for v in result['components'].values())} components")


if __name__ == "__main__":
    main(sys.argv[1:])
