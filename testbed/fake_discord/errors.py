"""Discord JSON error codes and the exception REST handlers raise to produce them."""

from __future__ import annotations

import re
from typing import Any

UNKNOWN_APPLICATION = 10002
UNKNOWN_CHANNEL = 10003
UNKNOWN_GUILD = 10004
UNKNOWN_MEMBER = 10007
UNKNOWN_MESSAGE = 10008
UNKNOWN_OVERWRITE = 10009
UNKNOWN_ROLE = 10011
UNKNOWN_USER = 10013
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
UNKNOWN_COMMAND = 10063
MISSING_ACCESS = 50001
CANNOT_SEND_EMPTY = 50006
CANNOT_EDIT_OTHERS_MESSAGE = 50005
CANNOT_SEND_TO_USER = 50007
MISSING_PERMISSIONS = 50013
INVALID_FORM_BODY = 50035
THREAD_ARCHIVED = 50083
UNKNOWN_THREAD_MEMBER = 10067
MAX_CHANNELS_IN_CATEGORY = 50
ALREADY_ACKNOWLEDGED = 40060


MAX_LENGTH = re.compile(r"Must be \d+ or fewer in length\.")


class ApiError(Exception):
    """Raised by a REST handler; rendered as Discord's error body {code, message[, errors]}."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None):
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def not_found(code: int, what: str) -> ApiError:
    return ApiError(404, code, f"Unknown {what}")


def missing_permissions() -> ApiError:
    return ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")


def missing_access() -> ApiError:
    return ApiError(403, MISSING_ACCESS, "Missing Access")


def invalid_form(field_errors: dict[str, str | tuple[str, str]]) -> ApiError:
    """field_errors maps a dotted path ("components.0.components.1.custom_id") to a message,
    or to (Discord's error code, message). A bare "Must be N or fewer in length." gets
    Discord's BASE_TYPE_MAX_LENGTH, any other bare message BASE_TYPE_INVALID."""
    errors: dict[str, Any] = {}
    for path, error in field_errors.items():
        if isinstance(error, tuple):
            code, message = error
        else:
            message = error
            code = "BASE_TYPE_MAX_LENGTH" if MAX_LENGTH.fullmatch(message) else "BASE_TYPE_INVALID"
        node = errors
        for part in path.split("."):
            node = node.setdefault(part, {})
        node["_errors"] = [{"code": code, "message": message}]
    return ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", errors)
