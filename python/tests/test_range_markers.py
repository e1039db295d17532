"""Range markers cannot amplify, as in tests/library/range_markers.rs: the ranges of one
answer cite at most 10,000 numbers in all (the library's MAX_RANGE_NUMBERS), and a range past
that is an unknown marker. The red team's answer, 200 KiB of `[1-1000]` against a 1,000-chip
report, is checked by the spans and events it gives (the stream's offsets were counted in a
walk per chip before, quadratic); every offset is a Python string index of its marker."""

from mentor_context import Assembler, Resolver

# The library's MAX_RANGE_NUMBERS: the same bound in every language.
MAX_RANGE_NUMBERS = 10_000


def thousand_chips():
    results = [{"content": f"Fact {i}.", "score": 0.5} for i in range(1000)]
    report = Assembler(50_000).assemble(results)
    assert len(report["citations"]) == 1000
    return report


def test_the_ranges_of_an_answer_cite_at_most_the_bound_in_all():
    report = thousand_chips()
    # A non-ASCII letter between markers, so that string indices are not byte offsets.
    piece = "[1-1000] é "
    answer = piece * (200 * 1024 // len(piece.encode()))
    markers = answer.count("[")
    whole = Resolver(report).resolve(answer)
    spans = [span for chip in whole["cited"] for span in chip["spans"]]
    assert len(spans) == MAX_RANGE_NUMBERS
    assert len(whole["unknown"]) == markers - 10
    for span in spans:
        assert answer[span["start"]:span["end"]] == "[1-1000]"
    for marker in whole["unknown"]:
        assert answer[marker["at"]:].startswith("[1-1000]")
    assert whole["unknown"][-1]["at"] == answer.rindex("[")
    stream = Resolver(report).stream()
    events = []
    for at in range(0, len(answer), 1000):
        events += stream.push(answer[at:at + 1000])[1]
    (_, rest), streamed = stream.finish()
    events += rest
    assert streamed == whole
    assert len(events) == MAX_RANGE_NUMBERS + markers - 10
    assert events[-1] == {"type": "unknown", "marker": "[1-1000]", "at": answer.rindex("[")}
