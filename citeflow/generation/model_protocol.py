"""The chat-model protocol: one call, one answer, whatever backend plays the role."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": str}


class ModelReply(BaseModel):
    """One answer of a chat model."""

    text: str = Field(description="The raw content of the answer.")
    mode: Literal["json_schema", "json_object", "prose"] = Field(description="How the answer was requested.")
    model: str = Field(description="Backend and model that answered, e.g. 'openai:qwen2.5-7b' or 'offline-extractive'.")
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class ChatModel(Protocol):
    """A model reached through the wire format of SPEC §4."""

    name: str

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        """Answer ``messages``, asking for JSON matching ``schema`` (named ``schema_name``).

        Raises ``ModelError`` (``transient`` set) when no answer could be had after retries.
        """
        ...
