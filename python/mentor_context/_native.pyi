"""Type stubs of the extension module (the Rust side of ``mentor_context``)."""

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypedDict, Unpack

from ._settings import Settings

__version__: str

class MentorContextError(ValueError):
    """A configuration or input that mentor-context refuses; the message is the library's
    one-line message."""

    code: str
    """The library's stable code of the error's kind: ``UNKNOWN_SETTING``,
    ``INVALID_SETTING``, ``HEADER_OVER_BUDGET``, ``PREVIOUS_TURN_MISMATCH``, ..."""
    reason: str | None
    """Why a previous report was refused (``SEAL_MISSING``, ``SEAL_MISMATCH``,
    ``OTHER_TOKENIZER``, ``OTHER_LAYOUT``, ``EDITED_BLOCK``, ``EDITED_TEXT``), else None."""
    block: int | None
    """The block an ``EDITED_BLOCK`` names."""
    template_kind: str | None
    """What a ``CHAT_TEMPLATE`` error is (``RAISED``, ``OUT_OF_FUEL``, ``TOO_DEEP``,
    ``OUTPUT_TOO_LARGE``, ``CONTEXT_NOT_WRITTEN``, ``SYNTAX``, ``NOT_A_TEMPLATE``,
    ``UNSUPPORTED``, ``ENGINE_FAILED``: the library's ``TemplateErrorKind``), else None."""

class Citation(TypedDict):
    index: int
    title: str | None
    sourceUrl: str | None
    score: float
    metadata: dict[str, str | None] | None
    truncated: bool
    tokenCount: int
    inputIndex: int
    keptBytes: int | None
    keptUtf16: int | None
    fingerprint: str
    headShortened: bool

class Omission(TypedDict):
    title: str | None
    sourceUrl: str | None
    score: float
    reason: Literal[
        "belowMinScore",
        "duplicate",
        "overBlockLimit",
        "overSourceLimit",
        "didNotFit",
        "alreadyInContext",
    ]
    inputIndex: int

class Layout(TypedDict):
    """The layout a report's text was written in: with its ``encoding`` and ``dialect``,
    what its contents are read back with, so that quotes are checked from the report
    alone."""

    format: str
    header: str
    hiddenKeys: list[str]
    maxHeadTokens: int | None

class _ReportBase(TypedDict):
    context: str
    tokenCount: int
    budget: int
    encoding: str
    citations: list[Citation]
    omitted: list[Omission]

class Report(_ReportBase, total=False):
    """The report of ``mentor-context assemble --json``; ``window`` and ``headroom`` only
    with a model window, ``seal`` (64 hex digits) only with a ``seal_key``."""

    window: dict[str, Any]
    headroom: int
    seal: str
    dialect: Literal["anthropic", "anthropic-documents", "bedrock", "cohere", "mistral"]
    layout: Layout

class Span(TypedDict):
    """Python string indices ``start:end``, and the same in UTF-16 code units."""

    start: int
    end: int
    startUtf16: int
    endUtf16: int

class Quote(TypedDict):
    text: str
    verified: bool

class _CitedChipBase(TypedDict):
    citation: Citation
    newIndex: int
    count: int
    spans: list[Span]

class CitedChip(_CitedChipBase, total=False):
    """``quotes`` only when the answer quotes the chip."""

    quotes: list[Quote]

class UnknownMarker(TypedDict):
    marker: str
    at: int

class Resolution(TypedDict):
    cited: list[CitedChip]
    unknown: list[UnknownMarker]
    answer: str | None
    unverified: int

