"""What mistral-common writes, or refuses, for conversations with tools, tool calls and tool
results, for each Tekken version the `mistral` template writes: the cases of
src/prompt/template/mistral/tests.rs.

    python mistral_tools.py TEKKEN_240911_JSON OUT_JSON

Each case is run through `MistralTokenizer.from_file(...).encode_chat_completion(
ChatCompletionRequest.from_openai(messages, tools=tools))` with mistral-common's
`tekken_240911.json` as v3, v7, v11 and v13 (v11 and v13 listing the special tokens Mistral's
files list); OUT_JSON gets each case with "expected": {version: the text, or null where
mistral-common refuses it}.
"""

import copy
import json
import os
import sys
import tempfile

from mistral_common.protocol.instruct.request import ChatCompletionRequest
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

LISTED = [
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
] + [f"<SPECIAL_{i}>" for i in range(20, 32)] + ["[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]"]

TOOLS = [
    {"type": "function", "function": {"name": "search", "description": "Sucht. 日本", "strict": True,
     "parameters": {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "number", "minimum": 0.5}},
                    "required": ["q"]}}},
    {"type": "function", "function": {"name": "noparams"}},
]


def call(id_, name, arguments):
    c = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if id_ is not None:
        c["id"] = id_
    return c


def user(text):
    return {"role": "user", "content": text}


def tool(id_, content):
    return {"role": "tool", "tool_call_id": id_, "content": content}


CASES = [
    # Calls and results in the history, the tool list, a system message, floats as Python writes them.
    {"messages": [{"role": "system", "content": "S"}, user("u1"),
                  {"role": "assistant", "content": "", "tool_calls": [call("abc123XYZ", "search", "{\"q\":\"é\",  \"n\": 1.5, \"big\": 1e20}")]},
                  tool("abc123XYZ", "{\"hits\": [1,2]}"), {"role": "assistant", "content": "found "}, user("q2")],
     "tools": TOOLS},
    # Text beside calls (v7 and later), arguments as an object and empty, results out of order.
    {"messages": [user("u1"),
                  {"role": "assistant", "content": "Let me look.", "tool_calls": [call("aaaaaaaa1", "search", {"x": [1, {"y": None}]}), call("bbbbbbbb2", "noparams", "")]},
                  tool("bbbbbbbb2", "plain text"), tool("aaaaaaaa1", ""), user("q2")],
     "tools": TOOLS[:1]},
    # Arguments that are not JSON, a result that is a JSON string, no tools.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("aaaaaaaa1", "search", "not json")]},
                  tool("aaaaaaaa1", "\"quoted\""), user("u2"), {"role": "assistant", "content": "ok"}, user("q3")]},
    # Calls split over two assistant messages, then their results; several turns.
    {"messages": [user("u0"), {"role": "assistant", "content": "a0"}, user("u1"),
                  {"role": "assistant", "content": None, "tool_calls": [call("ccccccccc", "search", "{}")]},
                  {"role": "assistant", "content": None, "tool_calls": [call("ddddddddd", "search", "{\"q\": \"x\"}")]},
                  tool("ddddddddd", "2"), tool("ccccccccc", "1"), {"role": "assistant", "content": "both"}, user("q")],
     "tools": TOOLS},
    # Refused: ids that are not 9 letters or digits (all but v13).
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("call_1", "search", "{}")]},
                  tool("call_1", "r"), user("q")]},
    # Refused: a call without an id.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call(None, "search", "{}")]},
                  tool("aaaaaaaa1", "r"), user("q")]},
    # Refused: a result after a user message.
    {"messages": [user("u1"), tool("aaaaaaaa1", "r"), user("q")]},
    # Refused: an assistant message before the calls have their results.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("aaaaaaaa1", "search", "{}"), call("bbbbbbbb2", "search", "{}")]},
                  tool("aaaaaaaa1", "r"), {"role": "assistant", "content": "x"}, user("q")]},
    # Refused from v11: a result whose id no call has.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("aaaaaaaa1", "search", "{}")]},
                  tool("zzzzzzzz9", "r"), user("q")]},
    # Refused: a system message after a result.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("aaaaaaaa1", "search", "{}")]},
                  tool("aaaaaaaa1", "r"), {"role": "system", "content": "s"}, user("q")]},
    # Refused: a function name with a space.
    {"messages": [user("u1"), {"role": "assistant", "tool_calls": [call("aaaaaaaa1", "two words", "{}")]},
                  tool("aaaaaaaa1", "r"), user("q")]},
]


def main():
    base_path, out_path = sys.argv[1:3]
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)
    folder = tempfile.mkdtemp(prefix="mistral-tools-")
    tokenizers = {}
    for version in ("v3", "v7", "v11", "v13"):
        file = copy.deepcopy(base)
        file["config"]["version"] = version
        if version in ("v11", "v13"):
            file["special_tokens"] = [{"rank": r, "token_str": t, "is_control": True} for r, t in enumerate(LISTED)]
        path = os.path.join(folder, f"tekken_{version}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(file, f)
        tokenizers[version] = MistralTokenizer.from_file(path)
    out = []
    for case in CASES:
        expected = {}
        for version, tok in tokenizers.items():
            request = ChatCompletionRequest.from_openai(case["messages"], tools=case.get("tools"))
            try:
                expected[version] = tok.encode_chat_completion(request).text
            except Exception:  # noqa: BLE001 - any refusal is one
                expected[version] = None
        out.append({**case, "expected": expected})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
