"""LlamaIndex: a retriever's ``NodeWithScore`` list into a mentor-context report.

    from mentor_context import Assembler
    from mentor_context.llama_index import assemble_nodes

    nodes = retriever.retrieve("How much is Plan B?")
    report = assemble_nodes(Assembler(4000), nodes)
    prompt = f"{report['context']}\\nQuestion: How much is Plan B?"

A node's content is its text without metadata (``MetadataMode.NONE``): the block's head shows
the metadata, once. The source URL and title are taken from the node's metadata by the first
key present (``url``, ``source``, ``file_path``; ``title``, ``file_name``); the other
metadata stays, its values as text. ``inputIndex`` in the report is the node's place in
``nodes``. LlamaIndex is not imported until a function here is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._adapt import Keys, result

if TYPE_CHECKING:
    # Report is a TypedDict of the stubs only: at run time the report is a plain dict.
    from ._native import Assembler, Report

SOURCE_URL_KEYS = ("url", "source", "file_path")
TITLE_KEYS = ("title", "file_name")


def results_from_nodes(
    nodes: Sequence[Any],
    *,
    source_url_key: Keys = SOURCE_URL_KEYS,
    title_key: Keys = TITLE_KEYS,
) -> list[dict[str, Any]]:
    """The nodes as results in the wire form, in order."""
    from llama_index.core.schema import MetadataMode

    return [
        result(
            f"nodes[{at}]",
            scored.node.get_content(metadata_mode=MetadataMode.NONE),
            scored.score,
            scored.node.metadata,
            source_url_key,
            title_key,
        )
        for at, scored in enumerate(nodes)
    ]


def assemble_nodes(
    assembler: Assembler,
    nodes: Sequence[Any],
    *,
    source_url_key: Keys = SOURCE_URL_KEYS,
    title_key: Keys = TITLE_KEYS,
) -> Report:
    """The report of ``assembler`` for a ``NodeWithScore`` list. A node without a score
    raises ``MentorContextError``."""
    return assembler.assemble(
        results_from_nodes(nodes, source_url_key=source_url_key, title_key=title_key)
    )
