"""``Settings``: the keywords of ``Assembler`` and ``PromptAssembler``, typed."""

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict


class Settings(TypedDict, total=False):
    """The library's settings, as keywords of ``Assembler`` and ``PromptAssembler``: the same
    names as a settings file's and the command's flags (``max_blocks``, ``--max-blocks``).
    What each sets is in the crate's ``Settings`` documentation."""

    budget: int
    encoding: Literal["o200k_base", "cl100k_base", "p50k_base", "r50k_base"]
    model: str
    reserve_output: int
    prompt_tokens: int
    engine: Literal["bpe-openai", "tiktoken"]
    tokenizer_file: str | os.PathLike[str]
    tokenizer_kind: Literal["huggingface", "tekken"]
    format: Literal["plain", "xml"]
    dialect: Literal["anthropic", "anthropic-documents", "bedrock", "cohere", "mistral"]
    header: str
    hide_metadata_keys: Sequence[str]
    max_head_tokens: int
    overflow: Literal["truncate", "stop", "skip"]
    duplicates: Literal["url-and-content", "content", "keep"]
    order: Literal["score", "as-given", "edges"]
    min_score: float
    max_blocks: int
    max_per_source: int
    min_truncated_tokens: int
    cache_bytes: int
    seal_key_file: str | os.PathLike[str]
    cache_control: bool
    strict: bool
    window: int
    reserve: int
    chat_template: str | os.PathLike[str]
    date: str
    context_in: Literal["user", "system", "documents", "tool"]
    history_max_tokens: int
    trim_step: float
    allow_special_tokens_in_messages: bool
    tools: Sequence[Mapping[str, Any]]
    template_options: Mapping[str, Any]
