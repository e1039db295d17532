#!/usr/bin/env bash
# Writes the committed seeds of every target but `assemble` (which seed.sh writes into the
# ignored corpus) into fuzz/seeds/<target>/, from the fixtures. Run from anywhere; commit
# what it writes. Each seed is the target's control bytes (see its file's header and
# fuzz/README.md) followed by a fixture, so the seeds stay a few KB each.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$here/../fixtures"
seeds="$here/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{dialect_response,previous_report,answer_markers,wire_results,tokenizer_file,chat_template}

# dialect_response: byte 0 the dialect (+ 0x08 entries, 0x10 contents), byte 1 the chunking.
dialects=(anthropic anthropic-documents bedrock cohere mistral)
for i in "${!dialects[@]}"; do
  d="${dialects[$i]}"
  for kind in json jsonl sse; do
    file="$fixtures/responses/$d.$kind"
    [ -f "$file" ] || continue
    case "$kind" in json) control=$((i | 0x18)) seed=7 ;; jsonl) control=$((i | 0x08)) seed=1 ;; sse) control=$i seed=200 ;; esac
    { printf "\\x$(printf %02x "$control")\\x$(printf %02x "$seed")"; cat "$file"; } > "$seeds/dialect_response/$d-$kind"
  done
done

# previous_report: byte 0 the options; with bit 3, a change at a position to a byte.
for options in 0 1 2 3 5 6; do
  printf "\\x$(printf %02x $((options | 8)))\\x10\\x00\\x20\\x00" > "$seeds/previous_report/change-$options-ws"
  printf "\\x$(printf %02x $((options | 8)))\\x40\\x01\\x37\\x01" > "$seeds/previous_report/change-$options-turn2"
  printf "\\x$(printf %02x $((options | 8)))\\x05\\x00\\x7d\\x02" > "$seeds/previous_report/change-$options-pretty"
done
# A report written by hand, as a client would send one back.
printf '\x00%s' '{"context":"[1] Subscription plans and prices\nsource: https://help.quillstack.example/billing/price-list\n```\nStarter costs 9 EUR.\n```\n","tokenCount":27,"budget":600,"encoding":"o200k_base","citations":[{"index":1,"sourceUrl":"https://help.quillstack.example/billing/price-list","title":"Subscription plans and prices","score":0.92,"truncated":false,"inputIndex":0,"fingerprint":"0000000000000000"}],"omitted":[]}' > "$seeds/previous_report/by-hand"

# answer_markers: byte 0 the options, byte 1 the chunking, then an answer.
answers=(
  "$(cat "$fixtures/answer.txt")"
  'Plan A is free [2]; Plan B costs 12 EUR [1][2]. See `x[1]` and [7], [1, 3-4], [2–3], ［3］.'
  'Ranges [1-1000] [0] [999999999] [4-2] [1,1] array[2] \[1] [1](https://x.example) [see][1].'
  $'```\n[1]\n```\nafter the fence [3] and `[2` open code\n\n[5] 価格は12ユーロです[1]'
)
for i in "${!answers[@]}"; do
  printf "\\x$(printf %02x $((i * 3)))\\x$(printf %02x $((i * 37 + 5)))%s" "${answers[$i]}" > "$seeds/answer_markers/answer-$i"
done

# wire_results: the .NET fixtures and the small fixtures as they are.
for file in "$fixtures"/dotnet/*.json "$fixtures"/dotnet/*.jsonl "$fixtures"/duplicates.json "$fixtures"/hostile-heads.json "$fixtures"/conversation/*.json; do
  cp "$file" "$seeds/wire_results/$(basename "$(dirname "$file")")-$(basename "$file")"
done

# tokenizer_file: a small Tekken file (the 256 bytes, a few merges), with the published pattern
# and with another, and the sample text chosen by byte 0.
python3 - "$seeds/tokenizer_file" <<'PY'
import base64, json, sys
out = sys.argv[1]
pattern = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
merges = [b"th", b"e ", b"the", b" c", b"os", b"ts", b"EU", b"EUR", b"\xc3\xa9"]
vocab = [bytes([b]) for b in range(256)] + merges
for name, pat in [("tekken", pattern), ("tekken-words", r"\S+|\s+")]:
    data = {"config": {"pattern": pat, "default_vocab_size": len(vocab) + 3,
                       "default_num_special_tokens": 3, "version": "v3"},
            "vocab": [{"rank": i, "token_bytes": base64.b64encode(t).decode()} for i, t in enumerate(vocab)]}
    with open(f"{out}/{name}", "wb") as f:
        f.write(b"\x00" + json.dumps(data, separators=(",", ":")).encode())
PY

# chat_template: byte 0 the options, then a Jinja template.
templates=(
  "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
  "{{ bos_token }}{% for m in messages %}{% if m.role == 'user' %}[INST] {{ m.content | trim }} [/INST]{% else %}{{ m.content }}{{ eos_token }}{% endif %}{% endfor %}"
  "{% for d in documents %}{{ d | tojson }}{% endfor %}{% for m in messages %}{{ m.role | upper }}: {{ m.content.split(' ') | join('_') }}{% endfor %}"
  "{% set ns = namespace(x=0) %}{% for i in range(100) %}{% set ns.x = ns.x + i %}{% endfor %}{{ ns.x }}{{ raise_exception('no') if ns.x < 0 }}"
)
for i in "${!templates[@]}"; do
  printf "\\x$(printf %02x "$i")%s" "${templates[$i]}" > "$seeds/chat_template/template-$i"
done
echo "seed_targets.sh: $(find "$seeds" -type f | wc -l) files, $(du -sh "$seeds" | cut -f1) in $seeds"
