"""The reference prompts and counts for tests/library/whole_prompt/reference.rs, from the
model owners' own code.

    python whole_prompt.py CASES_JSON OUT_JSON

CASES_JSON is a JSON array of cases, each {"template", "messages", "documents", "tools",
"date", "context"} and, for "hf:" cases, an optional "template_options" object; OUT_JSON gets, for each, {"prompt", "count", "controls_in_context"}:

- "hf:DIR": transformers' AutoTokenizer from DIR (tokenizer.json and tokenizer_config.json),
  `apply_chat_template(messages, documents=..., tools=..., tokenize=False,
  add_generation_prompt=True, **template_options)` (tools as given: the list of dicts,
  untouched; the template options as keyword arguments, as a caller passes enable_thinking)
  with `strftime_now` pinned to the date, counted by `encode(prompt, add_special_tokens=False)`
  (special tokens parsed, as a server tokenizes a prompt);
- "harmony": the messages vLLM's chat endpoint makes of the request (its mapping written out
  in `_vllm_harmony_messages`, with the case's "tools" and "reasoning_effort"), rendered by
  openai-harmony's `render_conversation_for_completion` (TIKTOKEN_ENCODINGS_BASE must name a
  folder with o200k_base.tiktoken); its out also has "controls_in_tools", the Harmony tokens
  inside tool results and calls' arguments;
- "openai:ENCODING": the OpenAI cookbook's `num_tokens_from_messages` with tiktoken (3 per
  message, 1 per name, 3 priming the reply), and its `num_tokens_for_tools` for the tools
  (gpt-4o's constants for o200k_base, gpt-4's for cl100k_base);
- "mistral:FILE": mistral-common's `encode_chat_completion(ChatCompletionRequest.from_openai(
  messages, tools=...))` with the Tekken file, whose `version` (v3, v7, v11, v13) chooses the
  instruct format; its out also has "version", the version mistral-common read.

"controls_in_context" counts the control tokens (special or template-written added tokens,
or Harmony's specials) that a tokenizer parsing them finds inside the context's span of the
prompt: the neutralizer's job is to keep it 0.
"""

import datetime
import json
import os
import sys

_hf = {}


def hf(case, directory):
    from transformers import AutoTokenizer
    from transformers.utils import chat_template_utils as ctu

    tok = _hf.get(directory)
    if tok is None:
        tok = _hf[directory] = AutoTokenizer.from_pretrained(directory)
    date = datetime.date.fromisoformat(case["date"])
    env = ctu._compile_jinja_template(tok.chat_template).environment
    env.globals["strftime_now"] = lambda fmt: datetime.datetime(date.year, date.month, date.day).strftime(fmt)
    kwargs = {}
    if case.get("documents") is not None:
        kwargs["documents"] = case["documents"]
    if case.get("tools") is not None:
        kwargs["tools"] = case["tools"]
    kwargs.update(case.get("template_options") or {})
    prompt = tok.apply_chat_template(case["messages"], tokenize=False, add_generation_prompt=True, **kwargs)
    enc = tok(prompt, add_special_tokens=False, return_offsets_mapping=True)
    ids = enc["input_ids"]
    control = set(tok.all_special_ids)
    for token, token_id in tok.added_tokens_encoder.items():
        if token in tok.chat_template and not token.isspace():
            control.add(token_id)
    starts = [s for s, _ in enc["offset_mapping"]]
    ends = [e for _, e in enc["offset_mapping"]]
    found = _inside(case, prompt, ids, starts, ends, control)
    return {"prompt": prompt, "count": len(ids), "controls_in_context": found}


def _tiktoken_offline():
    """tiktoken's encodings from the files in TIKTOKEN_ENCODINGS_BASE (tiktoken-rs ships them),
    through tiktoken's own cache, which is keyed by the SHA-1 of the download address."""
    import hashlib
    import shutil
    import tempfile

    base = os.environ["TIKTOKEN_ENCODINGS_BASE"]
    cache = tempfile.mkdtemp(prefix="tiktoken-cache-")
    for name in ("o200k_base", "cl100k_base"):
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        shutil.copy(os.path.join(base, f"{name}.tiktoken"), os.path.join(cache, hashlib.sha1(url.encode()).hexdigest()))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache


def _inside(case, prompt, ids, starts, ends, control):
    """The control tokens whose text overlaps the context's span of the prompt."""
    context = case.get("context") or ""
    at = prompt.find(context) if context else -1
    if at < 0:
        return 0
    return sum(1 for i, s, e in zip(ids, starts, ends) if i in control and s < at + len(context) and e > at)


