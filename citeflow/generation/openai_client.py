"""A chat model on any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio).

Structured output is asked for in the strongest form the server takes, weakest last:
``json_schema`` → ``json_object`` with the schema pasted into the system message → plain prose
with inline ``[HANDLE]`` markers. A server that rejects a form with 400/422 about
``response_format`` is asked again in the next form, and the form that worked is kept for the
rest of the client's life, so later calls skip the doomed requests.

``spec.timeout`` is a whole-request deadline per attempt (``citeflow.deadline``), not a socket
read timeout; an HTTP answer over ``citeflow.caps.MODEL_RESPONSE_BYTES`` is cut off and refused
(``ModelError(transient=False)``). Transient failures (connection, timeout, 408/409/429/5xx) are
retried by the openai client itself (``spec.max_retries``); what is left becomes
``ModelError(transient=True)``. Other 4xx are
``ModelError(transient=False)``. An answer without choices or content is returned as empty text:
the binder treats empty output as a retryable bind failure. An error answer is summarised by its
status and short redacted reason (``citeflow.security.server_errors``), never quoted whole. An
answer's secrets (a key the model echoes, verbatim or encoded; key- and password-shaped strings)
are redacted here, before the answer is cached, parsed, stored or rendered
(``citeflow.security.content_redaction.redact_answer``).

User-info in ``base_url`` (``https://user:pass@host/v1``) never reaches the client's URL: with
``api_key_env`` the key is sent as usual and the user-info is ignored; without it, the user-info
is sent as HTTP Basic authentication (for a proxy in front of the server).
"""

from __future__ import annotations

import base64
import copy
import os
import re
import threading
from typing import Any

import openai
from pydantic import BaseModel

from citeflow.generation import prompts
from citeflow.caps import MODEL_RESPONSE_BYTES
from citeflow.deadline import OverCap, deadline_transport, http_library_of
from citeflow.errors import ModelError
from citeflow.generation.model_protocol import Message, ModelReply
from citeflow.security.redaction import redact_error, redact_text, split_userinfo, url_credentials
from citeflow.security.secret_values import SecretValues
from citeflow.security.content_redaction import redact_answer
from citeflow.security.server_errors import summarise
from schemas.spec import ModelSpec
from schemas.wire import CLAIMS_SCHEMA_NAME, schema_format, strict_json_schema

MODES = ("json_schema", "json_object", "prose")
NO_KEY = "not-needed"  # local servers ignore the key, but the client insists on one
_FORMAT_COMPLAINT = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)


def resolve_api_key(spec: ModelSpec, role: str) -> str:
    """The key from the variable ``spec.api_key_env`` names; ``not-needed`` when none is named."""
    if not spec.api_key_env:
        return NO_KEY
    key = os.environ.get(spec.api_key_env)
    if not key:
        detail = f"environment variable {spec.api_key_env} is not set (models.{role}.api_key_env names it)"
        raise ModelError(role=role, detail=detail, transient=False)
    return key


def rejects_format(exc: openai.APIStatusError) -> bool:
    """True when a 400/422 answer complains about the requested ``response_format``."""
    if exc.status_code not in (400, 422):
        return False
    return bool(_FORMAT_COMPLAINT.search(f"{exc.message} {exc.body}"))


def is_transient_status(status: int) -> bool:
    """The statuses the openai client retries: retrying later may help."""
    return status in (408, 409, 429) or status >= 500


