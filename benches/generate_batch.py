#!/usr/bin/env python3
"""Writes a JSON Lines batch of bench-kind requests for `mentor-context batch`.

Each line is {"id": n, "results": [...]}: the 50 results of about 2 KiB of
fixtures/bench-<name>.json with their scores redrawn and every content prefixed with the
request's number, so that requests differ; every tenth line repeats an earlier one exactly,
as a benchmark with repeated questions would. 10,000 lines are about 1 GB: write them outside
the repository.

    python3 benches/generate_batch.py 10000 /tmp/batch-10k.jsonl [english|multilingual]
"""

import json
import random
import sys
from pathlib import Path


def main() -> None:
    lines, out = int(sys.argv[1]), Path(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else "english"
    root = Path(__file__).resolve().parent.parent
    results = json.loads((root / "fixtures" / f"bench-{name}.json").read_text())
    rng = random.Random(10)
    written = []
    with out.open("w", encoding="utf-8") as f:
        for n in range(lines):
            if n % 10 == 9:
                line = written[rng.randrange(len(written))]
            else:
                request = []
                for r in results:
                    r = dict(r)
                    r["content"] = f"Request {n}. {r['content']}"
                    r["score"] = round(rng.random(), 4)
                    request.append(r)
                line = json.dumps({"id": n, "results": request}, ensure_ascii=False)
                # Remember a few for repeats, not all: memory stays small.
                if len(written) < 100:
                    written.append(line)
                else:
                    written[rng.randrange(100)] = line
            f.write(line + "\n")


if __name__ == "__main__":
    main()
