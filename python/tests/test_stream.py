"""`Resolver` and its stream, as tests/library/citations.rs has them: the table of answer
cases, a marker split across chunks, streaming in any chunks giving what resolving the
whole answer gives; and `stream_citations` over an async iterator, for `async for`.
Offsets are Python string indices."""

import asyncio
import random

import pytest

from mentor_context import (
    Assembler,
    CitationStream,
    MentorContextError,
    Resolver,
    resolve_citations,
    stream_citations,
)


@pytest.fixture(scope="module")
def report():
    """A report of five chips, numbered 1..5."""
    results = [{"content": f"Fact number {n}.", "score": 1 - n / 10, "title": f"Doc {n}"} for n in range(1, 6)]
    context = Assembler(1000).assemble(results)
    assert len(context["citations"]) == 5
    return context


# Each: an answer, the chips it cites in order of first citation with their counts, its
# unknown markers, and the answer renumbered.
CASES = [
    ("", [], [], ""),
    ("No sources here.", [], [], "No sources here."),
    ("Plan B costs 12 EUR [3].", [(3, 1)], [], "Plan B costs 12 EUR [1]."),
    ("Both [4, 2] and [2,4].", [(4, 2), (2, 2)], [], "Both [1, 2] and [2,1]."),
    ("See [2-4] and [5 – 3].", [(2, 1), (3, 1), (4, 1)], ["[5 – 3]"], "See [1-3] and [5 – 3]."),
    ("Range after a citation [3] then [2-4].", [(3, 2), (2, 1), (4, 1)], [], "Range after a citation [1] then [2, 1, 3]."),
    ("Mixed [5, 1-2].", [(5, 1), (1, 1), (2, 1)], [], "Mixed [1, 2-3]."),
    ("Twice [2][1] then [2].", [(2, 2), (1, 1)], [], "Twice [1][2] then [1]."),
    ("Once per marker [1, 1, 1-2].", [(1, 1), (2, 1)], [], "Once per marker [1, 1, 1-2]."),
    ("Made up [9], zero [0], and [2, 7].", [(2, 1)], ["[9]", "[0]", "[2, 7]"], "Made up [9], zero [0], and [1, 7]."),
    ("Too wide [1-5000] and too long [1234567890].", [], ["[1-5000]"], "Too wide [1-5000] and too long [1234567890]."),
    ("Use `list[1]` or ``a ` [2]`` but [3].", [(3, 1)], [], "Use `list[1]` or ``a ` [2]`` but [1]."),
    ("Code:\n```python\nx = [1]\n[2]\n```\nafter [4]\n~~~\n[5]\n~~~\n", [(4, 1)], [], "Code:\n```python\nx = [1]\n[2]\n```\nafter [1]\n~~~\n[5]\n~~~\n"),
    ("An open ` hides [1]\n\nuntil a blank line [2].", [(2, 1)], [], "An open ` hides [1]\n\nuntil a blank line [1]."),
    ("array[2], x[1], v_2[3], m[1][2], \\[4] but (see [5]).", [(5, 1)], [], "array[2], x[1], v_2[3], m[1][2], \\[4] but (see [1])."),
    ("A [link](https://x.example), [1](https://y.example), [text][2], [3].", [(3, 1)], [], "A [link](https://x.example), [1](https://y.example), [text][2], [1]."),
    ("Not markers: [], [ ], [1,], [a], [1--2], [[4]].", [(4, 1)], [], "Not markers: [], [ ], [1,], [a], [1--2], [[1]]."),
    ("価格は12ユーロです[2]。", [(2, 1)], [], "価格は12ユーロです[1]。"),
    ("价格［3］，另见［1, 2］。【4】〔5〕［１］[2］", [(3, 1), (1, 1), (2, 1)], [], "价格［1］，另见［2, 3］。【4】〔5〕［１］[2］"),
    ("Ends with [1]", [(1, 1)], [], "Ends with [1]"),
    ("Unfinished [1, 2", [], [], "Unfinished [1, 2"),
    ("😀 before [9] and [1]", [(1, 1)], ["[9]"], "😀 before [9] and [1]"),
]


@pytest.mark.parametrize("answer,cited,unknown,renumbered", CASES, ids=lambda c: repr(c)[:30])
def test_answer_cases_resolve_as_documented(report, answer, cited, unknown, renumbered):
    plain = Resolver(report).resolve(answer)
    assert [(c["citation"]["index"], c["count"]) for c in plain["cited"]] == cited
    assert [u["marker"] for u in plain["unknown"]] == unknown
    assert plain["answer"] is None
    for n, chip in enumerate(plain["cited"]):
        assert chip["newIndex"] == n + 1
        assert chip["citation"] == report["citations"][chip["citation"]["index"] - 1]
        for span in chip["spans"]:
            marker = answer[span["start"]:span["end"]]
            assert marker[0] in "[［" and marker[-1] in "]］", marker
    for u in plain["unknown"]:
        assert answer[u["at"]:].startswith(u["marker"])
    again = Resolver(report, renumber=True).resolve(answer)
    assert again["answer"] == renumbered
    assert again == resolve_citations(report, answer, renumber=True)
    # The citations alone will do, and so will the report's JSON text.
    import json
    assert Resolver(report["citations"]).resolve(answer) == plain
    assert Resolver(json.dumps(report)).resolve(answer) == plain


