"""A FastAPI app that streams an answer as server-sent events, with citation events.

    pip install fastapi uvicorn ./python
    uvicorn --app-dir python/examples sse_answer:app

POST /answer with {"question": "...", "results": [... results in the .NET wire form ...]}:
the results are assembled into the prompt's context, the model's answer streams back
through a `CitationStream`, and the client gets events as they happen:

    event: text       data: {"text": "It costs 15 EUR [1]"}      (never half a marker)
    event: citation   data: {"number": 1, "title": ..., "sourceUrl": ...}   (a chip, once)
    event: unknown    data: {"marker": "[9]"}                     (a source that is not there)
    event: done       data: {"answer": ..., "cited": [...]}       (the whole resolution)

The model is `app.state.model`: an async generator of text chunks for a prompt. The one
here replays a canned answer (this example needs no API key); put a real client's stream
in its place (an OpenAI or Anthropic SDK's text deltas).
"""

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from mentor_context import Assembler, Resolver, stream_citations

app = FastAPI()
assembler = Assembler(1500, header="Answer from these sources; cite them as [n].")

class Question(BaseModel):
    question: str
    results: list[dict[str, Any]]

async def canned_model(prompt: str) -> AsyncIterator[str]:
    """A stand-in for an LLM: the answer a model might give, in small chunks."""
    for chunk in ["Quillstack bills per seat [", "1]; see the price list [1", "]."]:
        yield chunk

app.state.model = canned_model

def sse(event: str, data: dict[str, Any]) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

@app.post("/answer")
async def answer(question: Question) -> StreamingResponse:
    report = assembler.assemble(question.results)
    prompt = f"{report['context']}\nQuestion: {question.question}"
    chips = report["citations"]

    async def events() -> AsyncIterator[str]:
        streamed = stream_citations(Resolver(report, renumber=True), app.state.model(prompt))
        async for text, found in streamed:
            if text:
                yield sse("text", {"text": text})
            for event in found:
                if event["type"] == "cited" and event["first"]:
                    chip = chips[event["index"] - 1]
                    yield sse("citation", {"number": event["newIndex"], "title": chip["title"],
                                           "sourceUrl": chip["sourceUrl"]})
                elif event["type"] == "unknown":
                    yield sse("unknown", {"marker": event["marker"]})
        resolution = streamed.resolution
        yield sse("done", {
            "answer": resolution["answer"],
            "cited": [{"number": c["newIndex"], "index": c["citation"]["index"],
                       "count": c["count"]} for c in resolution["cited"]],
        })

    return StreamingResponse(events(), media_type="text/event-stream")