def _vllm_harmony_messages(case):
    """The Harmony messages vLLM's chat endpoint makes of a request, written out from
    vllm/entrypoints/openai/parser/harmony_utils.py (`extract_instructions_from_messages`,
    `build_harmony_preamble`, `get_system_message`, `get_developer_message`,
    `create_tool_definition`, `parse_chat_inputs_to_harmony_messages` and
    `parse_chat_input_to_harmony_message`, `auto_drop_analysis_messages`), which need vLLM
    itself to import. A call's `arguments` given as an object (vLLM takes a string only) is
    written as compact JSON, its keys in their order."""
    from openai_harmony import (
        Author, DeveloperContent, Message, ReasoningEffort, Role, SystemContent, TextContent,
        ToolDescription,
    )

    def flatten(content):
        if content is None or isinstance(content, str):
            return content
        if not isinstance(content, list):
            return None
        texts = [item if isinstance(item, str) else item.get("text") for item in content]
        texts = [t for t in texts if t is not None]
        return "".join(texts) if texts else None

    chat = list(case["messages"])
    instructions = None
    if chat and chat[0].get("role") in ("system", "developer"):
        instructions = flatten(chat[0].get("content"))
        chat = chat[1:]
    tools = case.get("tools")
    # get_system_message: SystemContent.new() (reasoning medium) unless an effort is given.
    system = SystemContent.new()
    effort = case.get("reasoning_effort")
    if effort is not None:
        system = system.with_reasoning_effort(
            {"low": ReasoningEffort.LOW, "medium": ReasoningEffort.MEDIUM, "high": ReasoningEffort.HIGH}[effort]
        )
    system = system.with_conversation_start_date(case["date"])
    messages = [Message.from_role_and_content(Role.SYSTEM, system)]
    # build_harmony_preamble: a developer message for instructions or tools.
    if instructions or tools:
        developer = DeveloperContent.new()
        if instructions is not None:
            developer = developer.with_instructions(instructions)
        functions = [t for t in tools or [] if t["type"] == "function"]
        if functions:
            developer = developer.with_function_tools([
                ToolDescription.new(
                    name=t["function"]["name"],
                    description=t["function"].get("description") or "",
                    parameters=t["function"].get("parameters"),
                )
                for t in functions
            ])
        messages.append(Message.from_role_and_content(Role.DEVELOPER, developer))
    # parse_chat_inputs_to_harmony_messages
    names = {}
    for m in chat:
        for call in m.get("tool_calls") or []:
            names[call.get("id")] = call.get("function", {}).get("name")
    converted = []
    for m in chat:
        role = m.get("role")
        calls = m.get("tool_calls") or []
        if role == "assistant" and calls:
            content = flatten(m.get("content"))
            if content:
                converted.append(Message.from_role_and_content(Role.ASSISTANT, content).with_channel("commentary"))
            if m.get("reasoning"):
                converted.append(Message.from_role_and_content(Role.ASSISTANT, m["reasoning"]).with_channel("analysis"))
            for call in calls:
                func = call.get("function", {})
                arguments = func.get("arguments", "") or ""
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
                converted.append(
                    Message.from_role_and_content(Role.ASSISTANT, arguments)
                    .with_channel("commentary")
                    .with_recipient(f"functions.{func.get('name', '')}")
                    .with_content_type("json")
                )
            continue
        if role == "tool":
            name = names.get(m.get("tool_call_id", ""), "")
            content = flatten(m.get("content")) or ""
            converted.append(
                Message.from_author_and_content(Author.new(Role.TOOL, f"functions.{name}"), content)
                .with_channel("commentary")
                .with_recipient("assistant")
            )
            continue
        if role == "assistant" and m.get("reasoning"):
            converted.append(Message.from_role_and_content(Role.ASSISTANT, m["reasoning"]).with_channel("analysis"))
        content = m.get("content") or ""
        if isinstance(content, str):
            contents = [TextContent(text=content)]
        else:
            contents = [TextContent(text=c.get("text", "")) for c in content]
        if role == "assistant" and contents and contents[0].text:
            converted.append(Message.from_role_and_contents(role, contents).with_channel("final"))
        elif role != "assistant":
            converted.append(Message.from_role_and_contents(role, contents))
    # auto_drop_analysis_messages
    last_final = -1
    for i in range(len(converted) - 1, -1, -1):
        if converted[i].author.role == "assistant" and converted[i].channel == "final":
            last_final = i
            break
    converted = [m for i, m in enumerate(converted) if not (i < last_final and m.channel == "analysis")]
    return messages + converted


