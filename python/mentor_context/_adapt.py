"""What the adapters share: a framework's document turned into a result in the wire form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._native import MentorContextError

Keys = str | Sequence[str]


def first_of(metadata: Mapping[str, Any], keys: Keys) -> tuple[str | None, Any]:
    """The first of `keys` that `metadata` has (with a value that is not None), and its value."""
    for key in (keys,) if isinstance(keys, str) else keys:
        value = metadata.get(key)
        if value is not None:
            return key, value
    return None, None


def result(
    where: str,
    content: str,
    score: Any,
    metadata: Mapping[str, Any] | None,
    source_url_key: Keys,
    title_key: Keys,
) -> dict[str, Any]:
    """A result dict: the URL and title taken out of `metadata` by their keys, the rest kept
    as metadata with its values as text (the wire form's metadata values are strings)."""
    if score is None:
        raise MentorContextError(f"{where}: no score; every result needs one to be ranked")
    metadata = dict(metadata or {})
    url_key, url = first_of(metadata, source_url_key)
    title_key_found, title = first_of(metadata, title_key)
    for used in (url_key, title_key_found):
        if used is not None:
            metadata.pop(used, None)
    record: dict[str, Any] = {"content": content, "score": score}
    if url is not None:
        record["sourceUrl"] = str(url)
    if title is not None:
        record["title"] = str(title)
    if metadata:
        record["metadata"] = {
            str(k): None if v is None else v if isinstance(v, str) else str(v)
            for k, v in metadata.items()
        }
    return record
