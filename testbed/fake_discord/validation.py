"""The limits Discord enforces on a message or a modal (400 / 50035 / 50006), as Discord
answers them. The spec checker (conformance.py) finds the same lengths in a request, but a
test that breaks one must also see Discord's refusal; the 6,000-character embed total is in
no schema."""

from __future__ import annotations

from typing import Any

from .errors import CANNOT_SEND_EMPTY, ApiError, invalid_form
from .models import FLAG_COMPONENTS_V2

ACTION_ROW, BUTTON = 1, 2
SELECT_TYPES = {3, 5, 6, 7, 8}
LINK_STYLE, PREMIUM_STYLE = 5, 6

#: Discord's limit on a message's embeds together: titles, descriptions, field names and
#: values, footer texts and author names.
EMBED_TOTAL = 6000
EMBED_TOO_BIG = "MAX_EMBED_SIZE_EXCEEDED"
#: Field -> the longest it may be, in an embed (and its parts).
EMBED_LIMITS = {"title": 256, "description": 4096}
FIELD_LIMITS = {"name": 256, "value": 1024}
SELECT_OPTION_LIMITS = {"label": 100, "value": 100, "description": 100}
#: A modal: its title, and a text input's label, placeholder and value.
MODAL_TITLE = 45
TEXT_INPUT_LIMITS = {"label": 45, "placeholder": 100, "value": 4000}
TEXT_INPUT = 4


def validate_message(body: dict[str, Any], *, has_files: bool, editing: bool = False) -> None:
    errors: dict[str, Any] = {}
    content = body.get("content")
    if content is not None and len(str(content)) > 2000:
        errors["content"] = "Must be 2000 or fewer in length."
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors["embeds"] = "Must be 10 or fewer in length."
    for i, embed in enumerate(embeds):
        _validate_embed(embed, f"embeds.{i}", errors)
    if sum(embed_length(e) for e in embeds) > EMBED_TOTAL:
        errors["embeds"] = (EMBED_TOO_BIG, f"Embed size exceeds maximum size of {EMBED_TOTAL}")
    flags = int(body.get("flags") or 0)
    components = body.get("components") or []
    if flags & FLAG_COMPONENTS_V2:
        if content or embeds:
            errors["content"] = "content and embeds cannot be used with IS_COMPONENTS_V2."
    else:
        _validate_rows(components, errors)
    _validate_custom_ids(components, errors)
    if errors:
        raise invalid_form(errors)
    if not editing and not (
        content or embeds or components or has_files or body.get("sticker_ids") or body.get("poll")
    ):
        raise ApiError(400, CANNOT_SEND_EMPTY, "Cannot send an empty message")


def _text(value: Any) -> str:
    return str(value or "")


def embed_length(embed: dict[str, Any]) -> int:
    """What an embed counts towards Discord's 6,000-character total."""
    fields = embed.get("fields") or []
    return (len(_text(embed.get("title"))) + len(_text(embed.get("description")))
            + sum(len(_text(f.get("name"))) + len(_text(f.get("value"))) for f in fields)
            + len(_text((embed.get("footer") or {}).get("text")))
            + len(_text((embed.get("author") or {}).get("name"))))


def _too_long(errors: dict[str, Any], where: str, value: Any, limit: int) -> None:
    if len(_text(value)) > limit:
        errors[where] = f"Must be {limit} or fewer in length."


def _validate_embed(embed: dict[str, Any], where: str, errors: dict[str, Any]) -> None:
    for key, limit in EMBED_LIMITS.items():
        _too_long(errors, f"{where}.{key}", embed.get(key), limit)
    fields = embed.get("fields") or []
    if len(fields) > 25:
        errors[f"{where}.fields"] = "Must be 25 or fewer in length."
    for f, field in enumerate(fields):
        for key, limit in FIELD_LIMITS.items():
            _too_long(errors, f"{where}.fields.{f}.{key}", field.get(key), limit)
    _too_long(errors, f"{where}.footer.text", (embed.get("footer") or {}).get("text"), 2048)
    _too_long(errors, f"{where}.author.name", (embed.get("author") or {}).get("name"), 256)


def validate_modal(data: dict[str, Any]) -> None:
    """A modal callback's data (type 9): its title and text inputs, as Discord limits them."""
    errors: dict[str, Any] = {}
    title = _text(data.get("title"))
    if not 1 <= len(title) <= MODAL_TITLE:
        errors["data.title"] = f"Must be between 1 and {MODAL_TITLE} in length."

    def walk(items: list[dict[str, Any]], where: str) -> None:
        for i, item in enumerate(items):
            here = f"{where}.{i}"
            if item.get("type") == TEXT_INPUT:
                for key, limit in TEXT_INPUT_LIMITS.items():
                    _too_long(errors, f"{here}.{key}", item.get(key), limit)
            walk(item.get("components") or [], f"{here}.components")
            if isinstance(item.get("component"), dict):
                walk([item["component"]], f"{here}.component")

    walk(data.get("components") or [], "data.components")
    _validate_custom_ids(data.get("components") or [], errors, "data.components")
    if errors:
        raise invalid_form(errors)


def _validate_rows(rows: list[dict[str, Any]], errors: dict[str, Any]) -> None:
    if len(rows) > 5:
        errors["components"] = "Must be 5 or fewer in length."
    for r, row in enumerate(rows):
        if row.get("type") != ACTION_ROW:
            errors[f"components.{r}.type"] = "Top-level components must be action rows."
            continue
        children = row.get("components") or []
        if not children:
            errors[f"components.{r}.components"] = "Must be between 1 and 5 in length."
        buttons = [c for c in children if c.get("type") == BUTTON]
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        if len(buttons) > 5 or (selects and len(children) > 1):
            errors[f"components.{r}.components"] = "Must be between 1 and 5 in length."
        for c, comp in enumerate(children):
            where = f"components.{r}.components.{c}"
            if comp.get("type") == BUTTON:
                if len(str(comp.get("label") or "")) > 80:
                    errors[f"{where}.label"] = "Must be 80 or fewer in length."
                style = comp.get("style")
                if style == LINK_STYLE and not comp.get("url"):
                    errors[f"{where}.url"] = "This field is required"
                if style not in (LINK_STYLE, PREMIUM_STYLE) and not comp.get("custom_id"):
                    errors[f"{where}.custom_id"] = "This field is required"
            if comp.get("type") == 3:
                options = comp.get("options") or []
                if not 1 <= len(options) <= 25:
                    errors[f"{where}.options"] = "Must be between 1 and 25 in length."
                for o, option in enumerate(options):
                    for key, limit in SELECT_OPTION_LIMITS.items():
                        _too_long(errors, f"{where}.options.{o}.{key}", option.get(key), limit)


def _validate_custom_ids(components: list[dict[str, Any]], errors: dict[str, Any],
                         where: str = "components") -> None:
    seen: set[str] = set()

    def walk(items: list[dict[str, Any]], where: str) -> None:
        for i, item in enumerate(items):
            here = f"{where}.{i}"
            cid = item.get("custom_id")
            if cid is not None:
                if len(str(cid)) > 100:
                    errors[f"{here}.custom_id"] = "Must be 100 or fewer in length."
                if cid in seen:
                    errors[f"{here}.custom_id"] = "Component custom id cannot be duplicated"
                seen.add(cid)
            walk(item.get("components") or [], f"{here}.components")
            for key in ("accessory", "component"):  # a section's, a modal label's
                if isinstance(item.get(key), dict):
                    walk([item[key]], f"{here}.{key}")

    walk(components, where)
