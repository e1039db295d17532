"""`stream_citations`: a stream of answer chunks (an LLM client's async iterator) read
through a `CitationStream`, for `async for`."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import TYPE_CHECKING

from ._native import CitationStream, Resolver

if TYPE_CHECKING:
    from ._native import CitationEvent, Resolution


class StreamedCitations:
    """What `stream_citations` returns: iterate it with `async for text, events in ...`;
    once it is exhausted, `resolution` holds what the whole answer cites.

    Each item is the text that is safe to show (never part of a marker, renumbered if the
    resolver renumbers) and the citation events found in it; chunks that give neither are
    passed over. The last item is what `finish()` gives, when it gives anything. It is
    read once: a second `async for` raises `MentorContextError` (the stream is finished),
    and after a `break` the answer was not finished, so `resolution` stays `None`.
    """

    def __init__(self, stream: CitationStream, chunks: AsyncIterable[str]) -> None:
        self._stream = stream
        self._chunks = chunks
        self.resolution: Resolution | None = None

    def __aiter__(self) -> AsyncIterator[tuple[str, list[CitationEvent]]]:
        return self._run()

    async def _run(self) -> AsyncIterator[tuple[str, list[CitationEvent]]]:
        async for chunk in self._chunks:
            text, events = self._stream.push(chunk)
            if text or events:
                yield text, events
        (text, events), self.resolution = self._stream.finish()
        if text or events:
            yield text, events


def stream_citations(
    resolver: Resolver | CitationStream, chunks: AsyncIterable[str]
) -> StreamedCitations:
    """Reads `chunks` (an async iterator of answer text, as an LLM client streams it)
    through a stream of `resolver` (or through the given stream)::

        streamed = stream_citations(Resolver(report, renumber=True), llm_chunks())
        async for text, events in streamed:
            ...  # show `text`; a "cited" event with first=True is the moment for a chip
        streamed.resolution  # what the whole answer cites
    """
    stream = resolver.stream() if isinstance(resolver, Resolver) else resolver
    if not isinstance(stream, CitationStream):
        raise TypeError(
            f"resolver: expected a Resolver or a CitationStream, got {type(resolver).__name__}"
        )
    return StreamedCitations(stream, chunks)


__all__ = ["StreamedCitations", "stream_citations"]

