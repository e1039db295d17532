"""Follow-up turns, as tests/library/follow_up.rs has them, over the three-turn conversation
in fixtures/conversation/: each turn's text starts with the previous text up to its
closing, byte for byte; earlier chips keep their numbers; new results equal to earlier
blocks are not repeated; the budget holds. Every turn is also the command's
`assemble --previous`, byte for byte."""

import json

import pytest
from conftest import FIXTURES, cli_error, load, run_cli

from mentor_context import Assembler, MentorContextError

CLOSING = {"plain": "", "xml": "</documents>\n"}


def turn(n):
    return FIXTURES / "conversation" / f"turn-{n}.json"


def stored(report):
    """The report as a backend keeps it between turns: written as JSON, read back."""
    return json.loads(json.dumps(report))


def command_turn(cli, tmp_path, args, previous, results):
    path = tmp_path / "previous.json"
    path.write_text(json.dumps(previous), encoding="utf-8")
    done = run_cli(cli, "assemble", "--json", *args, "--previous", str(path), str(results))
    assert done.returncode == 0, done.stderr
    return done.stdout


def check_follow_up(previous, following, results, close):
    assert following["tokenCount"] <= following["budget"]
    assert previous["context"].endswith(close)
    prefix = previous["context"][: len(previous["context"]) - len(close)]
    assert following["context"].startswith(prefix), "prefix changed"
    assert following["context"].endswith(close)
    earlier = len(previous["citations"])
    assert following["citations"][:earlier] == previous["citations"]
    assert [c["index"] for c in following["citations"]] == list(range(1, len(following["citations"]) + 1))
    inputs = [c["inputIndex"] for c in following["citations"][earlier:]]
    inputs += [o["inputIndex"] for o in following["omitted"]]
    assert sorted(inputs) == list(range(len(results)))


@pytest.mark.parametrize("fmt", ["plain", "xml"])
@pytest.mark.parametrize("budget", [150, 300, 450, 700, 2000])
def test_three_turns_keep_the_prefix_the_numbers_and_the_budget(cli, tmp_path, fmt, budget):
    args = ["--budget", str(budget), "--format", fmt]
    assembler = Assembler(budget, format=fmt)
    one, two, three = (load(turn(n)) for n in (1, 2, 3))
    first = stored(assembler.assemble(one))
    second = assembler.assemble_follow_up(first, two)
    check_follow_up(first, second, two, CLOSING[fmt])
    assert second == json.loads(command_turn(cli, tmp_path, args, first, turn(2)))
    third = assembler.assemble_follow_up(stored(second), three)
    check_follow_up(second, third, three, CLOSING[fmt])
    assert third == json.loads(command_turn(cli, tmp_path, args, second, turn(3)))
    assert list(third) == list(json.loads(command_turn(cli, tmp_path, args, second, turn(3))))
    assert third["context"].startswith(first["context"][: len(first["context"]) - len(CLOSING[fmt])])


def test_repeats_of_earlier_blocks_are_reported_and_new_ones_fill_the_budget():
    assembler = Assembler(2000)
    one, two, three = (load(turn(n)) for n in (1, 2, 3))
    first = assembler.assemble(one)
    assert len(first["citations"]) == 3
    second = assembler.assemble_follow_up(first, two)
    assert next(o for o in second["omitted"] if o["inputIndex"] == 1)["reason"] == "alreadyInContext"
    assert [c["inputIndex"] for c in second["citations"][3:]] == [0, 2, 3]
    third = assembler.assemble_follow_up(second, three)
    assert [(c["index"], c["inputIndex"]) for c in third["citations"][6:]] == [(7, 0), (8, 2), (9, 3)]
    assert (third["omitted"][0]["reason"], third["omitted"][0]["inputIndex"]) == ("alreadyInContext", 1)