class ResponseStream:
    """A model API's response read event by event, from ``Assembler.response_stream``."""

    def push_event(self, event: str | dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """Reads one event (a JSON string or a dict; an SDK's pydantic event as
        ``event.model_dump()``): the text to show, and the citation events it settled."""
    def push_sse(self, chunk: str) -> tuple[str, list[dict[str, Any]]]:
        """Reads a chunk of the raw server-sent events."""
    def finish(self) -> tuple[tuple[str, list[dict[str, Any]]], Resolution]:
        """``((text, events), resolution)``: the text left to show, the citation events
        settled only at the end, and the resolution; raises ``MentorContextError`` if the
        stream was cut off."""

class CitedEvent(TypedDict):
    """A marker cites chip ``index``; ``first`` is the moment to show its chip."""

    type: Literal["cited"]
    index: int
    newIndex: int
    first: bool
    span: Span

class UnknownEvent(TypedDict):
    """A marker points at no chip."""

    type: Literal["unknown"]
    marker: str
    at: int

CitationEvent = CitedEvent | UnknownEvent

# A result: a dict in the .NET wire form (``content`` and ``score`` required; ``sourceUrl``
# (or ``source_url``), ``title``, ``metadata``; names in any letter case; a score may be a
# numeric string), or an
# object with the attributes ``content``, ``score``, ``title``, ``source_url`` (or
# ``sourceUrl``) and ``metadata``.
Result = Mapping[str, Any] | Any

class Assembler:
    """Assembles ranked retrieval results into the context block of a prompt within an
    exact token budget. Every option is checked here; a bad one raises
    ``MentorContextError`` with the library's message. Thread-safe: ``assemble`` releases
    the GIL while it works."""

    def __init__(
        self,
        budget: int | None = None,
        *,
        seal_key: bytes | str | None = None,
        **settings: Unpack[Settings],
    ) -> None: ...
    def assemble(self, results: Sequence[Result]) -> Report:
        """The report of one request, with the keys of ``assemble --json``."""
    def assemble_json(self, results: Sequence[Result]) -> str:
        """The report as one line of JSON, byte for byte what ``assemble --json`` prints
        (without the newline)."""
    def assemble_follow_up(
        self, previous_report: Report | str, results: Sequence[Result]
    ) -> Report:
        """The next turn of a conversation after ``previous_report`` (a report of this
        method or ``assemble``, or its JSON text): its text starts the new text byte for
        byte and its chips keep their numbers. A report this assembler did not write, or
        that was edited, raises ``MentorContextError`` naming the block."""
    def assemble_many(
        self, requests: Iterable[Sequence[Result]], *, threads: int | None = None
    ) -> list[Report]:
        """The reports of many requests, in order; each equals ``assemble`` of its request.
        ``threads`` threads share the work, the calling thread among them (default: one per
        core; at most 8 per core); the GIL is released while they assemble."""
    def entries(self, report: Report, previous: Report | None = None) -> list[dict[str, Any]]:
        """The entries of ``report`` in this assembler's dialect: the list to put in the
        model API's request (Anthropic ``search_result`` or ``document`` blocks, Bedrock
        Converse ``document`` blocks, Cohere documents, the documents of a Mistral tool
        result, whose ``content`` is ``mistral_tool_content(entries)``), one per
        citation. With ``cache_control=True`` the last entry carries a
        prompt-cache breakpoint, and so does the last of ``previous``'s entries (the turn
        before), as ``assemble --cache-control --previous`` marks them."""
    def contents(self, report: Report) -> list[str]:
        """The content of each block of ``report`` as the model saw it."""
    def resolve_response(self, report: Report, response: str) -> Resolution:
        """A model API's whole response (message JSON, JSON Lines of its events, or the raw
        server-sent events) read against ``report``; ``answer`` is the response's text."""
    def response_stream(self, report: Report) -> ResponseStream:
        """A reader of a streamed response against ``report``."""
    def with_budget(self, budget: int) -> Assembler:
        """The same configuration with another budget."""
    @property
    def budget(self) -> int: ...
    @property
    def encoding(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def strict(self) -> bool: ...

class PromptParts(TypedDict):
    template: int
    system: int
    history: int
    context: int
    question: int

class DroppedMessage(TypedDict):
    index: int
    role: str
    tokens: int

class _PromptHistoryBase(TypedDict):
    room: int
    trimmedRoom: int
    turns: int
    keptTurns: int
    keptTokens: int
    droppedToFit: bool

class PromptHistory(_PromptHistoryBase, total=False):
    nextOlderTokens: int  # absent when no turn was dropped

class _PromptBase(TypedDict):
    messages: list[dict[str, Any]]
    tokenCount: int
    window: int
    reserve: int
    parts: PromptParts
    dropped: list[DroppedMessage]
    history: PromptHistory
    context: Report

class Prompt(_PromptBase, total=False):
    prompt: str  # absent for chat_template="openai", whose messages are what is sent
    documents: list[dict[str, str]]  # with context_in="documents"

class PromptAssembler:
    """Fits a whole prompt, the conversation (an optional system message, the history, the
    user's question last) and the results, to ``window`` less ``reserve`` through the
    model's chat template: ``"openai"`` (OpenAI's counting rule, with ``encoding`` or
    ``model``), ``"harmony"`` (gpt-oss), ``"mistral"`` (with a Tekken file as
    ``tokenizer_file``), or the path of a model's ``tokenizer_config.json`` or
    ``chat_template.jinja`` with its ``tokenizer.json`` as ``tokenizer_file``. The history
    keeps its newest whole turns; ``tokenCount + reserve <= window``. The context's options
    are ``Assembler``'s, but for those that set the budget or the tokenizer."""

    def __init__(
        self,
        window: int | None = None,
        chat_template: str | os.PathLike[str] | None = None,
        *,
        seal_key: bytes | str | None = None,
        **settings: Unpack[Settings],
    ) -> None: ...
    def assemble(
        self,
        conversation: Sequence[Mapping[str, Any]],
        results: Sequence[Result],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        template_options: Mapping[str, Any] | None = None,
    ) -> Prompt:
        """The whole prompt, with the keys of ``mentor-context prompt --json``. ``tools``
        and ``template_options`` are this request's: its tools in place of the
        constructor's, its options over the constructor's, name by name."""
    def assemble_json(
        self,
        conversation: Sequence[Mapping[str, Any]],
        results: Sequence[Result],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        template_options: Mapping[str, Any] | None = None,
    ) -> str:
        """The same as one line of JSON, byte for byte what ``prompt --json`` prints
        (without the newline)."""

class CohereToolContent(TypedDict):
    """One block of a Cohere v2 ``tool`` message's content (cohere-python
    ``tool_content.py``): a document the model may cite."""

    type: Literal["document"]
    document: dict[str, Any]

def mistral_tool_content(entries: Sequence[Mapping[str, Any]]) -> str:
    """The ``content`` of the ``tool`` message that sends ``entries`` (``Assembler.entries`` of
    an assembler with ``dialect="mistral"``) to Mistral: the JSON object keyed ``"0"``,
    ``"1"``, ... as its citations guide shows it, byte for byte what
    ``assemble --dialect mistral`` prints. Entries of another dialect, or with a field
    ``entries`` does not write, raise ``MentorContextError`` (``INVALID_ARGUMENT``)."""

def cohere_tool_content(entries: Sequence[Mapping[str, Any]]) -> list[CohereToolContent]:
    """The ``content`` of the ``tool`` message that sends ``entries`` (of an assembler with
    ``dialect="cohere"``) to Cohere v2: each entry as ``{"type": "document", "document":
    entry}``, in order; Cohere cites document N of it as ``{"type": "tool", "id":
    "CALL_ID:N"}``, citation N + 1. Raises as ``mistral_tool_content`` does."""

def resolve_citations(
    report: Report | Sequence[Citation], answer: str, *, renumber: bool = False
) -> Resolution:
    """Which chips of ``report`` the ``answer`` cites (in order of first citation), which
    markers point at no chip, and with ``renumber`` the answer renumbered 1..k. Given a
    whole report, each quote before a ``[n]`` marker is checked against the content of the
    block it cites, read back from the report in the layout it records, as
    ``mentor-context cite`` checks it. Offsets are Python string indices."""

class Resolver:
    """Reads answers against the chips of ``report`` (a report of ``Assembler.assemble``,
    its ``citations``, or its JSON text); offsets are Python string indices. Given a whole
    report, quotes before ``[n]`` markers are checked against its contents, whole or
    streamed."""

    def __init__(
        self, report: Report | Sequence[Citation] | str, *, renumber: bool = False
    ) -> None: ...
    def resolve(self, answer: str) -> Resolution:
        """What the whole ``answer`` cites, as ``resolve_citations`` gives it."""
    def stream(self) -> CitationStream:
        """A stream of one answer, read chunk by chunk."""
    @property
    def renumber(self) -> bool: ...

class CitationStream:
    """An answer resolved as it streams in: a marker is never shown in part."""

    def push(self, chunk: str) -> tuple[str, list[CitationEvent]]:
        """The text that is safe to show now, and the citation events found in it."""
    def finish(self) -> tuple[tuple[str, list[CitationEvent]], Resolution]:
        """The rest of the text with its events, and the resolution of the whole answer.
        Raises ``MentorContextError`` if the stream has finished."""
    @property
    def held_back(self) -> int:
        """Characters read but not yet shown: the start of a marker."""
