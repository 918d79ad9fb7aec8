"""The message-body limits Discord enforces that bots commonly trip over (400 / 50035 / 50006)."""

from __future__ import annotations

from typing import Any

from .errors import CANNOT_SEND_EMPTY, ApiError, invalid_form
from .models import FLAG_COMPONENTS_V2

ACTION_ROW, BUTTON = 1, 2
SELECT_TYPES = {3, 5, 6, 7, 8}
LINK_STYLE, PREMIUM_STYLE = 5, 6


def validate_message(body: dict[str, Any], *, has_files: bool, editing: bool = False) -> None:
    errors: dict[str, str] = {}
    content = body.get("content")
    if content is not None and len(str(content)) > 2000:
        errors["content"] = "Must be 2000 or fewer in length."
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors["embeds"] = "Must be 10 or fewer in length."
    for i, embed in enumerate(embeds):
        if len(str(embed.get("title") or "")) > 256:
            errors[f"embeds.{i}.title"] = "Must be 256 or fewer in length."
        if len(str(embed.get("description") or "")) > 4096:
            errors[f"embeds.{i}.description"] = "Must be 4096 or fewer in length."
        if len(embed.get("fields") or []) > 25:
            errors[f"embeds.{i}.fields"] = "Must be 25 or fewer in length."
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


def _validate_rows(rows: list[dict[str, Any]], errors: dict[str, str]) -> None:
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
            if comp.get("type") == 3 and len(comp.get("options") or []) > 25:
                errors[f"{where}.options"] = "Must be between 1 and 25 in length."


def _validate_custom_ids(components: list[dict[str, Any]], errors: dict[str, str]) -> None:
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
            if isinstance(item.get("accessory"), dict):
                walk([item["accessory"]], f"{here}.accessory")

    walk(components, "components")
