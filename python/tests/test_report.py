"""The report of `Assembler.assemble` is the report of `mentor-context assemble --json`."""

import json

import pytest
from conftest import RESULT_FIXTURES, as_the_command_reads, cli_report, load

from mentor_context import Assembler

# Each: the command's options, and the same configuration as Assembler keywords.
CONFIGURATIONS = [
    ([], dict(budget=4000)),
    (["--budget", "300"], dict(budget=300)),
    (
        ["--budget", "250", "--format", "xml", "--overflow", "skip", "--encoding", "cl100k_base"],
        dict(budget=250, format="xml", overflow="skip", encoding="cl100k_base"),
    ),
    (
        ["--budget", "500", "--order", "edges", "--max-per-source", "1", "--min-score", "0.3",
         "--hide-metadata-key", "chunk_id", "--header", "Cite sources as [n].",
         "--max-head-tokens", "24", "--duplicates", "content"],
        dict(budget=500, order="edges", max_per_source=1, min_score=0.3,
             hide_metadata_keys=["chunk_id"], header="Cite sources as [n].",
             max_head_tokens=24, duplicates="content"),
    ),
    (
        ["--budget", "120", "--overflow", "stop", "--max-blocks", "2",
         "--min-truncated-tokens", "8", "--engine", "tiktoken", "--encoding", "p50k_base"],
        dict(budget=120, overflow="stop", max_blocks=2, min_truncated_tokens=8,
             engine="tiktoken", encoding="p50k_base"),
    ),
    (
        ["--model", "gpt-4o", "--reserve-output", "127000", "--prompt-tokens", "500"],
        dict(model="gpt-4o", reserve_output=127000, prompt_tokens=500),
    ),
]


# unknown-properties.json warns, as it should (test_errors checks the words).
@pytest.mark.filterwarnings("ignore:unknown property")
@pytest.mark.parametrize("fixture", RESULT_FIXTURES, ids=lambda p: p.name)
@pytest.mark.parametrize("args,options", CONFIGURATIONS, ids=lambda c: str(c)[:40])
def test_report_equals_the_command_s(cli, tmp_path, fixture, args, options):
    expected = cli_report(cli, args, as_the_command_reads(fixture, tmp_path))
    assembler = Assembler(**options)
    results = load(fixture)
    assert assembler.assemble_json(results) + "\n" == expected
    report = assembler.assemble(results)
    assert report == json.loads(expected)
    # Same keys in the same order, so a caller that prints the dict sees the same report.
    assert list(report) == list(json.loads(expected))


def test_a_model_window_adds_window_and_headroom(cli):
    fixture = RESULT_FIXTURES[0]
    report = Assembler(model="gpt-4o", reserve_output=1000, prompt_tokens=200).assemble(
        load(fixture)
    )
    assert report["budget"] == report["window"]["contextWindow"] - 1000 - 200
    assert report["headroom"] == report["budget"] - report["tokenCount"]
    plain = Assembler(2000).assemble(load(fixture))
    assert "window" not in plain and "headroom" not in plain


def test_scores_read_back_as_the_command_prints_them():
    report = Assembler(400).assemble([{"content": "x", "score": 0.91}])
    # The library keeps an f32; the report gives its shortest decimal, as the JSON does.
    assert report["citations"][0]["score"] == 0.91


def test_scores_at_the_limits_of_f32_read_back_as_the_json_gives_them():
    # The longest decimals an f32 has (the smallest subnormal is 0. and 45 more digits), the
    # largest, and ordinary ones: the dict report must hold the floats json.loads reads.
    scores = [1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38, 0.1, 123456.79, 1e-7]
    assembler = Assembler(4000)
    results = [{"content": f"result {n}", "score": score} for n, score in enumerate(scores)]
    report = assembler.assemble(results)
    expected = json.loads(assembler.assemble_json(results))
    got = sorted(chip["score"] for chip in report["citations"])
    assert got == sorted(chip["score"] for chip in expected["citations"])
    assert 1e-45 in got and 3.4028235e38 in got


def test_with_budget_is_a_new_budget_on_the_same_configuration(cli):
    fixture = RESULT_FIXTURES[0]
    base = Assembler(4000, format="xml", header="H")
    expected = cli_report(cli, ["--budget", "200", "--format", "xml", "--header", "H"], fixture)
    assert base.with_budget(200).assemble(load(fixture)) == json.loads(expected)
    assert base.budget == 4000
    assert (base.with_budget(200).budget, base.format, base.encoding) == (200, "xml", "o200k_base")


def test_the_installed_wheel_has_no_benchmark_hooks():
    # pythonize and the hooks timing it are built only with the `bench` feature (issue 48).
    from mentor_context import _native
    assert not hasattr(_native, "_assemble_pythonize")
    assert not hasattr(_native, "_Report")
    assert hasattr(_native, "_kept_bytes")
