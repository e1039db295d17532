"""LangChain: ``Document`` objects with a score in their metadata into a mentor-context report.

    from mentor_context import Assembler
    from mentor_context.langchain import assemble_documents

    pairs = vector_store.similarity_search_with_score("How much is Plan B?")
    documents = [doc.model_copy(update={"metadata": {**doc.metadata, "score": score}})
                 for doc, score in pairs]
    report = assemble_documents(Assembler(4000), documents)

The score is read from ``metadata["score"]`` (``score_key``), the source URL and title by the
first key present (``source``, ``url``; ``title``); the other metadata stays, its values as
text. LangChain itself is not imported: any object with ``page_content`` and ``metadata``
will do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._adapt import Keys, result

if TYPE_CHECKING:
    # Report is a TypedDict of the stubs only: at run time the report is a plain dict.
    from ._native import Assembler, Report

SOURCE_URL_KEYS = ("source", "url")
TITLE_KEYS = ("title",)


def results_from_documents(
    documents: Sequence[Any],
    *,
    score_key: str = "score",
    source_url_key: Keys = SOURCE_URL_KEYS,
    title_key: Keys = TITLE_KEYS,
) -> list[dict[str, Any]]:
    """The documents as results in the wire form, in order; the score leaves the metadata."""
    results = []
    for at, document in enumerate(documents):
        metadata = dict(document.metadata or {})
        score = metadata.pop(score_key, None)
        results.append(
            result(f"documents[{at}]", document.page_content, score, metadata,
                   source_url_key, title_key)
        )
    return results


def assemble_documents(
    assembler: Assembler,
    documents: Sequence[Any],
    *,
    score_key: str = "score",
    source_url_key: Keys = SOURCE_URL_KEYS,
    title_key: Keys = TITLE_KEYS,
) -> Report:
    """The report of ``assembler`` for LangChain documents. A document without
    ``metadata[score_key]`` raises ``MentorContextError``."""
    return assembler.assemble(
        results_from_documents(documents, score_key=score_key, source_url_key=source_url_key,
                               title_key=title_key)
    )
