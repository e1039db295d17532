"""`seal_key` seals every report as `--seal-key-file` does: the same tag for the same report."""

import json

import pytest
from conftest import FIXTURES, cli_error, cli_report, load

from mentor_context import Assembler, MentorContextError

KEY = b"a key of thirty-two bytes, test!"


def test_a_sealed_report_is_the_command_s_byte_for_byte(cli, tmp_path):
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    fixture = FIXTURES / "pricing.json"
    expected = cli_report(cli, ["--budget", "300", "--seal-key-file", str(key_file)], fixture)
    assembler = Assembler(300, seal_key=KEY)
    assert assembler.assemble_json(load(fixture)) + "\n" == expected
    report = assembler.assemble(load(fixture))
    assert report == json.loads(expected)
    assert len(report["seal"]) == 64
    # A key given as text is its UTF-8.
    assert Assembler(300, seal_key=KEY.decode()).assemble(load(fixture)) == report
    # Another key, another seal; no key, no seal key at all.
    other = Assembler(300, seal_key=b"another key, also thirty-two b!!").assemble(load(fixture))
    assert other["seal"] != report["seal"]
    assert "seal" not in Assembler(300).assemble(load(fixture))


def test_a_short_key_is_refused_with_the_library_s_message(cli, tmp_path):
    key_file = tmp_path / "short"
    key_file.write_bytes(b"short")
    with pytest.raises(MentorContextError) as raised:
        Assembler(100, seal_key=b"short")
    problem = "the seal key is 5 bytes; it needs at least 16 (32 random bytes are best)"
    assert str(raised.value) == f"seal_key: {problem}"
    assert raised.value.code == "SEAL_KEY_TOO_SHORT"
    assert cli_error(cli, ["--seal-key-file", str(key_file)]) == f"--seal-key-file: {problem}"
