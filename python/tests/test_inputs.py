"""Results as dicts in any spelling the wire form allows, or as objects with attributes."""

import json
from dataclasses import dataclass

from conftest import FIXTURES

from mentor_context import Assembler

import pytest

PRICING = json.loads((FIXTURES / "pricing.json").read_text())


@dataclass
class Hit:
    content: str
    score: float
    title: str | None = None
    source_url: str | None = None
    metadata: dict | None = None


class Plain:
    """Not a dataclass: only attributes, camelCase as the wire form."""

    def __init__(self, record):
        self.content = record["content"]
        self.score = record["score"]
        self.sourceUrl = record.get("sourceUrl")
        self.title = record.get("title")
        self.metadata = record.get("metadata")


def test_objects_with_attributes_read_as_the_same_dicts():
    assembler = Assembler(400)
    hits = [Hit(r["content"], r["score"], r.get("title"), r.get("sourceUrl"), r.get("metadata"))
            for r in PRICING]
    expected = assembler.assemble(PRICING)
    assert assembler.assemble(hits) == expected
    assert assembler.assemble([Plain(r) for r in PRICING]) == expected
    # Mixed, and a tuple instead of a list.
    mixed = tuple(hits[i] if i % 2 else PRICING[i] for i in range(len(PRICING)))
    assert assembler.assemble(mixed) == expected


def test_names_in_any_case_and_numeric_string_scores_read_as_dotnet_reads_them():
    assembler = Assembler(400)
    camel = [{"content": "a b c", "sourceUrl": "https://x.example/a", "score": 0.5}]
    pascal = [{"Content": "a b c", "SourceUrl": "https://x.example/a", "Score": "0.5"}]
    assert assembler.assemble(pascal) == assembler.assemble(camel)
    assert assembler.assemble(camel)["citations"][0]["sourceUrl"] == "https://x.example/a"


def test_a_dict_s_source_url_is_read_as_source_url_with_no_warning(recwarn):
    # Python code writes source_url, as the attribute reader takes it; the README's dict does.
    assembler = Assembler(400)
    snake = [{"content": "a b c", "source_url": "https://x.example/a", "score": 0.5},
             {"content": "d e f", "sourceUrl": "https://x.example/b", "score": 0.4}]
    report = assembler.assemble(snake)
    assert [c["sourceUrl"] for c in report["citations"]] == ["https://x.example/a",
                                                             "https://x.example/b"]
    assert not [w for w in recwarn if "source_url" in str(w.message)]
    assert snake[0] == {"content": "a b c", "source_url": "https://x.example/a", "score": 0.5}
    # Both spellings: the wire form's wins, and the other is named as unknown.
    both = [{"content": "a", "score": 1, "sourceUrl": "https://x.example/c", "source_url": "u"}]
    with pytest.warns(UserWarning, match="source_url"):
        assert assembler.assemble(both)["citations"][0]["sourceUrl"] == "https://x.example/c"


def test_null_metadata_values_stay_on_the_chip_and_out_of_the_text():
    report = Assembler(400).assemble(
        [{"content": "x", "score": 1, "metadata": {"author": None, "page": "3"}}]
    )
    assert report["citations"][0]["metadata"] == {"author": None, "page": "3"}
    assert "author" not in report["context"] and "page: 3" in report["context"]


def test_the_input_is_not_changed():
    before = json.dumps(PRICING)
    Assembler(100).assemble(PRICING)
    assert json.dumps(PRICING) == before