def harmony(case):
    import tiktoken
    from openai_harmony import Conversation, HarmonyEncodingName, Role, load_harmony_encoding

    enc = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
    messages = _vllm_harmony_messages(case)
    tokens = enc.render_conversation_for_completion(Conversation.from_messages(messages), Role.ASSISTANT)
    prompt = enc.decode_utf8(tokens)
    # Where each token lies in the text: o200k with Harmony's special tokens, parsed.
    o200k = tiktoken.get_encoding("o200k_base")
    specials = {t: enc.encode(t, allowed_special="all")[0] for t in enc.special_tokens_set}
    parsing = tiktoken.Encoding(
        name="o200k_harmony", pat_str=o200k._pat_str, mergeable_ranks=o200k._mergeable_ranks, special_tokens=specials
    )
    ids = parsing.encode(prompt, allowed_special="all")
    _, starts = parsing.decode_with_offsets(ids)
    ends = starts[1:] + [len(prompt)]
    found = _inside(case, prompt, ids, starts, ends, set(specials.values()))
    # Harmony's own tokens, written by the template, in the untrusted parts: the tool results'
    # and the calls' arguments; a control token there would be one the caller smuggled.
    smuggled = sum(
        1
        for m in messages
        if m.author.role == Role.TOOL or m.recipient not in (None, "assistant")
        for c in m.content
        for t in specials
        if t in getattr(c, "text", "")
    )
    return {"prompt": prompt, "count": len(tokens), "controls_in_context": found, "controls_in_tools": smuggled}


def openai(case, encoding):
    import tiktoken

    enc = tiktoken.get_encoding(encoding)
    # The cookbook's num_tokens_from_messages, for gpt-4o and later: `encode` refuses
    # special tokens, so a string holding one would fail here.
    tokens_per_message, tokens_per_name = 3, 1
    count = 0
    for message in case["messages"]:
        count += tokens_per_message
        for key, value in message.items():
            count += len(enc.encode(value))
            if key == "name":
                count += tokens_per_name
    count += 3
    if case.get("tools") is not None:
        count += _num_tokens_for_tools(case["tools"], enc, {"o200k_base": "gpt-4o", "cl100k_base": "gpt-4"}[encoding])
    return {"prompt": None, "count": count, "controls_in_context": 0}


def _num_tokens_for_tools(functions, encoding, model):
    """The tools' part of the OpenAI cookbook's `num_tokens_for_tools` ("How to count tokens
    with tiktoken", section 7: examples/How_to_count_tokens_with_tiktoken.ipynb in
    openai/openai-cookbook), as written there, but for what it leaves undefined (it raises
    KeyError): a missing description or type counts as empty, missing parameters or
    properties as none, a type or enum item that is not a string as its JSON."""
    if model in ["gpt-4o", "gpt-4o-mini"]:
        func_init, prop_init, prop_key, enum_init, enum_item, func_end = 7, 3, 3, -3, 3, 12
    elif model in ["gpt-3.5-turbo", "gpt-4"]:
        func_init, prop_init, prop_key, enum_init, enum_item, func_end = 10, 3, 3, -3, 3, 12
    else:
        raise NotImplementedError(f"num_tokens_for_tools() is not implemented for model {model}.")

    def text(value):
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    func_token_count = 0
    if len(functions) > 0:
        for f in functions:
            func_token_count += func_init
            function = f["function"]
            f_name = function["name"]
            f_desc = text(function.get("description"))
            if f_desc.endswith("."):
                f_desc = f_desc[:-1]
            line = f_name + ":" + f_desc
            func_token_count += len(encoding.encode(line))
            properties = (function.get("parameters") or {}).get("properties") or {}
            if len(properties) > 0:
                func_token_count += prop_init
                for key in list(properties.keys()):
                    func_token_count += prop_key
                    p_name = key
                    p_type = text(properties[key].get("type"))
                    p_desc = text(properties[key].get("description"))
                    if "enum" in properties[key].keys():
                        func_token_count += enum_init
                        for item in properties[key]["enum"]:
                            func_token_count += enum_item
                            func_token_count += len(encoding.encode(text(item)))
                    if p_desc.endswith("."):
                        p_desc = p_desc[:-1]
                    line = f"{p_name}:{p_type}:{p_desc}"
                    func_token_count += len(encoding.encode(line))
        func_token_count += func_end
    return func_token_count


def mistral(case, path):
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    tok = _hf.get(path)
    if tok is None:
        tok = _hf[path] = MistralTokenizer.from_file(path)
    # The OpenAI-shaped messages and tools as a server hands them over: tool calls (arguments
    # as a JSON string or an object), tool results and the tool definitions read by
    # mistral-common's own converters.
    request = ChatCompletionRequest.from_openai(case["messages"], tools=case.get("tools"))
    result = tok.encode_chat_completion(request)
    # The version mistral-common read from the file, which chose its instruct tokenizer.
    version = tok.instruct_tokenizer.tokenizer.version.value
    return {"prompt": result.text, "count": len(result.tokens), "controls_in_context": 0, "version": version}


def main():
    cases_path, out_path = sys.argv[1:3]
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    if "TIKTOKEN_ENCODINGS_BASE" in os.environ:
        _tiktoken_offline()
    out = []
    for case in cases:
        kind, _, arg = case["template"].partition(":")
        if kind == "hf":
            out.append(hf(case, arg))
        elif kind == "harmony":
            out.append(harmony(case))
        elif kind == "openai":
            out.append(openai(case, arg))
        elif kind == "mistral":
            out.append(mistral(case, arg))
        else:
            raise SystemExit(f"unknown template {case['template']!r}")
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
