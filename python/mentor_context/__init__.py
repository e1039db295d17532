"""Ranked retrieval results into the context block of an LLM prompt, within an exact token
budget, with citation chips and the reason for every result left out.

Python bindings of the Rust library ``mentor-context``::

    from mentor_context import Assembler

    assembler = Assembler(1500, encoding="o200k_base", format="plain")
    report = assembler.assemble([
        {"content": "Plan B costs 12 EUR a month.", "sourceUrl": "https://example.com/prices",
         "title": "Price list", "score": 0.91},
    ])
    report["context"]      # the text for the prompt, never over 1500 tokens
    report["citations"]    # one chip per block, in text order
    report["omitted"]      # every result left out, with its reason

The report has the keys of ``mentor-context assemble --json``. ``assemble_follow_up``
assembles the next turn; ``Resolver(report).stream()`` reads a streamed answer's markers
(``stream_citations`` over an async iterator of chunks). ``PromptAssembler`` fits a whole
prompt (conversation and results) to a model's window through its chat template. Adapters for LlamaIndex and
LangChain are in ``mentor_context.llama_index`` and ``mentor_context.langchain``.
"""

from ._native import (
    Assembler,
    CitationStream,
    MentorContextError,
    PromptAssembler,
    Resolver,
    ResponseStream,
    __version__,
    cohere_tool_content,
    mistral_tool_content,
    resolve_citations,
)
from ._settings import Settings
from ._stream import StreamedCitations, stream_citations

__all__ = [
    "Assembler",
    "CitationStream",
    "MentorContextError",
    "PromptAssembler",
    "Resolver",
    "ResponseStream",
    "Settings",
    "StreamedCitations",
    "cohere_tool_content",
    "mistral_tool_content",
    "resolve_citations",
    "stream_citations",
    "__version__",
]
