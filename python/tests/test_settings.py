"""One name per setting, in every front end: the library's settings, enumerated from its serde
description, are accepted as Python keywords under their names and as the command's flags
under the same names (`--max-blocks`); an unknown one is refused in the same words with the
same code; the typed `Settings` and its value unions are the library's."""

import json
import typing

import pytest
from conftest import FIXTURES, run_cli

from mentor_context import Assembler, MentorContextError, PromptAssembler, Settings, _native

TEKKEN = str(FIXTURES / "tokenizers" / "tekken-tiny.json")
CHATML = FIXTURES / "prompt" / "chatml-tools"
CONVERSATION = str(FIXTURES / "prompt" / "conversation.json")


def cases(key_file: str) -> dict:
    """Each setting: a value, the settings it needs beside it, and whether it is a whole
    prompt's. A setting without a case fails the first test."""
    context = {"budget": 400}
    prompt = {"window": 8192, "chat_template": "harmony"}
    chatml = {"window": 8192, "chat_template": str(CHATML / "tokenizer_config.json"),
              "tokenizer_file": str(CHATML / "tokenizer.json")}
    return {
        "budget": (300, {}, False),
        "encoding": ("cl100k_base", context, False),
        "model": ("gpt-4", context, False),
        "reserve_output": (1000, {"model": "gpt-4"}, False),
        "prompt_tokens": (192, {"model": "gpt-4"}, False),
        "engine": ("tiktoken", context, False),
        "tokenizer_file": (TEKKEN, context, False),
        "tokenizer_kind": ("tekken", {**context, "tokenizer_file": TEKKEN}, False),
        "format": ("xml", context, False),
        "dialect": ("cohere", context, False),
        "header": ("Cite as [n].", context, False),
        "hide_metadata_keys": (["chunk_id"], context, False),
        "max_head_tokens": (60, context, False),
        "overflow": ("skip", context, False),
        "duplicates": ("keep", context, False),
        "order": ("edges", context, False),
        "min_score": (0.5, context, False),
        "max_blocks": (2, context, False),
        "max_per_source": (1, context, False),
        "min_truncated_tokens": (10, context, False),
        "cache_bytes": (1 << 20, context, False),
        "seal_key_file": (key_file, context, False),
        "cache_control": (True, {**context, "dialect": "anthropic"}, False),
        "strict": (True, context, False),
        "window": (8192, {"chat_template": "harmony"}, True),
        "reserve": (512, prompt, True),
        "chat_template": ("harmony", {"window": 8192}, True),
        "date": ("2026-12-04", prompt, True),
        "context_in": ("system", prompt, True),
        "history_max_tokens": (900, prompt, True),
        "trim_step": (0.5, prompt, True),
        "allow_special_tokens_in_messages": (True, prompt, True),
        "tools": (json.loads((CHATML / "tools.json").read_text(encoding="utf-8")), chatml, True),
        "template_options": ({"enable_thinking": False}, chatml, True),
    }


def flags(settings: dict, folder) -> list[str]:
    """`settings` as the command's flags: `--name value`, a flag alone for True, and a JSON
    file for the settings whose flag reads one (`--tools`, `--template-options`)."""
    args = []
    for name, value in settings.items():
        flag = "--" + name.replace("_", "-")
        if name in ("tools", "template_options"):
            path = folder / f"{name}.json"
            path.write_text(json.dumps(value), encoding="utf-8")
            args += [flag, str(path)]
        elif value is True:
            args.append(flag)
        elif isinstance(value, list):
            for item in value:
                args += [flag, str(item)]
        else:
            args += [flag, str(value)]
    return args


def test_every_setting_is_a_keyword_and_a_flag_under_its_one_name(cli, tmp_path):
    key = tmp_path / "key"
    key.write_bytes(b"a key of thirty-two bytes, test!")
    table = cases(str(key))
    names = _native._settings_names()
    assert list(table) == names, "a case per setting, in the library's order"
    assert list(typing.get_type_hints(Settings)) == names, "Settings types every setting"
    for name, (value, beside, whole_prompt) in table.items():
        settings = {**beside, name: value}
        if whole_prompt:
            PromptAssembler(**settings)
            done = run_cli(cli, "prompt", *flags(settings, tmp_path), "--conversation", CONVERSATION,
                           str(FIXTURES / "pricing.json"))
        else:
            Assembler(**settings)
            done = run_cli(cli, "assemble", *flags(settings, tmp_path), str(FIXTURES / "pricing.json"))
        assert done.returncode == 0, (name, done.stderr)


def test_an_unknown_setting_is_refused_in_the_same_words_and_code_everywhere(cli):
    with pytest.raises(MentorContextError) as raised:
        Assembler(100, max_block=3)
    assert str(raised.value) == "unknown setting `max_block` (did you mean `max_blocks`?)"
    assert raised.value.code == "UNKNOWN_SETTING"
    done = run_cli(cli, "assemble", "--budget", "100", "--max-block", "3",
                   str(FIXTURES / "pricing.json"))
    assert done.stderr == ("mentor-context: error[UNKNOWN_SETTING]: unknown setting "
                           "`--max-block` (did you mean `--max-blocks`?)\n")
    # Another front end's spelling is not read, and the right one is named.
    with pytest.raises(MentorContextError, match=r"unknown setting `maxBlocks` \(did you mean `max_blocks`\?\)"):
        Assembler(100, maxBlocks=3)


def test_the_typed_values_are_the_library_s_names():
    hints = typing.get_type_hints(Settings)
    for name, choices in _native._settings_choices():
        assert list(typing.get_args(hints[name])) == choices, name
    for name, choices in _native._settings_choices():
        with pytest.raises(MentorContextError) as raised:
            Assembler(100, **{name: "no-such-name"})
        assert raised.value.code in ("UNKNOWN_NAME", "UNKNOWN_ENCODING"), name
        assert str(raised.value).startswith(f"{name}: "), str(raised.value)


def test_every_code_is_the_library_s():
    codes = _native._error_codes()
    assert len(codes) == len(set(codes))
    for bad, code in [
        (dict(budget=-1), "INVALID_SETTING"),
        (dict(budget=3, header="A header of many words"), "HEADER_OVER_BUDGET"),
        (dict(budget=100, model="gpt-0"), "UNKNOWN_MODEL"),
        (dict(budget=100, max_block=1), "UNKNOWN_SETTING"),
    ]:
        with pytest.raises(MentorContextError) as raised:
            Assembler(**bad)
        assert raised.value.code == code and code in codes, (bad, raised.value.code)
        assert raised.value.reason is None
