"""Every REST request the bot sends and every answer the fake gives, checked against
Discord's OpenAPI spec (the extract in spec/openapi.json).

A request is checked against its operation's request body schema and query parameters, an
answer against the response its status is declared with (a status the operation does not
declare is itself a violation: 200 where Discord answers 201).

Two well-kept JSON Schema (2020-12) validators share the work: `jsonschema-rs` decides
(compiled once per process and schema, about 0.1 ms for a message of 25 buttons, where the
pure-Python `jsonschema` takes about 20 ms), and only for a value it refuses does
`jsonschema` say why, at the place in the document and through the union branch meant.

Tolerances in requests (what discord.py sends and Discord accepts, where the spec is
stricter):
- a snowflake may be a JSON number: discord.py sends ids it holds as ints (`recipient_id`,
  an overwrite's `id`);
- a permission set (`allow`, `deny`, `permissions`, `default_member_permissions`) may be a
  string of digits: discord.py sends overwrites' so (`set_permissions`), the spec types
  them as integers.

The fake's answers are held to the spec as written, except:
- a field error's `code` (`errors.<field>._errors[].code`) may be a string: Discord's own
  error bodies name them so ("BASE_TYPE_MAX_LENGTH"), the spec types every `code` as an
  integer;
- a 5xx answer is not checked: the spec declares none, but Discord does answer them (and the
  tests inject them to exercise discord.py's retries).
"""

from __future__ import annotations

import copy
import functools
import json
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_FILE = Path(__file__).parent / "spec" / "openapi.json"
BASE = "urn:discord-openapi"
#: Request properties the spec types as integers that discord.py sends as strings.
PERMISSION_FIELDS = frozenset({"allow", "deny", "permissions", "default_member_permissions"})
NO_BODY = object()


@dataclass(frozen=True)
class Violation:
    """One difference from the spec: the call, which part of it (its body, its query or the
    answer), and why."""

    method: str
    path: str
    part: str  # "request", "query" or "response <status>"
    message: str

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.part}): {self.message}"


def _pointer(*parts: str) -> str:
    """A URI fragment for a place in the spec (JSON pointer, percent-encoded: `{channel_id}`)."""
    pointer = "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)
    return "#/" + urllib.parse.quote(pointer, safe="/~")


def _widen(schema: dict[str, Any], alternative: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, alternative]}


