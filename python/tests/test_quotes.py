"""Quotes before `[n]` markers are checked from the report alone, as `mentor-context cite`
checks them: the same report and answer give the same `unverified` count and quotes in the
command, `resolve_citations`, `Resolver.resolve` and a `CitationStream` (issue 32, item 4)."""

import json

from conftest import FIXTURES, run_cli

from mentor_context import Assembler, MentorContextError, Resolver, resolve_citations

import pytest

PRICING = json.loads((FIXTURES / "pricing.json").read_text())
ANSWER = (FIXTURES / "quoted-answer.txt").read_text(encoding="utf-8")

# What every front end reports (the library's and Node's tests expect the same).
EXPECTED = [
    (1, "Team: 15 EUR, unlimited seats", True),
    (1, "Team: 12 EUR", False),
    (4, "Extra storage: 4 EUR per 100 GB.", True),
]


def xml_report():
    """`pricing` as `assemble --json --format xml --hide-metadata-key chunk_id` reports it."""
    return Assembler(4000, format="xml", hide_metadata_keys=["chunk_id"]).assemble(PRICING)


def quotes(resolution):
    return [(chip["citation"]["index"], q["text"], q["verified"])
            for chip in resolution["cited"] for q in chip.get("quotes", [])]


def streamed(report, answer):
    stream = Resolver(report).stream()
    for word in answer.split(" "):
        stream.push(word + " ")
    return stream.finish()[1]


def test_the_report_records_its_layout():
    layout = xml_report()["layout"]
    assert layout == {"format": "xml", "header": "", "hiddenKeys": ["chunk_id"],
                      "maxHeadTokens": None}


def test_quotes_agree_with_the_command(cli, tmp_path):
    report = xml_report()
    (tmp_path / "report.json").write_text(json.dumps(report))
    done = run_cli(cli, "cite", str(tmp_path / "report.json"), str(FIXTURES / "quoted-answer.txt"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    theirs = json.loads(done.stdout)
    assert quotes(theirs) == EXPECTED
    assert theirs["unverified"] == 1
    for ours in [resolve_citations(report, ANSWER), Resolver(report).resolve(ANSWER),
                 Resolver(json.dumps(report)).resolve(ANSWER), streamed(report, ANSWER)]:
        assert quotes(ours) == EXPECTED
        assert ours["unverified"] == 1


def test_an_edited_report_reports_its_quotes_not_verified():
    report = xml_report()
    report["context"] = report["context"].replace("15 EUR", "16 EUR")
    resolution = Resolver(report).resolve(ANSWER)
    assert quotes(resolution) == [(n, q, False) for n, q, _ in EXPECTED]
    assert resolution["unverified"] == 3


def test_citations_alone_check_no_quote():
    resolution = resolve_citations(xml_report()["citations"], ANSWER)
    assert quotes(resolution) == [] and resolution["unverified"] == 0


def test_a_bad_whole_report_is_refused_naming_it():
    report = xml_report()
    report["tokenCount"] = "many"
    with pytest.raises(MentorContextError, match="report: expected a report"):
        Resolver(report)


def test_a_follow_up_of_another_layout_names_the_part():
    report = xml_report()
    with pytest.raises(MentorContextError,
                       match="it was written in the xml format, this assembler writes plain"):
        Assembler(4000, hide_metadata_keys=["chunk_id"]).assemble_follow_up(report, [])
    with pytest.raises(MentorContextError, match="it hides the metadata keys chunk_id, "
                       "this assembler hides the metadata keys currency"):
        Assembler(4000, format="xml", hide_metadata_keys=["currency"]).assemble_follow_up(
            report, [])
