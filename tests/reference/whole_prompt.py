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
- "harmony": openai-harmony's `render_conversation_for_completion` (TIKTOKEN_ENCODINGS_BASE
  must name a folder with o200k_base.tiktoken);
- "openai:ENCODING": the OpenAI cookbook's `num_tokens_from_messages` with tiktoken (3 per
  message, 1 per name, 3 priming the reply);
- "mistral:FILE": mistral-common's `encode_chat_completion` with the Tekken file, whose
  `version` (v3, v7, v11, v13) chooses the instruct format; its out also has "version", the
  version mistral-common read.

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


def harmony(case):
    import tiktoken
    from openai_harmony import (
        Conversation, DeveloperContent, HarmonyEncodingName, Message, Role, SystemContent,
        load_harmony_encoding,
    )

    enc = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
    messages = [Message.from_role_and_content(Role.SYSTEM, SystemContent.new().with_conversation_start_date(case["date"]))]
    for i, m in enumerate(case["messages"]):
        if i == 0 and m["role"] in ("system", "developer"):
            messages.append(Message.from_role_and_content(Role.DEVELOPER, DeveloperContent.new().with_instructions(m["content"])))
        elif m["role"] == "user":
            messages.append(Message.from_role_and_content(Role.USER, m["content"]))
        elif m["role"] == "assistant":
            messages.append(Message.from_role_and_content(Role.ASSISTANT, m["content"]).with_channel("final"))
        else:
            raise SystemExit(f"harmony case with role {m['role']!r}")
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
    return {"prompt": prompt, "count": len(tokens), "controls_in_context": found}


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
    return {"prompt": None, "count": count, "controls_in_context": 0}


def mistral(case, path):
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    tok = _hf.get(path)
    if tok is None:
        tok = _hf[path] = MistralTokenizer.from_file(path)
    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    messages = [kinds[m["role"]](content=m["content"]) for m in case["messages"]]
    result = tok.encode_chat_completion(ChatCompletionRequest(messages=messages))
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
