"""The whole prompt's job done by its peers, timed with timeit, beside `benches/prompt.rs`.

    python benches/prompt_peers.py QWEN3_DIR target/prompt-job-qwen3.json

The job (written by `cargo bench --bench prompt`): a 20-turn conversation and a context,
fitted to 8,192 - 1,024 tokens by dropping the oldest turns. Two peers:

- transformers: `apply_chat_template(..., tokenize=False, add_generation_prompt=True)` and
  `encode`, dropping the oldest turn and trying again until the count fits (the exact way a
  caller does it with transformers alone);
- LangChain: `trim_messages(strategy="last", include_system=True, start_on="human")` with a
  tiktoken (o200k) counter, the context in the last message (not the model's count, and the
  template's own tokens are not counted).

Prints each peer's median time in milliseconds, for benches/README.md.
"""

import json
import sys
import timeit


def main():
    model_dir, job_path = sys.argv[1:3]
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    room = job["window"] - job["reserve"]
    conversation = job["conversation"]
    question = conversation[-1]
    last = dict(question, content=job["context"] + question["content"])
    messages = conversation[:-1] + [last]

    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)

    def transformers_fit():
        system, history = messages[:1], messages[1:-1]
        while True:
            prompt = tok.apply_chat_template(system + history + [last], tokenize=False, add_generation_prompt=True)
            count = len(tok.encode(prompt, add_special_tokens=False))
            if count <= room or not history:
                return count
            history = history[2:]

    import tiktoken
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_core.messages.utils import trim_messages

    enc = tiktoken.get_encoding("o200k_base")
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    lc_messages = [kinds[m["role"]](content=m["content"]) for m in messages]

    def counter(msgs):
        return sum(3 + len(enc.encode(m.content)) for m in msgs) + 3

    def langchain_fit():
        return trim_messages(lc_messages, max_tokens=room, token_counter=counter, strategy="last", include_system=True, start_on="human")

    for name, fn in [("transformers", transformers_fit), ("langchain", langchain_fit)]:
        fn()
        times = timeit.repeat(fn, number=1, repeat=20)
        times.sort()
        print(f"{name}: median {times[len(times) // 2] * 1000:.2f} ms over 20 runs")


if __name__ == "__main__":
    main()
