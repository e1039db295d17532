"""The FastAPI example (python/examples/sse_answer.py) streams an answer as server-sent
events with citation events, through its own TestClient: the text shown never holds half
a marker, chips come once each in order of first citation, and the last event is the
resolution."""

import importlib.util
import json

import pytest
from conftest import FIXTURES, ROOT, load

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402


def example():
    spec = importlib.util.spec_from_file_location("sse_answer", ROOT / "python" / "examples" / "sse_answer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def events(body: str):
    """The (event, data) pairs of a text/event-stream body."""
    parsed = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        parsed.append((lines["event"], json.loads(lines["data"])))
    return parsed


def test_an_answer_streams_as_events_with_its_chips():
    app = example()
    seen_prompts = []

    async def model(prompt):
        seen_prompts.append(prompt)
        # A marker split across two chunks, a repeat, and a source that is not there.
        for chunk in ["Plans are billed per seat [3", "] and Team costs 15 EUR [2]", " [3][99]."]:
            yield chunk

    app.app.state.model = model
    results = load(FIXTURES / "pricing.json")
    report = app.assembler.assemble(results)
    with TestClient(app.app) as client:
        response = client.post("/answer", json={"question": "What does Team cost?", "results": results})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    got = events(response.text)
    texts = [data["text"] for kind, data in got if kind == "text"]
    for text in texts:
        assert not text.rstrip().endswith("[3"), texts
    assert "".join(texts) == "Plans are billed per seat [1] and Team costs 15 EUR [2] [1][99]."
    chips = [data for kind, data in got if kind == "citation"]
    assert chips == [
        {"number": 1, "title": report["citations"][2]["title"], "sourceUrl": report["citations"][2]["sourceUrl"]},
        {"number": 2, "title": report["citations"][1]["title"], "sourceUrl": report["citations"][1]["sourceUrl"]},
    ]
    assert [data for kind, data in got if kind == "unknown"] == [{"marker": "[99]"}]
    kind, done = got[-1]
    assert kind == "done"
    assert done["answer"] == "".join(texts)
    assert done["cited"] == [{"number": 1, "index": 3, "count": 2}, {"number": 2, "index": 2, "count": 1}]
    # The model was asked with the assembled context.
    assert seen_prompts[0].startswith(report["context"])


def test_the_canned_model_answers_without_a_key():
    app = example()
    results = load(FIXTURES / "pricing.json")
    with TestClient(app.app) as client:
        got = events(client.post("/answer", json={"question": "?", "results": results}).text)
    assert got[-1][0] == "done"
    assert [kind for kind, _ in got].count("citation") == 1
