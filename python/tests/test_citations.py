"""`resolve_citations` reads answers as `mentor-context cite` does."""

import json

from conftest import FIXTURES, run_cli

from mentor_context import Assembler, MentorContextError, Resolver, resolve_citations

import pytest

SUPPORT = json.loads((FIXTURES / "support.json").read_text())


def cite(cli, tmp_path, report, answer, *renumber):
    (tmp_path / "report.json").write_text(json.dumps(report))
    (tmp_path / "answer.txt").write_text(answer, encoding="utf-8")
    done = run_cli(cli, "cite", *renumber, str(tmp_path / "report.json"),
                   str(tmp_path / "answer.txt"))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "answer",
    [
        "Restart sync [2]; then sign in again [1][2]. See `x[1]` and [9].",
        "Le prix est de 12 € [1]. 価格は12ユーロです［2］。 Ünbekannt [7], [1-2].",
    ],
)
def test_resolution_agrees_with_the_command(cli, tmp_path, answer):
    report = Assembler(600).assemble(SUPPORT)
    assert len(report["citations"]) >= 2
    ours = resolve_citations(report, answer, renumber=True)
    theirs = cite(cli, tmp_path, report, answer, "--renumber")
    assert [(c["citation"], c["count"], c["newIndex"]) for c in ours["cited"]] == [
        (c["citation"], c["count"], c["newIndex"]) for c in theirs["cited"]]
    assert ours["answer"] == theirs["answer"]
    assert [u["marker"] for u in ours["unknown"]] == [u["marker"] for u in theirs["unknown"]]
    # Offsets index the Python string; the command's count UTF-8 bytes.
    for ours_u, theirs_u in zip(ours["unknown"], theirs["unknown"]):
        assert answer[ours_u["at"]:].startswith(ours_u["marker"])
        assert answer.encode()[theirs_u["at"]:].startswith(theirs_u["marker"].encode())
    for chip in ours["cited"]:
        for span in chip["spans"]:
            marker = answer[span["start"]:span["end"]]
            assert marker[0] in "[［" and marker[-1] in "]］", marker


def test_an_ascii_answer_resolves_to_the_command_s_json_exactly(cli, tmp_path):
    # One resolution shape in every front end: for an ASCII answer, Python's string indices are
    # the command's bytes, so the whole dict is what `cite` writes.
    report = Assembler(600).assemble(SUPPORT)
    answer = "Restart sync [2]; then sign in again [1][2]. See [9]."
    for renumber in [(), ("--renumber",)]:
        theirs = cite(cli, tmp_path, report, answer, *renumber)
        assert resolve_citations(report, answer, renumber=bool(renumber)) == theirs
        assert Resolver(report, renumber=bool(renumber)).resolve(answer) == theirs
    assert list(theirs["cited"][0]) == ["citation", "newIndex", "count", "spans"]


def test_the_citations_list_alone_will_do_and_chips_are_whole():
    report = Assembler(600).assemble(SUPPORT)
    resolution = resolve_citations(report["citations"], "Yes [1].")
    assert resolution["cited"][0]["citation"] == report["citations"][0]
    assert resolution["answer"] is None


def test_something_that_is_no_report_is_refused():
    with pytest.raises(MentorContextError, match="report: expected a report"):
        resolve_citations({"citations": [{"index": "one"}]}, "[1]")
