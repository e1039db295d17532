"""The reference token ids for tests/library/open_models.rs, from the model owners' own code.

    python count_tokens.py huggingface|tekken TOKENIZER_FILE CASES_JSON OUT_JSON

CASES_JSON is a JSON array of strings; OUT_JSON gets, for each, the list of its token ids,
encoded as ordinary text: the `tokenizers` package with `encode_special_tokens = True` and
no special tokens added, or mistral-common's Tekkenizer without BOS/EOS, its ids less the
number of special tokens (tiktoken's ranks). One process for every case of a tokenizer.
"""

import json
import sys


def main() -> None:
    kind, model, cases_path, out_path = sys.argv[1:5]
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    if kind == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tok = Tekkenizer.from_file(model)
        shift = tok.num_special_tokens
        ids = [[t - shift for t in tok.encode(c, bos=False, eos=False)] for c in cases]
    elif kind == "huggingface":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(model)
        tok.encode_special_tokens = True
        tok.no_truncation()
        tok.no_padding()
        ids = [e.ids for e in tok.encode_batch(cases, add_special_tokens=False)]
    else:
        raise SystemExit(f"unknown kind {kind!r}: expected huggingface or tekken")
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(ids, f)


if __name__ == "__main__":
    main()
