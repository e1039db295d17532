"""PromptAssembler on the open models' own files: the same JSON as `mentor-context prompt
--json`, byte for byte, for Llama 3, Llama 3.1, Qwen 3, DeepSeek V3, Gemma 3 and Mistral's
Tekken.

The files are what `.ci/tokenizer-data` fetches into a folder named by MENTOR_TOKENIZER_DATA
(`.ci/run` sets it). Without it these tests are skipped; with it, a missing file fails.
The library's counts and renderings are checked against transformers and mistral-common in
`tests/library/whole_prompt/reference.rs`; here the binding is held to the command.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from mentor_context import PromptAssembler

DATA = os.environ.get("MENTOR_TOKENIZER_DATA")
MODELS = ["llama3", "llama3_1", "qwen3", "deepseek_v3", "gemma3", "tekken_240911"]
DATE = "2026-12-03"

pytestmark = pytest.mark.skipif(not DATA, reason="MENTOR_TOKENIZER_DATA is not set")


def template(model):
    """The settings and the command's flags for `model`'s files."""
    data = Path(DATA)
    if model.startswith("tekken"):
        tekken = data / f"{model}.json"
        assert tekken.is_file(), tekken
        return ("mistral", {"tokenizer_file": str(tekken)}), ["--chat-template", "mistral",
                                                               "--tokenizer-file", tekken]
    config, tokenizer = data / model / "tokenizer_config.json", data / model / "tokenizer.json"
    assert config.is_file() and tokenizer.is_file(), data / model
    return (str(config), {"tokenizer_file": str(tokenizer)}), [
        "--chat-template", config, "--tokenizer-file", tokenizer]


def conversation(turns):
    """A system message, `turns` turns in three languages, then the question."""
    words = ["How does sync work offline?", "Wie funktioniert die Synchronisierung?",
             "同步如何离线工作？"]
    chat = [{"role": "system", "content": "Answer from the documents; cite them as [n]."}]
    for turn in range(turns):
        chat.append({"role": "user", "content": f"{turn}: {words[turn % 3]}"})
        chat.append({"role": "assistant", "content": f"Turn {turn}: it syncs later [1]. " * 8})
    chat.append({"role": "user", "content": "And what does it cost?"})
    return chat


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("window, turns", [(8192, 20), (2048, 20), (1024, 0)])
def test_the_json_is_the_command_s_on_the_model_s_files(cli, tmp_path, model, window, turns):
    (chat_template, files), flags = template(model)
    chat = conversation(turns)
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(chat, ensure_ascii=False), encoding="utf-8")
    results = FIXTURES / "bench-english.json"
    command = subprocess.run(
        [cli, "prompt", results, "--conversation", path, "--window", str(window),
         "--reserve", "512", "--date", DATE, "--json", *flags],
        capture_output=True, text=True, check=True,
    ).stdout
    prompts = PromptAssembler(window, chat_template, reserve=512, date=DATE, **files)
    loaded = json.loads(results.read_text(encoding="utf-8"))
    assert prompts.assemble_json(chat, loaded) + "\n" == command
    prompt = prompts.assemble(chat, loaded)
    assert prompt["tokenCount"] + 512 <= window
    assert sum(prompt["parts"].values()) == prompt["tokenCount"]
    assert prompt["messages"][-1]["content"].endswith("And what does it cost?")
    if window == 2048 and turns:
        # Too small for 20 turns and 50 results: whole turns went, oldest first.
        indices = [d["index"] for d in prompt["dropped"]]
        assert indices == list(range(1, len(indices) + 1)) and indices
        assert prompt["messages"][1]["role"] == "user"
