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


CHATML = FIXTURES / "prompt" / "chatml-tools"


def chatml(**settings):
    return PromptAssembler(4096, str(CHATML / "tokenizer_config.json"),
                           tokenizer_file=str(CHATML / "tokenizer.json"), **settings)


def test_tools_and_template_options_are_the_command_s_byte_for_byte(cli):
    command = subprocess.run(
        [cli, "prompt", PRICING, "--conversation", CONVERSATION, "--window", "4096",
         "--chat-template", CHATML / "tokenizer_config.json",
         "--tokenizer-file", CHATML / "tokenizer.json", "--tools", CHATML / "tools.json",
         "--template-options", CHATML / "template-options.json", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    tools = json.loads((CHATML / "tools.json").read_text(encoding="utf-8"))
    options = {"enable_thinking": False}
    # As settings of the assembler, and as the request's own.
    built = chatml(tools=tools, template_options=options)
    assert built.assemble_json(conversation(), results()) + "\n" == command
    per_request = chatml().assemble_json(conversation(), results(), tools=tools,
                                         template_options=options)
    assert per_request + "\n" == command
    prompt = json.loads(command)
    assert prompt["parts"]["tools"] > 0
    assert prompt["prompt"].endswith("<think>\n\n</think>\n\n")


def test_template_options_are_named_when_wrong():
    with pytest.raises(MentorContextError, match="unknown setting `enable_thinking`") as raised:
        PromptAssembler(4096, "harmony", enable_thinking=False)
    assert raised.value.code == "UNKNOWN_SETTING"
    with pytest.raises(MentorContextError,
                       match="template_options: the harmony/o200k_harmony chat template reads one template option") as raised:
        PromptAssembler(4096, "harmony", template_options={"enable_thinking": False})
    assert raised.value.code == "INVALID_SETTING"
    with pytest.raises(MentorContextError, match="template option `messages` is set by the library"):
        chatml(template_options={"messages": []})
    with pytest.raises(MentorContextError, match=r"tools: tool 0: its function needs a `name`"):
        chatml().assemble(conversation(), results(), tools=[{"type": "function", "function": {}}])
    with pytest.raises(MentorContextError, match="template_options: the harmony"):
        PromptAssembler(4096, "harmony").assemble(conversation(), results(),
                                                  template_options={"enable_thinking": False})


FAILS_BY_MODE = (
    "{% if mode == 'raise' %}{{ raise_exception('no system message') }}"
    "{% elif mode == 'loop' %}{% for i in range(100000) %}{% for j in range(100000) %}"
    "{% endfor %}{% endfor %}{% endif %}"
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "<|im_start|>assistant\n"
)


def test_a_template_s_error_has_its_kind(tmp_path):
    template = tmp_path / "chat_template.jinja"
    template.write_text(FAILS_BY_MODE, encoding="utf-8")
    tokenizer = str(CHATML / "tokenizer.json")
    prompts = PromptAssembler(4096, str(template), tokenizer_file=tokenizer)
    for mode, kind, words in [("raise", "RAISED", "the template raised: no system message"),
                              ("loop", "OUT_OF_FUEL", "out of fuel")]:
        with pytest.raises(MentorContextError, match=words) as raised:
            prompts.assemble(conversation(), results(), template_options={"mode": mode})
        assert raised.value.code == "CHAT_TEMPLATE"
        assert raised.value.template_kind == kind
    broken = tmp_path / "broken.jinja"
    broken.write_text("{% for m in messages %}\n{{ m.content }\n{% endfor %}", encoding="utf-8")
    with pytest.raises(MentorContextError, match=r"broken.jinja: .*\(line 2\)") as raised:
        PromptAssembler(4096, str(broken), tokenizer_file=tokenizer)
    assert (raised.value.code, raised.value.template_kind) == ("CHAT_TEMPLATE", "SYNTAX")
    # Every other error has none.
    with pytest.raises(MentorContextError) as raised:
        PromptAssembler(30, "openai", reserve=0).assemble(conversation(), results())
    assert raised.value.template_kind is None
