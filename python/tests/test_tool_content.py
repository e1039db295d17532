"""A tool message's content from Python: Mistral's is `assemble --dialect mistral`'s output
byte for byte; Cohere's is fixtures/tool_content/cohere-multilingual-300.json, which the
library's test (tests/library/tool_content.rs) checks is what Rust's `cohere_tool_content`
writes. Entries of another dialect, or edited, raise INVALID_ARGUMENT."""

import json

import pytest
from conftest import FIXTURES, run_cli

from mentor_context import (
    Assembler,
    MentorContextError,
    cohere_tool_content,
    mistral_tool_content,
)

# (fixture, budget): the second cuts an entry, and its text is CJK, emoji and quotes.
CASES = [("pricing.json", 600), ("multilingual.json", 300)]


def entries_of(dialect, fixture, budget):
    assembler = Assembler(budget, dialect=dialect)
    results = json.loads((FIXTURES / fixture).read_text())
    return assembler.entries(assembler.assemble(results))


@pytest.mark.parametrize(("fixture", "budget"), CASES)
def test_the_mistral_content_is_what_the_command_prints(cli, fixture, budget):
    done = run_cli(cli, "assemble", "--budget", str(budget), "--dialect", "mistral",
                   str(FIXTURES / fixture))
    assert done.returncode == 0, done.stderr
    entries = entries_of("mistral", fixture, budget)
    content = mistral_tool_content(entries)
    assert content + "\n" == done.stdout
    # Keyed "0", "1", ...: reference id i is citation i + 1.
    assert json.loads(content) == {str(i): entry for i, entry in enumerate(entries)}
    # The entries as a store keeps them (their JSON read back), and as a tuple.
    assert mistral_tool_content(json.loads(json.dumps(entries))) == content
    assert mistral_tool_content(tuple(entries)) == content


def test_the_cohere_content_is_the_fixture_rust_writes():
    fixture = (FIXTURES / "tool_content" / "cohere-multilingual-300.json").read_text()
    entries = entries_of("cohere", "multilingual.json", 300)
    content = cohere_tool_content(entries)
    assert content == json.loads(fixture)
    # Byte for byte, in the keys' order: Python's compact JSON of it is serde_json's.
    assert json.dumps(content, ensure_ascii=False, separators=(",", ":")) + "\n" == fixture
    assert [block["document"] for block in content] == entries
    assert any(block["document"]["data"].get("truncated") == "true" for block in content)


def test_nothing_is_an_empty_content():
    assert mistral_tool_content([]) == "{}"
    assert cohere_tool_content([]) == []


def refusal(function, entries):
    with pytest.raises(MentorContextError) as raised:
        function(entries)
    assert raised.value.code == "INVALID_ARGUMENT"
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("dialect", ["anthropic", "anthropic-documents", "bedrock", "cohere"])
def test_another_dialect_s_entries_are_refused_for_mistral(dialect):
    entries = entries_of(dialect, "pricing.json", 600)
    name = {"bedrock": "a Bedrock document", "cohere": "a Cohere document"}.get(
        dialect, "an Anthropic block")
    assert refusal(mistral_tool_content, entries) == (
        f"entries[0]: {name}, not a Mistral reference: give the entries of an assembler "
        "with dialect mistral")


def test_mistral_entries_are_refused_for_cohere():
    entries = entries_of("mistral", "pricing.json", 600)
    assert refusal(cohere_tool_content, entries) == (
        "entries[0]: a Mistral reference, not a Cohere document: give the entries of an "
        "assembler with dialect cohere")


def test_edited_entries_and_other_values_are_refused():
    entries = entries_of("mistral", "pricing.json", 600)
    entries[1]["score"] = "0.9"  # kept by nothing: refused, not dropped
    assert refusal(mistral_tool_content, entries) == (
        "entries[1]: holds `score`, which a Mistral reference as Assembler.entries writes it "
        "does not")
    cohere = entries_of("cohere", "pricing.json", 600)
    cohere[2]["data"]["text"] = 12
    assert refusal(cohere_tool_content, cohere).startswith(
        "entries[2]: not a Cohere document: invalid type: integer `12`, expected a string")
    report = Assembler(600, dialect="cohere").assemble(
        json.loads((FIXTURES / "pricing.json").read_text()))
    assert refusal(cohere_tool_content, report) == (
        "entries: expected the list Assembler.entries returns: invalid type: map, "
        "expected a sequence")
    assert refusal(mistral_tool_content, "[]").startswith(
        "entries: expected the list Assembler.entries returns: invalid type: string")