def tolerant(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with the request tolerances above applied (a copy)."""
    spec = copy.deepcopy(spec)
    schemas = spec["components"]["schemas"]
    schemas["SnowflakeType"] = _widen(schemas["SnowflakeType"],
                                      {"type": "integer", "minimum": 0})
    stack: list[Any] = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                for name in PERMISSION_FIELDS & props.keys():
                    kind = props[name].get("type")
                    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
                        props[name] = _widen(props[name], {"type": "string",
                                                           "pattern": "^[0-9]+$"})
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return spec


def answer_tolerant(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with the answer tolerance above applied (a copy): field error codes may be
    strings."""
    spec = copy.deepcopy(spec)
    schemas = spec["components"]["schemas"]
    field_error = copy.deepcopy(schemas["Error"])
    field_error["properties"]["code"] = {"type": ["integer", "string"]}
    schemas["InnerErrors"]["properties"]["_errors"]["items"] = field_error
    return spec


def _segments_match(template: list[str], path: list[str]) -> int | None:
    """How many literal segments of a spec path ``template`` the request ``path`` matches
    (None: it does not match)."""
    if len(template) != len(path):
        return None
    literal = 0
    for want, got in zip(template, path, strict=True):
        if want.startswith("{") and want.endswith("}"):
            continue
        if want != got:
            return None
        literal += 1
    return literal


class SpecChecker:
    """Validates requests and answers against the spec extract."""

    def __init__(self, spec: dict[str, Any] | None = None) -> None:
        self.spec = spec if spec is not None else json.loads(SPEC_FILE.read_text())
        self._paths = [(p, p.split("/")) for p in self.spec["paths"]]
        self._sides = {"request": tolerant(self.spec), "response": answer_tolerant(self.spec)}
        self._fast_registries = {side: jsonschema_rs.Registry([(BASE, doc)])
                                 for side, doc in self._sides.items()}
        self._fast: dict[tuple[str, str], Any] = {}
        self._explainers: dict[tuple[str, str], Draft202012Validator] = {}

    def _fast_validator(self, side: str, pointer: str) -> Any:
        key = (side, pointer)
        validator = self._fast.get(key)
        if validator is None:
            validator = self._fast[key] = jsonschema_rs.validator_for(
                {"$ref": BASE + pointer}, registry=self._fast_registries[side],
                validate_formats=False)
        return validator

    @functools.cached_property
    def _registries(self) -> dict[str, Registry]:
        """`jsonschema`'s registries, built at the first refusal (about 2 s)."""
        return {side: Registry().with_resource(
                    BASE, Resource(contents=doc, specification=DRAFT202012)).crawl()
                for side, doc in self._sides.items()}

    def _explainer(self, side: str, pointer: str) -> Draft202012Validator:
        key = (side, pointer)
        validator = self._explainers.get(key)
        if validator is None:
            validator = self._explainers[key] = Draft202012Validator(
                {"$ref": BASE + pointer}, registry=self._registries[side])
        return validator

    def spec_path(self, method: str, path: str) -> str | None:
        """The spec's path for a request path (the most literal match: `@original` before
        `{message_id}`), None if the spec has none for this method."""
        parts = path.split("/")
        best: tuple[int, str] | None = None
        for template, segments in self._paths:
            score = _segments_match(segments, parts)
            if score is None or method.lower() not in self.spec["paths"][template]:
                continue
            if best is None or score > best[0]:
                best = (score, template)
        return best[1] if best else None

    def _errors(self, side: str, pointer: str, value: Any) -> list[str]:
        fast = self._fast_validator(side, pointer)
        if fast.is_valid(value):
            return []
        found = [_describe(e) for e in self._explainer(side, pointer).iter_errors(value)]
        return found or [f"at {'/'.join(map(str, e.instance_path)) or '(root)'}: {e.message[:200]}"
                         for e in fast.iter_errors(value)]

    def check_request(self, method: str, path: str, query: dict[str, str],
                      body: Any = NO_BODY) -> list[Violation]:
        """Violations of the request body's schema and the query parameters'."""
        template = self.spec_path(method, path)
        if template is None:
            return [Violation(method, path, "request", "no such operation in the spec")]
        op = self.spec["paths"][template][method.lower()]
        found: list[Violation] = []
        content = (op.get("requestBody") or {}).get("content") or {}
        media = "application/json" if "application/json" in content else next(iter(content), None)
        if body is not NO_BODY and body is not None:
            if media is None:
                found.append(Violation(method, path, "request", "the operation takes no body"))
            else:
                pointer = _pointer("paths", template, method.lower(), "requestBody", "content",
                                   media, "schema")
                found += [Violation(method, path, "request", m)
                          for m in self._errors("request", pointer, body)]
        elif (op.get("requestBody") or {}).get("required"):
            found.append(Violation(method, path, "request", "a body is required"))
        params = {p["name"]: (i, p) for i, p in enumerate(op.get("parameters") or [])
                  if p.get("in") == "query"}
        for name, raw in query.items():
            if name not in params:
                found.append(Violation(method, path, "query", f"unknown parameter {name!r}"))
                continue
            index, param = params[name]
            pointer = _pointer("paths", template, method.lower(), "parameters", str(index),
                               "schema")
            found += [Violation(method, path, "query", f"{name}: {m}")
                      for m in self._errors("request", pointer, _coerce(param["schema"], raw))]
        return found

    def check_response(self, method: str, path: str, status: int,
                       body: Any = NO_BODY) -> list[Violation]:
        """Violations of the response schema the operation declares for ``status``."""
        template = self.spec_path(method, path)
        part = f"response {status}"
        if template is None:
            return [Violation(method, path, part, "no such operation in the spec")]
        if status >= 500:
            return []
        op = self.spec["paths"][template][method.lower()]
        responses = op["responses"]
        key = str(status) if str(status) in responses else f"{str(status)[0]}XX"
        if key not in responses:
            return [Violation(method, path, part,
                              f"status {status} is not one of {sorted(responses)}")]
        response = responses[key]
        pointer = _pointer("paths", template, method.lower(), "responses", key)
        if "$ref" in response:
            pointer = response["$ref"]
            response = self.spec["components"]["responses"][pointer.rsplit("/", 1)[1]]
        content = response.get("content") or {}
        if body is NO_BODY or body is None:
            if content:
                return [Violation(method, path, part, "a body is declared but none was sent")]
            return []
        if not content:
            return [Violation(method, path, part, "no body is declared for this status")]
        pointer = f"{pointer}/content/{_pointer('application/json')[2:]}/schema"
        return [Violation(method, path, part, m) for m in self._errors("response", pointer, body)]


def _coerce(schema: dict[str, Any], raw: str) -> Any:
    """A query string value as the JSON value its schema describes."""
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "boolean" in kinds and raw.lower() in ("true", "false", "1", "0"):
        return raw.lower() in ("true", "1")
    if "integer" in kinds and raw.lstrip("-").isdigit():
        return int(raw)
    return raw


def _describe(error: ValidationError) -> str:
    """A validation error at its place in the document. For a oneOf/anyOf that nothing
    matched, the reason from the branch meant (the one whose `type` matched: a button's
    schema for a button), not the union's whole instance."""
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        meant = [b for b in branches.values()
                 if not any(e.validator in ("enum", "const") and list(e.relative_path) == ["type"]
                            for e in b)]
        chosen = min(meant or branches.values(), key=lambda b: (_only_not_null(b), len(b)))
        error = min(chosen, key=lambda e: len(e.context))
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"at {where}: {error.message[:200]}"


def _only_not_null(branch: list[ValidationError]) -> bool:
    """The branch is a nullable field's `null` (its only complaint: the value is not null)."""
    return all(e.validator == "type" and e.validator_value == "null" for e in branch)


@functools.cache
def default_checker() -> SpecChecker:
    """One checker per process: the validators it compiles are shared by every test."""
    return SpecChecker()
