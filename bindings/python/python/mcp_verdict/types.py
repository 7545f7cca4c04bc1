"""Typed dicts of the verdict document (``schemas/classify-output.schema.json`` in the
repository). They describe what ``judge`` returns; nothing checks them at run time."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
elif TYPE_CHECKING:  # annotations are not evaluated at run time (see the __future__ import)
    from typing_extensions import NotRequired

Outcome = Literal[
    "TOOL_SUCCESS",
    "TOOL_ERROR",
    "INPUT_REQUIRED",
    "HTTP_ERROR",
    "JSONRPC_ERROR",
    "MALFORMED_JSON",
    "INVALID_ENVELOPE",
    "INVALID_TOOL_RESULT",
    "TASK_CREATED",
    "UNEXPECTED_CONTENT_TYPE",
    "NO_RESPONSE",
    "DELIVERY_UNKNOWN",
    "NOT_A_TOOL_CALL",
    "NOTIFICATION_ACCEPTED",
    "NESTING_TOO_DEEP",
]
Layer = Literal["transport", "framing", "protocol", "interaction", "application"]
Severity = Literal["error", "warning", "info"]


class Cite(TypedDict):
    """A rule cited by a verdict: ``role`` is ``decided`` (it decided the outcome),
    ``default`` (it supplied a default) or ``context``."""

    id: str
    role: Literal["decided", "default", "context"]
    level: str
    url: str
    section: str
    quote: str


class Finding(TypedDict):
    """A rule the responder broke, with where in the message."""

    rule: str
    severity: Severity
    level: str
    layer: Layer
    pointer: str
    path: str
    event: NotRequired[int]
    message: str
    url: str


class Verdict(TypedDict):
    """The verdict under one revision."""

    protocol: str
    outcome: Outcome
    layer: Layer
    summary: str
    cites: list[Cite]
    defaults: list[dict[str, Any]]
    findings: list[Finding]
    facts: dict[str, Any]
    notes: NotRequired[list[str]]
    retry: dict[str, Any]


class Difference(TypedDict):
    """What differs between revisions: ``aspect`` is ``outcome`` or ``finding <rule id>``."""

    aspect: str
    values: dict[str, str]


class Judgement(TypedDict):
    """What ``judge`` returns: the ``classify --format json`` document."""

    exchange: NotRequired[str]
    verdicts: list[Verdict]
    differences: list[Difference]
