"""Bad configuration and bad input raise, with the library's one-line messages."""

import json
import math

import pytest
from conftest import FIXTURES, as_the_command_reads, cli_error, cli_failure, run_cli

from mentor_context import Assembler, MentorContextError

# Each: the command's options, and the same configuration as Assembler keywords. Both name
# the setting as their caller spells it (`--min-truncated-tokens: ...`,
# `min_truncated_tokens: ...`), or the command's parser wraps the library's message in
# clap's; the problem after the name, and the code, are the same.
BAD_CONFIGURATIONS = [
    (["--budget", "3", "--header", "A header of many words"],
     dict(budget=3, header="A header of many words")),
    (["--budget", "10", "--min-truncated-tokens", "11"],
     dict(budget=10, min_truncated_tokens=11)),
    (["--min-score", "NaN"], dict(budget=100, min_score=math.nan)),
    (["--encoding", "o300k_base"], dict(budget=100, encoding="o300k_base")),
    (["--format", "yaml"], dict(budget=100, format="yaml")),
    (["--model", "gpt-0"], dict(budget=100, model="gpt-0")),
    (["--model", "gpt-4", "--reserve-output", "8000", "--prompt-tokens", "192"],
     dict(model="gpt-4", reserve_output=8000, prompt_tokens=192)),
    (["--encoding", "p50k_base", "--engine", "bpe-openai"],
     dict(budget=100, encoding="p50k_base", engine="bpe-openai")),
]


@pytest.mark.parametrize("args,options", BAD_CONFIGURATIONS, ids=lambda c: str(c)[:30])
def test_configuration_errors_carry_the_library_s_message(cli, args, options):
    with pytest.raises(MentorContextError) as raised:
        Assembler(**options)
    message = str(raised.value)
    assert message and "\n" not in message
    setting, problem = message.split(": ", 1)
    code, command = cli_failure(cli, args)
    assert command.endswith(problem)
    if command.startswith("--"):
        assert command == f"--{setting.replace('_', '-')}: {problem}"
        assert code == raised.value.code


def test_the_exception_is_a_value_error():
    with pytest.raises(ValueError, match=r"^overflow: unknown overflow policy `spill` \(expected truncate, stop or skip\)$") as raised:
        Assembler(100, overflow="spill")
    assert raised.value.code == "UNKNOWN_NAME"


@pytest.mark.parametrize(
    "options,message",
    [
        (dict(budget=-5), "budget: negative; expected a whole number, 0 or more"),
        (dict(budget=10, max_blocks=-1), "max_blocks: negative"),
        (dict(), "budget: missing"),
        (dict(budget=10, model="gpt-4o", reserve_output=10), "the model's window sets the budget"),
        (dict(budget=10, model="gpt-4o", encoding="cl100k_base"), "both choose the encoding"),
        (dict(budget=10, reserve_output=10), "needs model"),
    ],
)
def test_combinations_the_command_refuses_are_refused_in_words(options, message):
    with pytest.raises(MentorContextError, match=message):
        Assembler(**options)


# Each: a request, the problem the library names (as the command does, at its line and
# column), and where the exception says it is.
BAD_REQUESTS = [
    ([{"content": "a", "score": 1}, {"score": 1}], "missing field `content`", "results[1]"),
    ([{"content": "a"}], "missing field `score`", "results[0]"),
    ([{"content": "a", "score": "high"}], "invalid value: string \"high\"", "results[0]"),
    ([{"content": "a", "score": 1, "Content": "b"}], "`content` is given twice", "results[0]"),
]


@pytest.mark.parametrize("request_,problem,where", BAD_REQUESTS, ids=lambda r: str(r)[:30])
def test_bad_results_raise_at_the_result_with_the_library_s_problem(cli, tmp_path, request_,
                                                                    problem, where):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request_))
    assert problem in cli_error(cli, ["--json"], path)
    with pytest.raises(MentorContextError) as raised:
        Assembler(100).assemble(request_)
    assert str(raised.value).startswith(f"{where}: ")
    assert problem in str(raised.value)


def test_strict_refuses_an_unknown_property_as_the_command_s_strict_does(cli, tmp_path):
    fixture = FIXTURES / "dotnet" / "unknown-properties.json"
    results = json.loads(fixture.read_text())
    command = cli_error(cli, ["--strict"], as_the_command_reads(fixture, tmp_path))
    with pytest.raises(MentorContextError) as raised:
        Assembler(400, strict=True).assemble(results)
    problem = str(raised.value).split(": ", 1)[1]
    assert problem.startswith("unknown property")
    assert command.endswith(problem)


