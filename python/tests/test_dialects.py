"""The dialects from Python: the command's entries and resolutions, byte for byte.

The responses are fixtures/responses/D.json, D.jsonl and D.sse (no D.sse for Bedrock,
whose stream is read as the AWS SDK's events), shaped after the SDK type files that
fixtures/responses/generate.py names."""

import json

import pytest
from conftest import FIXTURES, run_cli

from mentor_context import Assembler, MentorContextError, mistral_tool_content

PRICING = json.loads((FIXTURES / "pricing.json").read_text())
DIALECTS = ["anthropic", "anthropic-documents", "bedrock", "cohere", "mistral"]
# Mistral's references carry no quote; every other dialect's fixture misquotes one source.
UNVERIFIED = {dialect: 0 if dialect == "mistral" else 1 for dialect in DIALECTS}


def printed(dialect, entries):
    """What `assemble --dialect` prints for `entries`: for Mistral, the tool message's content,
    the entries keyed "0", "1", ... as its citations guide shows them."""
    return {str(i): entry for i, entry in enumerate(entries)} if dialect == "mistral" else entries


def command(cli, *args):
    done = run_cli(cli, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_entries_and_reports_are_the_command_s(cli, dialect):
    assembler = Assembler(600, dialect=dialect)
    report = assembler.assemble(PRICING)
    assert report == command(cli, "assemble", "--json", "--budget", "600", "--dialect",
                             dialect, str(FIXTURES / "pricing.json"))
    assert report["dialect"] == dialect
    entries = command(cli, "assemble", "--budget", "600", "--dialect", dialect,
                      str(FIXTURES / "pricing.json"))
    assert printed(dialect, assembler.entries(report)) == entries
    assert len(assembler.contents(report)) == len(report["citations"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_responses_resolve_as_the_command_reads_them_whole_and_streamed(cli, tmp_path, dialect):
    assembler = Assembler(600, dialect=dialect)
    report = assembler.assemble(PRICING)
    (tmp_path / "report.json").write_text(json.dumps(report))
    response = FIXTURES / "responses" / f"{dialect}.json"
    theirs = command(cli, "cite", "--budget", "600", "--dialect", dialect,
                     str(tmp_path / "report.json"), str(response))
    ours = assembler.resolve_response(report, response.read_text())
    answer = ours["answer"]
    assert answer == theirs["answer"]
    assert [(c["citation"], c["count"], c.get("quotes", [])) for c in ours["cited"]] == [
        # `quotes` is left out when there are none (Mistral's references).
        (c["citation"], c["count"], c.get("quotes", [])) for c in theirs["cited"]]
    assert ours["unverified"] == theirs["unverified"] == UNVERIFIED[dialect]
    # Python string indices, and the same UTF-16 units as the command's.
    for mine, its in zip(ours["cited"], theirs["cited"]):
        for span, their_span in zip(mine["spans"], its["spans"]):
            assert answer[span["start"]:span["end"]] == answer.encode()[
                their_span["start"]:their_span["end"]].decode()
            assert (span["startUtf16"], span["endUtf16"]) == (
                their_span["startUtf16"], their_span["endUtf16"])
    # Event by event, from the JSON Lines and from the raw server-sent events in pieces.
    feeds = [
        ("push_event", (FIXTURES / "responses" / f"{dialect}.jsonl").read_text().splitlines()),
        # As an SDK hands events out: dicts (boto3's ConverseStream events are).
        ("push_event", [json.loads(line) for line in
                        (FIXTURES / "responses" / f"{dialect}.jsonl").read_text().splitlines()]),
    ]
    if dialect != "bedrock":
        feeds.append(("push_sse", [(FIXTURES / "responses" / f"{dialect}.sse").read_text()[i:i + 37]
                                   for i in range(0, 100_000, 37)]))
    for push, pieces in feeds:
        stream = assembler.response_stream(report)
        shown, events = "", []
        for piece in pieces:
            text, settled = getattr(stream, push)(piece)
            shown += text
            events += settled
        (rest, last), resolution = stream.finish()
        events += last
        assert shown + rest == answer and resolution == ours
        assert sum(e["type"] == "cited" for e in events) == sum(c["count"] for c in ours["cited"])
        # Citations of nothing, as streamed, in the same Python string indices.
        streamed_unknown = [(e["marker"], e["at"]) for e in events if e["type"] == "unknown"]
        assert streamed_unknown == [(u["marker"], u["at"]) for u in resolution["unknown"]]
        if dialect == "anthropic":
            # Non-ASCII text comes before it: bytes and characters differ there.
            at = streamed_unknown[0][1]
            assert len(answer[:at].encode()) != at


def test_a_cut_off_stream_and_a_text_report_are_refused():
    assembler = Assembler(600, dialect="anthropic")
    report = assembler.assemble(PRICING)
    stream = assembler.response_stream(report)
    stream.push_event({"type": "message_start", "message": {"content": []}})
    with pytest.raises(MentorContextError, match="cut off after 1 events, before message_stop"):
        stream.finish()
    with pytest.raises(MentorContextError, match="the stream is finished"):
        stream.push_event({"type": "message_stop"})
    with pytest.raises(MentorContextError, match="writes no dialect"):
        Assembler(600).entries(Assembler(600).assemble(PRICING))
    with pytest.raises(MentorContextError, match="unknown dialect `openai`"):
        Assembler(600, dialect="openai")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_cache_control_marks_what_the_command_marks_in_a_follow_up_turn(cli, tmp_path, dialect):
    assembler = Assembler(1500, dialect=dialect, cache_control=True)
    first = assembler.assemble(PRICING[:2])
    (tmp_path / "first.json").write_text(json.dumps(first))
    (tmp_path / "more.json").write_text(json.dumps(PRICING[2:]))
    second = assembler.assemble_follow_up(first, PRICING[2:])
    assert len(first["citations"]) >= 1 and len(second["citations"]) > len(first["citations"])
    theirs = command(cli, "assemble", "--budget", "1500", "--dialect", dialect, "--cache-control",
                     "--previous", str(tmp_path / "first.json"), str(tmp_path / "more.json"))
    ours = assembler.entries(second, previous=first)
    assert printed(dialect, ours) == theirs
    marked = [i for i, entry in enumerate(ours) if "cache_control" in entry]
    if not dialect.startswith("anthropic"):
        assert marked == []  # only Anthropic's entries have such a field
    else:
        assert marked == [len(first["citations"]) - 1, len(ours) - 1]
        # Without the turn before, only the last; without cache_control, none.
        assert [i for i, e in enumerate(assembler.entries(second)) if "cache_control" in e] == [
            len(ours) - 1]
        plain = Assembler(1500, dialect=dialect).entries(second, previous=first)
        assert all("cache_control" not in e for e in plain)
    # Reports as a store keeps them, JSON text, read as the dicts are.
    assert assembler.entries(json.dumps(second), previous=json.dumps(first)) == ours
    # A bad turn before is an error with or without cache marks, never ignored.
    for marks in (True, False):
        with pytest.raises(MentorContextError, match="expected a report"):
            Assembler(1500, dialect=dialect, cache_control=marks).entries(second, previous="{}")


def test_cache_control_needs_a_dialect_and_a_dialect_no_format():
    with pytest.raises(MentorContextError, match="cache_control: marks a dialect's entries"):
        Assembler(600, cache_control=True)
    # As the command and Node refuse the pair: the format would be dropped without a word.
    with pytest.raises(MentorContextError, match="dialect: cannot be used with format: both choose"):
        Assembler(600, dialect="cohere", format="xml")


def test_a_cohere_citation_that_settles_only_at_the_end_comes_with_finish():
    # The citation counts bytes, with `€` before it: its end is past the characters streamed,
    # so it can only be read once the stream ends, and finish() gives its event.
    assembler = Assembler(600, dialect="cohere")
    report = assembler.assemble(PRICING)
    answer = "Team: 15 € a seat."
    quoted = "a seat"
    start = len(answer[:answer.index(quoted)].encode())
    stream = assembler.response_stream(report)
    stream.push_event({"type": "message-start", "id": "r", "delta": {"message": {"role": "assistant"}}})
    stream.push_event({"type": "content-start", "index": 0,
                       "delta": {"message": {"content": {"type": "text", "text": ""}}}})
    text, early = stream.push_event({"type": "content-delta", "index": 0,
                                     "delta": {"message": {"content": {"text": answer}}}})
    _, at_citation = stream.push_event({"type": "citation-start", "index": 0, "delta": {"message": {
        "citations": {"start": start, "end": start + len(quoted), "text": quoted,
                      "type": "TEXT_CONTENT", "sources": [{"type": "document", "id": "1"}]}}}})
    stream.push_event({"type": "citation-end", "index": 0})
    stream.push_event({"type": "content-end", "index": 0})
    stream.push_event({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
    (rest, last), resolution = stream.finish()
    streamed = early + at_citation + last
    assert [e["type"] for e in streamed] == ["cited"]
    assert text + rest == answer
    assert start + len(quoted) > len(answer)  # past the characters: it had to wait
    assert resolution["cited"][0]["quotes"] == [{"text": quoted, "verified": True}]
    span = streamed[0]["span"]
    assert answer[span["start"]:span["end"]] == quoted


def test_a_mistral_tool_result_keys_the_entries_as_the_references_name_them():
    # Reference id i is key "i" of the tool message's content: citation i + 1.
    assembler = Assembler(600, dialect="mistral")
    report = assembler.assemble(PRICING)
    entries = assembler.entries(report)
    content = mistral_tool_content(entries)
    assert list(json.loads(content)) == [str(i) for i in range(len(entries))]
    answer = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"content": [
        {"type": "text", "text": "Größe"}, {"type": "reference", "reference_ids": [1]},
        {"type": "text", "text": " zählt"}, {"type": "reference", "reference_ids": [len(entries)]}]}}]}
    resolution = assembler.resolve_response(report, json.dumps(answer))
    assert [c["citation"]["index"] for c in resolution["cited"]] == [2]
    span = resolution["cited"][0]["spans"][0]
    assert resolution["answer"][span["start"]:span["end"]] == "Größe"
    assert resolution["unknown"] == [{"marker": f"reference id {len(entries)}", "at": 11}]


def test_a_bedrock_stream_cut_off_or_failing_is_refused():
    assembler = Assembler(600, dialect="bedrock")
    report = assembler.assemble(PRICING)
    lines = (FIXTURES / "responses" / "bedrock.jsonl").read_text().splitlines()
    stream = assembler.response_stream(report)
    for line in lines[:-2]:  # without messageStop and metadata
        stream.push_event(line)
    with pytest.raises(MentorContextError, match="before messageStop"):
        stream.finish()
    stream = assembler.response_stream(report)
    stream.push_event(lines[0])
    with pytest.raises(MentorContextError, match="reports a throttlingException"):
        stream.push_event({"throttlingException": {"message": "slow down"}})
