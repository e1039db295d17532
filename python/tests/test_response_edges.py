"""Responses at their edges (issue 33), read from Python as the command reads them: a byte
order mark first, two streams end to end, CR line ends, a numeric Cohere id, a web-search
citation, a title that is no string, a quote that starts inside a word."""

import copy
import json
import re

import pytest
from conftest import FIXTURES, run_cli

from mentor_context import Assembler, MentorContextError

PRICING = json.loads((FIXTURES / "pricing.json").read_text())
RESPONSES = FIXTURES / "responses"


def read(dialect, kind):
    return (RESPONSES / f"{dialect}.{kind}").read_text()


def anthropic(change):
    message = json.loads(read("anthropic", "json"))
    change(message["content"][1]["citations"])
    return json.dumps(message, ensure_ascii=False)


WEB = {"type": "web_search_result_location", "cited_text": "Team costs 15 EUR",
       "url": "https://example.com/prices", "title": "Prices", "encrypted_index": "Eo8B"}

# (name, dialect, response, what the refusal says or None, what must hold of the resolution)
CASES = [
    ("bom", "anthropic", "\ufeff" + read("anthropic", "json"), None, None),
    ("bom-sse", "cohere", "\ufeff" + read("cohere", "sse"), None, None),
    ("twice", "anthropic", read("anthropic", "jsonl") * 2, "comes after message_stop", None),
    ("twice-sse", "mistral", read("mistral", "sse") * 2,
     "comes after a chunk with a finish_reason", None),
    ("cr", "cohere", read("cohere", "sse").replace("\n", "\r"), None, None),
    ("numeric-id", "cohere", read("cohere", "json").replace('"id": "1"', '"id": 1'), None,
     lambda r: r["cited"][0]["citation"]["index"] == 1),
    ("web", "anthropic", anthropic(lambda cites: cites.append(WEB)), None,
     lambda r: 'a web_search_result_location citation of "https://example.com/prices"'
     in [u["marker"] for u in r["unknown"]]),
    ("title", "anthropic", anthropic(lambda cites: cites[0].update(title=7)),
     "content[1].citations[0].title: expected a string", None),
    ("inside-a-word", "anthropic",
     anthropic(lambda cites: cites[0].update(cited_text=cites[0]["cited_text"][1:])), None,
     lambda r: r["unverified"] == 2),
]


@pytest.mark.parametrize("name,dialect,text,refusal,holds", CASES, ids=[c[0] for c in CASES])
def test_response_edges_read_as_the_command_reads_them(cli, tmp_path, name, dialect, text,
                                                       refusal, holds):
    assembler = Assembler(600, dialect=dialect)
    report = assembler.assemble(PRICING)
    (tmp_path / "report.json").write_text(json.dumps(report))
    (tmp_path / "response").write_bytes(text.encode())
    done = run_cli(cli, "cite", "--budget", "600", "--dialect", dialect,
                   str(tmp_path / "report.json"), str(tmp_path / "response"))
    if refusal:
        assert done.returncode == 2 and refusal in done.stderr, done.stderr
        with pytest.raises(MentorContextError, match=re.escape(refusal)):
            assembler.resolve_response(report, text)
        return
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    ours = assembler.resolve_response(report, text)
    assert ours["answer"] == theirs["answer"]
    assert [(c["citation"], c["count"], c.get("quotes", [])) for c in ours["cited"]] == [
        (c["citation"], c["count"], c.get("quotes", [])) for c in theirs["cited"]]
    assert ours["unverified"] == theirs["unverified"]
    assert [u["marker"] for u in ours["unknown"]] == [u["marker"] for u in theirs["unknown"]]
    if holds:
        assert holds(ours), ours
    if name.endswith("sse") or name == "cr":
        stream = assembler.response_stream(report)
        for i in range(0, len(text), 37):
            stream.push_sse(text[i:i + 37])
        _, resolution = stream.finish()
        assert resolution == ours
