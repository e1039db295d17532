"""PromptAssembler: the whole prompt, the same JSON as the command's `prompt --json`."""

import json
import subprocess

import pytest

from conftest import FIXTURES
from mentor_context import MentorContextError, PromptAssembler

PRICING = FIXTURES / "pricing.json"
CONVERSATION = FIXTURES / "prompt" / "conversation.json"


def conversation():
    return json.loads(CONVERSATION.read_text(encoding="utf-8"))


def results():
    return json.loads(PRICING.read_text(encoding="utf-8"))


@pytest.mark.parametrize("template", ["harmony", "openai"])
def test_the_json_is_the_command_s_byte_for_byte(cli, template):
    command = subprocess.run(
        [cli, "prompt", PRICING, "--conversation", CONVERSATION, "--window", "1500",
         "--reserve", "300", "--chat-template", template, "--date", "2026-12-03",
         "--format", "xml", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    prompts = PromptAssembler(1500, template, reserve=300, date="2026-12-03", format="xml")
    assert prompts.assemble_json(conversation(), results()) + "\n" == command
    prompt = prompts.assemble(conversation(), results())
    assert prompt == json.loads(command)
    assert prompt["tokenCount"] + 300 <= 1500
    assert ("prompt" in prompt) == (template == "harmony")


def test_history_goes_by_whole_turns_oldest_first():
    prompts = PromptAssembler(600, "openai", reserve=200, history_max_tokens=40)
    prompt = prompts.assemble(conversation(), results())
    dropped = [(d["index"], d["role"]) for d in prompt["dropped"]]
    assert dropped[:2] == [(1, "user"), (2, "assistant")]
    assert prompt["messages"][0]["role"] == "system"
    assert prompt["messages"][-1]["content"].endswith("does annual billing change it?")
    assert prompt["parts"]["history"] <= 40
    assert sum(prompt["parts"].values()) == prompt["tokenCount"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(window=2048, chat_template="mistral"), "Tekken file"),
        (dict(window=2048, chat_template="harmony", encoding="cl100k_base"), "o200k_base"),
        (dict(window=2048, chat_template="/nonexistent/tokenizer_config.json",
              tokenizer_file="x.json"), "no such file"),
        (dict(window=100, chat_template="openai"), "reserve"),
        (dict(window=2048, chat_template="openai", trim_step=1.5), "trim step"),
        (dict(window=2048, chat_template="openai", context_in="documents"), "documents"),
        (dict(window=2048, chat_template="openai", context_in="tool"), "does not write tool calls"),
        (dict(window=2048, chat_template="openai", date="2026-02-30"), "2026-02-30"),
        (dict(window=-1, chat_template="openai"), "window: negative"),
        (dict(window=2048, chat_template="openai", encoding="o200k_base", model="gpt-4o"),
         "give one"),
    ],
)
def test_a_bad_setting_is_named(kwargs, message):
    with pytest.raises(MentorContextError, match=message):
        PromptAssembler(**kwargs)


def test_a_bad_conversation_is_named():
    prompts = PromptAssembler(2048, "openai")
    with pytest.raises(MentorContextError, match="must end with the user's question"):
        prompts.assemble([{"role": "user", "content": "Hi"},
                          {"role": "assistant", "content": "Hello"}], results())
    with pytest.raises(MentorContextError, match="role"):
        prompts.assemble([{"content": "Hi"}], results())
    with pytest.raises(MentorContextError, match="window of 30"):
        PromptAssembler(30, "openai", reserve=0).assemble(conversation(), results())
