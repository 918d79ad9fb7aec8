"""A local fake of Discord's REST API v10 and gateway for testing discord.py bots."""

from .harness import running_client
from .models import (
    Attachment,
    Channel,
    Guild,
    Interaction,
    InteractionResponse,
    Message,
    Overwrite,
    Role,
    User,
)
from .router import RecordedRequest
from .server import FakeDiscord

__all__ = [
    "Attachment",
    "Channel",
    "FakeDiscord",
    "Guild",
    "Interaction",
    "InteractionResponse",
    "Message",
    "Overwrite",
    "RecordedRequest",
    "Role",
    "User",
    "running_client",
]