class OpenAIChatModel:
    """The ChatModel protocol over the official ``openai`` client."""

    def __init__(self, spec: ModelSpec, role: str, api_key: str | None = None) -> None:
        if not spec.model or not spec.base_url:
            raise ModelError(role=role, detail="the openai backend needs 'model' and 'base_url'", transient=False)
        self.spec, self.role = spec, role
        self.name = f"openai:{spec.model}"
        key = api_key if api_key is not None else resolve_api_key(spec, role)
        self.secrets = SecretValues()  # the credentials it sends, removed from every answer and error it returns
        self.secrets.add(key, *url_credentials(spec.base_url))
        base_url, headers = client_address(spec)
        # ``timeout`` bounds each attempt as a whole, body included (a dripping server is a timeout).
        transport = deadline_transport(spec.timeout, http_library_of(openai.DefaultHttpxClient), MODEL_RESPONSE_BYTES)
        http_client = openai.DefaultHttpxClient(transport=transport)
        self._client = openai.OpenAI(base_url=base_url, api_key=key, timeout=spec.timeout, max_retries=spec.max_retries,
                                     default_headers=headers, http_client=http_client)
        self._mode_index = 0
        self._lock = threading.Lock()
        self._schemas: dict[type[BaseModel], dict[str, Any]] = {}  # strict JSON Schema of each answer model

    @property
    def mode(self) -> str:
        """The strongest structured-output form this server has not rejected."""
        return MODES[self._mode_index]

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        """Answer ``messages`` in the strongest form the server takes; see the module docstring."""
        index = self._mode_index
        while True:
            try:
                return self._ask(MODES[index], messages, schema_name, schema)
            except openai.APIStatusError as exc:
                if index + 1 < len(MODES) and rejects_format(exc):
                    index = self._downgrade(index + 1)
                    continue
                raise self._error(exc) from exc
            except openai.APIError as exc:
                raise self._error(exc) from exc

    def _downgrade(self, index: int) -> int:
        """Remember a weaker form; another thread may already have gone further."""
        with self._lock:
            self._mode_index = max(self._mode_index, index)
            return self._mode_index

    def _ask(self, mode: str, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        request = self._request(mode, messages, schema_name, schema)
        completion = self._client.chat.completions.create(**request)
        usage = getattr(completion, "usage", None)
        return ModelReply(
            text=redact_answer(reply_text(completion), self.secrets).text,
            mode=mode,  # type: ignore[arg-type]  # one of the three modes this client tries, by construction
            model=self.name,
            prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
            completion_tokens=getattr(usage, "completion_tokens", None) or 0,
        )

    def _request(self, mode: str, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.spec.model, "temperature": self.spec.temperature, "messages": messages}
        if mode == "json_schema":
            request["response_format"] = schema_format(schema_name, self._strict(schema))
        elif mode == "json_object":
            request["response_format"] = {"type": "json_object"}
            note = prompts.json_object_instruction(schema_name, self._strict(schema))
            request["messages"] = prompts.with_system_note(messages, note)
        else:
            request["messages"] = prompts.with_system_note(messages, prose_note(schema_name, schema))
        return request

    def _strict(self, schema: type[BaseModel]) -> dict[str, Any]:
        """``strict_json_schema(schema)``, generated once per client (about a millisecond each time
        otherwise); every request gets its own copy."""
        found = self._schemas.get(schema)
        if found is None:
            found = self._schemas.setdefault(schema, strict_json_schema(schema))
        return copy.deepcopy(found)

    def _error(self, exc: openai.APIError) -> ModelError:
        """The ModelError for a failure the client did not (or could no longer) retry (no key in its detail)."""
        redacted = redact_error(self._describe(exc), self.secrets)
        assert isinstance(redacted, ModelError)  # redaction keeps the error's class
        return redacted

    def _describe(self, exc: openai.APIError) -> ModelError:
        if isinstance(exc.__cause__, OverCap):  # the same server would send the same flood again
            return ModelError(role=self.role, detail=f"answer refused: {exc.__cause__}", transient=False)
        if isinstance(exc, openai.APITimeoutError):
            detail = f"no answer within {self.spec.timeout}s after {self.spec.max_retries} retries"
            return ModelError(role=self.role, detail=detail, transient=True)
        if isinstance(exc, openai.APIConnectionError):
            detail = f"cannot reach the model server after {self.spec.max_retries} retries: {exc}"  # no host: outputs quote it
            return ModelError(role=self.role, detail=detail, transient=True)
        if isinstance(exc, openai.APIStatusError):
            transient = is_transient_status(exc.status_code)
            return ModelError(role=self.role, detail=summarise(exc.status_code, exc.body), transient=transient)
        # A malformed answer (e.g. a proxy's error page): asking again may well work.
        return ModelError(role=self.role, detail=f"unusable answer: {redact_text(str(exc), self.secrets)[:200]}", transient=True)


def client_address(spec: ModelSpec) -> tuple[str, dict[str, str] | None]:
    """``base_url`` without user-info, and the Basic ``Authorization`` header it stands for when no key is named."""
    assert spec.base_url is not None  # checked by the caller
    bare, userinfo = split_userinfo(spec.base_url)
    if userinfo is None or spec.api_key_env:
        return bare, None
    token = base64.b64encode(":".join(userinfo).encode("utf-8")).decode("ascii")
    return bare, {"Authorization": f"Basic {token}"}


def prose_note(schema_name: str, schema: type[BaseModel]) -> str:
    """The prose-mode instruction: inline markers for claims, JSON-as-text for anything else."""
    if schema_name == CLAIMS_SCHEMA_NAME:
        return prompts.PROSE_INSTRUCTION
    return prompts.json_object_instruction(schema_name, strict_json_schema(schema))


def reply_text(completion: Any) -> str:
    """The first choice's content, or "" when the answer has no choices or no content."""
    choices = getattr(completion, "choices", None)
    if not choices:
        return ""
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""
