"""Type stubs of the compiled module (see the package docstring)."""

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Union, overload

from .types import Judgement

ExchangeInput = Union[Mapping[str, Any], bytes, bytearray, str]
"""One exchange in the exchange file format: a dict, or the file's text."""
ProtocolArg = Union[None, str, Iterable[str]]
"""A revision (``"2025-11-25"``, ``"2026-07-28"``), ``"all"``, a list of revisions, or None
(the revision the exchange names)."""

PROTOCOLS: tuple[str, ...]
"""The revisions this build judges, oldest first."""
__version__: str

class VerdictError(ValueError):
    """Base class of the errors raised for an exchange that cannot be judged."""

    message: str
    index: int | None
    """The position in the batch, for ``judge_many``; None for ``judge``."""

class ExchangeError(VerdictError):
    """The input is not an exchange in the exchange file format."""

    line: int | None
    """1-based line in the text given; None for a dict or when the fault is not at one place."""
    column: int | None
    """1-based column in the text given."""
    path: str | None
    """The field at fault, e.g. ``response.status``; None when not known."""

class RevisionError(VerdictError):
    """The protocol revision cannot be chosen."""

    reason: str
    """What is wrong, without how to fix it."""

def judge(
    exchange: ExchangeInput, protocol: ProtocolArg = None, *, name: str | None = None
) -> Judgement:
    """Judges one MCP ``tools/call`` exchange and returns the ``classify --format json``
    document. ``name`` sets its ``exchange`` field (default: the exchange's ``name``).

    Raises ``ExchangeError`` (with ``line``, ``column``, ``path``) when the input is not an
    exchange, ``RevisionError`` when the revision cannot be chosen. The GIL is released while
    judging."""

@overload
def judge_many(
    exchanges: Iterable[ExchangeInput],
    protocol: ProtocolArg = None,
    *,
    errors: Literal["raise"] = "raise",
) -> list[Judgement]: ...
@overload
def judge_many(
    exchanges: Iterable[ExchangeInput],
    protocol: ProtocolArg = None,
    *,
    errors: Literal["record"],
) -> list[Judgement | dict[str, Any]]: ...
def judge_many(
    exchanges: Iterable[ExchangeInput],
    protocol: ProtocolArg = None,
    *,
    errors: Literal["raise", "record"] = "raise",
) -> list[Any]:
    """Judges a batch in one call, in order: one ``judge`` document per exchange.

    With ``errors="raise"`` the first exchange that cannot be judged raises (``index`` set);
    with ``errors="record"`` it becomes ``{"error": message, "type": class name, "line"?,
    "column"?, "path"?, "reason"?}`` and the batch goes on. The iterable is read whole; the GIL
    is released once for the batch."""

def rules(protocol: str | None = None) -> list[dict[str, Any]]:
    """The built-in rule table as ``mcp-verdict rules --format json`` prints it, optionally
    only the rules of one revision."""

def explain(rule_id: str) -> str:
    """One rule explained as text (``mcp-verdict rules ID``); ``KeyError`` for an unknown id."""