def test_a_split_marker_comes_out_whole(report):
    stream = Resolver(report, renumber=True).stream()
    assert stream.push("Price [1") == ("Price ", [])
    assert stream.held_back == 2
    # `[1` then `2]` is the citation [12]: unknown with five chips, shown whole.
    assert stream.push("2] and [3") == ("[12] and ", [{"type": "unknown", "marker": "[12]", "at": 6}])
    # Complete, but a `(` could still make it link text.
    assert stream.push("]") == ("", [])
    text, events = stream.push(".")
    assert text == "[1]."
    assert events == [{"type": "cited", "index": 3, "newIndex": 1, "first": True, "span": {"start": 15, "end": 18, "startUtf16": 15, "endUtf16": 18}}]
    (rest, rest_events), resolution = stream.finish()
    assert (rest, rest_events) == ("", [])
    assert resolution["answer"] == "Price [12] and [1]."
    assert stream.held_back == 0
    with pytest.raises(MentorContextError, match="the stream is finished"):
        stream.push("more")
    with pytest.raises(MentorContextError, match="the stream is finished"):
        stream.finish()
    with pytest.raises(TypeError):
        Resolver(report).stream().push(42)
    with pytest.raises(MentorContextError, match="report: expected a report"):
        Resolver({"citations": [{"index": "one"}]})


# Pieces answers are made of: every construct the scanner tells apart.
PIECES = ["[1]", "[2]", "[3]", "[5]", "[9]", "[0]", "[1, 2]", "[2,3]", "[1-3]", "[4 – 2]", "[12]",
          "[1][2]", "［2］", "［1, 3］", "[1](u)", "[x]", "[", "]", "[1", "2]", ", ", "-", "(", ")", "`",
          "``", "```", "~~~", "\n", "\n\n", " ", "word", "x", "_", "\\", "é", "価", "😀", "\u200b",
          "【1】", "\r\n"]


def test_streaming_in_any_chunks_gives_what_resolving_the_whole_answer_gives(report):
    chance = random.Random(26)
    for _ in range(400):
        answer = "".join(chance.choice(PIECES) for _ in range(chance.randrange(40)))
        renumber = chance.random() < 0.5
        resolver = Resolver(report, renumber=renumber)
        whole = resolver.resolve(answer)
        once = resolver.stream()
        _, once_events = once.push(answer)
        (_, rest_events), _ = once.finish()
        once_events += rest_events
        cuts = sorted({chance.randrange(len(answer) + 1) for _ in range(chance.randrange(12))})
        chunks = [answer[a:b] for a, b in zip([0, *cuts], [*cuts, len(answer)])]
        stream = resolver.stream()
        shown, events, read = "", [], 0
        for chunk in chunks:
            text, found = stream.push(chunk)
            read += len(chunk)
            shown += text
            events += found
            assert stream.held_back <= 64
            if not renumber:
                assert len(shown) + stream.held_back == read
                assert answer.startswith(shown)
        (text, found), resolution = stream.finish()
        shown += text
        events += found
        assert resolution == whole, repr(answer)
        assert events == once_events, repr(answer)
        assert shown == (whole["answer"] if renumber else answer)
        for event in events:
            if event["type"] == "cited":
                assert answer[event["span"]["start"]] in "[［"
            else:
                assert answer[event["at"]:].startswith(event["marker"])


def test_stream_citations_reads_an_async_iterator_of_chunks(report):
    async def chunks():
        for chunk in ["Plan B costs 12 EUR [3", "]. Before, 10 EUR [2", "]; see [9", "] and [3]."]:
            await asyncio.sleep(0)
            yield chunk

    async def main():
        streamed = stream_citations(Resolver(report, renumber=True), chunks())
        seen = []
        async for text, events in streamed:
            seen.append((text, [(e["type"], e.get("newIndex"), e.get("first")) for e in events]))
        return streamed, seen

    streamed, seen = asyncio.run(main())
    assert "".join(text for text, _ in seen) == "Plan B costs 12 EUR [1]. Before, 10 EUR [2]; see [9] and [1]."
    for text, _ in seen:
        assert not text.endswith(("[3", "[2", "[9"))
    firsts = [e for _, events in seen for e in events if e[0] == "cited" and e[2]]
    assert firsts == [("cited", 1, True), ("cited", 2, True)]
    assert [(c["citation"]["index"], c["count"]) for c in streamed.resolution["cited"]] == [(3, 2), (2, 1)]
    # An answer that ends on a marker: it is held back (a `(` could still follow) until the
    # end, and comes out of finish() with its event.
    async def ending():
        for chunk in ["Plan A is free [", "4]"]:
            yield chunk

    async def last():
        streamed = stream_citations(Resolver(report, renumber=True), ending())
        return [item async for item in streamed], streamed.resolution

    items, resolution = asyncio.run(last())
    assert items[-1][0] == "[1]"
    assert [(e["type"], e["index"], e["first"]) for e in items[-1][1]] == [("cited", 4, True)]
    assert "".join(text for text, _ in items) == resolution["answer"] == "Plan A is free [1]"
    stream = Resolver(report).stream()
    assert isinstance(stream, CitationStream)
    assert stream_citations(stream, chunks())._stream is stream
    with pytest.raises(TypeError, match="expected a Resolver or a CitationStream"):
        stream_citations(report, chunks())
