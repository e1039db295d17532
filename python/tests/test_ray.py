"""The Ray Data example gives what `mentor-context batch` gives on the same file.

Runs examples/ray_batch.py as a user would, on a local Ray with 2 CPUs, over a few hundred
requests made by benches/generate_batch.py (some with a budget of their own, some with string
ids; every tenth repeats an earlier line), and compares the output with `batch`'s line for
line, ignoring order: Ray does not keep it.
"""

import json
import subprocess
import sys
import time
from collections import Counter

import pytest
from conftest import ROOT, run_cli

pytest.importorskip("ray")

REQUESTS = 300
BUDGET = 1500


def write_requests(path):
    subprocess.run(
        [sys.executable, str(ROOT / "benches" / "generate_batch.py"), str(REQUESTS), str(path)],
        check=True,
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    varied = []
    for n, line in enumerate(lines):
        request = json.loads(line)
        if n % 7 == 3:
            request["budget"] = 300 + n
        if n % 5 == 1:
            request["id"] = f"q-{request['id']}"
        varied.append(json.dumps(request, ensure_ascii=False))
    path.write_text("\n".join(varied) + "\n", encoding="utf-8")


def without_line_number(line):
    """`batch`'s line less its `"line":N,` (its first key): the rest is byte for byte what
    the Ray script writes."""
    head, rest = line.split(",", 1)
    assert head.startswith('{"line":'), head
    return "{" + rest


def test_ray_output_equals_batch_on_the_same_file(cli, tmp_path):
    requests = tmp_path / "requests.jsonl"
    write_requests(requests)
    done = run_cli(cli, "batch", "--budget", str(BUDGET), str(requests))
    assert done.returncode == 0, done.stderr
    expected = [without_line_number(line) for line in done.stdout.splitlines()]
    assert len(expected) == REQUESTS

    out = tmp_path / "out.jsonl"
    start = time.perf_counter()
    ran = subprocess.run(
        [sys.executable, str(ROOT / "python" / "examples" / "ray_batch.py"), str(requests),
         str(out), "--budget", str(BUDGET), "--num-cpus", "2"],
        capture_output=True, text=True, check=False,
    )
    wall = time.perf_counter() - start
    assert ran.returncode == 0, ran.stderr[-3000:]
    got = out.read_text(encoding="utf-8").splitlines()
    assert Counter(got) == Counter(expected)
    # Some lines had a budget of their own and kept to it.
    budgets = Counter(json.loads(line)["budget"] for line in got)
    assert len(budgets) > 10 and budgets[BUDGET] > REQUESTS // 2
    summary = [line for line in ran.stderr.splitlines() if line.startswith("ray_batch:")]
    print(f"\n{summary[-1] if summary else ''}; test wall time {wall:.1f} s")