def test_earlier_blocks_over_the_budget_raise_the_command_s_message(cli, tmp_path):
    first = Assembler(2000).assemble(load(turn(1)))
    tokens = first["tokenCount"]
    with pytest.raises(MentorContextError) as raised:
        Assembler(tokens - 1).assemble_follow_up(first, load(turn(2)))
    message = str(raised.value)
    assert message == f"the earlier turns' blocks take {tokens} tokens, more than the budget of {tokens - 1}"
    assert raised.value.code == "EARLIER_BLOCKS_OVER_BUDGET"
    path = tmp_path / "previous.json"
    path.write_text(json.dumps(first))
    assert cli_error(cli, ["--budget", str(tokens - 1), "--previous", str(path)], turn(2)) == f"{path}: {message}"
    full = Assembler(tokens).assemble_follow_up(first, load(turn(2)))
    assert (full["context"], full["citations"]) == (first["context"], first["citations"])


def test_a_report_from_another_assembler_or_edited_is_refused_naming_what_differs(cli, tmp_path):
    two = load(turn(2))
    plain = Assembler(2000).assemble(load(turn(1)))
    xml = Assembler(2000, format="xml").assemble(load(turn(1)))
    for previous, assembler in ((plain, Assembler(2000, format="xml")), (xml, Assembler(2000))):
        with pytest.raises(MentorContextError, match="does not fit this assembler"):
            assembler.assemble_follow_up(previous, two)
    with pytest.raises(MentorContextError, match="o200k_base"):
        Assembler(2000, encoding="cl100k_base").assemble_follow_up(plain, two)
    renumbered = stored(plain)
    renumbered["citations"].reverse()
    with pytest.raises(MentorContextError, match="numbered"):
        Assembler(2000).assemble_follow_up(renumbered, two)
    edited = stored(plain)
    edited["context"] = edited["context"].replace("seat", "sEat")
    assert edited["context"] != plain["context"]
    with pytest.raises(MentorContextError) as raised:
        Assembler(2000).assemble_follow_up(edited, two)
    message = str(raised.value)
    assert message.startswith("the previous report does not fit this assembler: block ")
    assert (raised.value.code, raised.value.reason) == ("PREVIOUS_TURN_MISMATCH", "EDITED_BLOCK")
    assert raised.value.block == int(message.split("block ")[1].split(":")[0])
    path = tmp_path / "previous.json"
    path.write_text(json.dumps(edited))
    assert cli_error(cli, ["--budget", "2000", "--previous", str(path)], turn(2)) == f"{path}: {message}"


def test_a_sealed_report_continues_and_one_changed_value_is_refused():
    assembler = Assembler(2000, seal_key=b"a key of thirty-two bytes, test!")
    first = assembler.assemble(load(turn(1)))
    following = assembler.assemble_follow_up(first, load(turn(2)))
    assert len(following["seal"]) == 64
    assert following["context"].startswith(first["context"])
    for edit in (lambda r: r["citations"][0].update(title=r["citations"][0]["title"] + "!"),
                 lambda r: r.update(tokenCount=r["tokenCount"] + 1),
                 lambda r: r.update(seal=("1" if r["seal"][0] == "0" else "0") + r["seal"][1:])):
        changed = stored(first)
        edit(changed)
        with pytest.raises(MentorContextError, match="does not fit this assembler"):
            assembler.assemble_follow_up(changed, load(turn(2)))


def test_a_stored_report_may_be_given_as_json_text_and_bad_ones_say_what_is_wrong():
    assembler = Assembler(2000)
    first = assembler.assemble(load(turn(1)))
    two = load(turn(2))
    assert assembler.assemble_follow_up(json.dumps(first), two) == assembler.assemble_follow_up(first, two)
    for previous, message in (
        ('{"context": ', r"^previous_report: line 1, column 12: EOF while parsing a value$"),
        ("  ", r"^previous_report: empty"),
        ([first], r"^previous_report: a list"),
        ({"context": "x"}, r"^previous_report: missing field `tokenCount`$"),
        ({"context": {1, 2}}, r"^previous_report: expected a report of Assembler.assemble"),
    ):
        with pytest.raises(MentorContextError, match=message):
            assembler.assemble_follow_up(previous, two)