def test_an_unknown_property_warns_as_the_command_warns(cli, tmp_path):
    fixture = FIXTURES / "dotnet" / "unknown-properties.json"
    done = run_cli(cli, "assemble", "--budget", "400", str(as_the_command_reads(fixture, tmp_path)))
    expected = [line.split(": warning: ", 1)[1].split(" (--strict")[0]
                for line in done.stderr.splitlines()]
    with pytest.warns(UserWarning) as warned:
        Assembler(400).assemble(json.loads(fixture.read_text()))
    got = [str(w.message).split(" (strict=True")[0] for w in warned]
    # The command's warning names the file first; the rest is the same words.
    assert [e.split(": ", 1)[1] for e in expected] == got


@pytest.mark.parametrize(
    "value,kind", [("[]", "str"), (5, "int"), ({"content": "a", "score": 1}, "dict")]
)
def test_what_is_not_a_list_of_results_is_a_type_error_naming_what_it_is(value, kind):
    with pytest.raises(TypeError, match=f"expected a list of results.*got {kind}"):
        Assembler(100).assemble(value)


def test_a_single_result_is_told_to_be_wrapped_in_a_list():
    with pytest.raises(TypeError, match=r"got dict \(a single result\? wrap it in \[ \]\)$"):
        Assembler(100).assemble({"Content": "a", "score": 1})


def test_a_result_that_is_not_a_mapping_or_object_with_content_is_refused():
    with pytest.raises(MentorContextError, match=r"results\[0\]: missing field `content`"):
        Assembler(100).assemble([42])


def test_metadata_values_must_be_strings_or_none():
    with pytest.raises(MentorContextError, match=r"results\[0\]"):
        Assembler(100).assemble([{"content": "a", "score": 1, "metadata": {"page": 3}}])


@pytest.mark.parametrize(
    "result,problem",
    [
        ({"content": "a", "score": math.nan}, "score NaN is not a finite 32-bit number"),
        ({"content": "a", "score": math.inf}, "score inf is not a finite 32-bit number"),
        ({"content": "\ud800", "score": 1}, "surrogates not allowed"),
        ({"content": "a", "score": 1, "title": 5}, "invalid type: integer `5`, expected a string"),
        # Keys JSON could not have: a property name, and a metadata key, that are not strings.
        ({1: "x", "content": "a", "score": 1}, "invalid type: integer `1`, expected a property name"),
        ({"content": "a", "score": 1, "metadata": {2: "v"}},
         "invalid type: integer `2`, expected a string"),
    ],
)
def test_values_json_cannot_carry_are_refused_by_name_too(result, problem):
    with pytest.raises(MentorContextError) as raised:
        Assembler(100).assemble([{"content": "ok", "score": 1}, result])
    assert str(raised.value).startswith("results[1]: ")
    assert problem in str(raised.value)


def test_a_result_changed_while_it_is_read_is_an_error_not_a_panic():
    # A metadata Mapping whose __getitem__ changes the result being read: pyo3's dict
    # iterator would panic (a BaseException); the reader stops first with an error.
    from collections.abc import Mapping

    class Meddling(Mapping):
        def __init__(self, record, change):
            self.record, self.change = record, change

        def __getitem__(self, key):
            self.change(self.record)
            return "v"

        def __iter__(self):
            return iter(["k"])

        def __len__(self):
            return 1

    def grow(record):
        record["title"] = "added while read"

    def swap(record):
        # Same size, other keys: one already read goes, a new one comes.
        record.pop("score", None)
        record["late"] = "x"

    assembler = Assembler(1000)
    for change, problem in ((grow, "changed size from 3 to 4 items"), (swap, None)):
        record = {"content": "c", "score": 1}
        record["metadata"] = Meddling(record, change)
        with pytest.raises(MentorContextError) as raised:
            assembler.assemble([record])
        if problem:
            assert problem in str(raised.value)
        after = [{"content": "after", "score": 1, "metadata": {"k": "v"}}]
        assert json.dumps(assembler.assemble(after)) == json.dumps(Assembler(1000).assemble(after))
