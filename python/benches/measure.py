"""The README's Python figures, measured in one run (not a test: timings vary with load).

    (cd python && maturin develop --release --features pyo3/extension-module,bench)   # the hooks below
    python python/benches/measure.py [path/to/mentor-context]

1. `Assembler.assemble` over the Rust in-process call on the 50 x 2 KiB bench request
   (fixtures/bench-english.json, budget 4000): the Rust median from `mentor-context bench
   --json`, the Python medians from timeit; and, because load on a shared machine moves
   medians taken at different moments, the same three taken call by call in alternation in
   this process (the Rust call timed inside the extension, on results read once).
   In the same alternation, two floors of building the report as Python objects, with no
   reading and no assembly: `marshal.loads` and `json.loads` of the same report, serialized
   ahead. marshal is CPython's own binary reader of such objects, so what it takes is about
   the least any `assemble` returning this dict can add to the Rust call.
   Also in the same alternation (issue 34), the report built by `pythonize` instead of the
   extension's own writer (`pyser`): the whole call, and the building alone from a report
   read once; first checked to give the same dict as `json.loads(assemble_json(...))`.
2. `assemble_many` with 2 threads against 1, on 200 requests made from the bench request,
   alternated call by call, with the CPU time each took.
Prints the load average (`uptime`) before and after: on a shared machine it matters.
"""

import json
import marshal
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

import time

from mentor_context import Assembler
from mentor_context._native import _Report, _assemble_pythonize, _time_rust_assemble

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "fixtures" / "bench-english.json"
# Rounds of `assemble_many` with 1 thread and then 2.
MANY_ROUNDS = 40


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def rust_median_ns(cli: str) -> int:
    done = subprocess.run(
        [cli, "bench", "--json", "--budget", "4000", "--iterations", "300", str(BENCH)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout)["medianNs"]


def median_ns(call, repeat=300) -> float:
    return statistics.median(timeit.repeat(call, number=1, repeat=repeat)) * 1e9


def differences(want, got, path="$") -> list:
    """Where `got` is not `want`: types, key order, values, a float's exact value."""
    if type(want) is not type(got):
        return [f"{path}: {want!r:.40} against {got!r:.40}"]
    if isinstance(want, dict):
        found = [] if list(want) == list(got) else [f"{path}: keys {list(want)} against {list(got)}"]
        return found + [d for k in want if k in got for d in differences(want[k], got[k], f"{path}.{k}")]
    if isinstance(want, list):
        found = [] if len(want) == len(got) else [f"{path}: {len(want)} items against {len(got)}"]
        return found + [d for i, (w, g) in enumerate(zip(want, got)) for d in differences(w, g, f"{path}[{i}]")]
    return [] if repr(want) == repr(got) else [f"{path}: {want!r:.40} against {got!r:.40}"]


def main() -> None:
    cli = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "mentor-context")
    print(uptime())
    results = json.loads(BENCH.read_text())
    assembler = Assembler(4000)
    for _ in range(20):
        assembler.assemble(results)
    rounds = []
    for _ in range(5):
        rust = rust_median_ns(cli)
        py_dict = median_ns(lambda: assembler.assemble(results))
        py_json = median_ns(lambda: assembler.assemble_json(results))
        rounds.append((rust, py_dict, py_json))
        print(f"rust {rust / 1e3:8.1f} us  assemble {py_dict / 1e3:8.1f} us "
              f"({py_dict / rust - 1:+.1%})  assemble_json {py_json / 1e3:8.1f} us "
              f"({py_json / rust - 1:+.1%})")
    rust, py_dict, py_json = (statistics.median(r[i] for r in rounds) for i in range(3))
    print(f"median of rounds: rust {rust / 1e3:.1f} us, assemble {py_dict / 1e3:.1f} us "
          f"({py_dict / rust - 1:+.1%}), assemble_json {py_json / 1e3:.1f} us "
          f"({py_json / rust - 1:+.1%})")

    report_marshal = marshal.dumps(assembler.assemble(results))
    report_json = assembler.assemble_json(results)
    report = _Report(report_json)
    want = json.loads(report_json)
    for name, got in [("assemble", assembler.assemble(results)),
                      ("pythonize", _assemble_pythonize(assembler, results))]:
        found = differences(want, got)
        print(f"{name} against json.loads(assemble_json): {len(found)} difference(s)"
              + "".join(f"\n  {d}" for d in found[:3]))
    # Each timed in turn, call by call, so that all meet the same machine load.
    timed = {
        "assemble": lambda: assembler.assemble(results),
        "assemble_json": lambda: assembler.assemble_json(results),
        "marshal": lambda: marshal.loads(report_marshal),
        "json": lambda: json.loads(report_json),
        "assemble_pythonize": lambda: _assemble_pythonize(assembler, results),
        "build_pyser": report.pyser,
        "build_pythonize": report.pythonize,
    }
    rust_calls, calls = [], {name: [] for name in timed}
    for n in range(2000):
        rust_calls.append(_time_rust_assemble(assembler, results, 1)[0])
        # In reverse every other round: no call always follows the same one.
        for name, call in (timed.items() if n % 2 else reversed(timed.items())):
            start = time.perf_counter_ns()
            call()
            calls[name].append(time.perf_counter_ns() - start)
    rust = statistics.median(rust_calls)
    py_dict, py_json, floor_marshal, floor_json, py_pythonize, build_pyser, build_pythonize = (
        statistics.median(c) for c in calls.values())
    print(f"alternated, 2000 calls each: rust {rust / 1e3:.1f} us, assemble "
          f"{py_dict / 1e3:.1f} us ({py_dict / rust - 1:+.1%}), assemble_json "
          f"{py_json / 1e3:.1f} us ({py_json / rust - 1:+.1%})")
    print(f"building the same report alone: marshal.loads {floor_marshal / 1e3:.1f} us "
          f"({floor_marshal / rust:.1%} of the Rust call), json.loads "
          f"{floor_json / 1e3:.1f} us ({floor_json / rust:.1%})")
    # The figure node/benches/assemble.mjs gives for Node, for the table beside it.
    print(f"assemble / (rust + json.loads): {py_dict / (rust + floor_json):.3f}")
    # Issue 34: pyser stays only if pythonize is at least 1.15 times slower, whole or alone.
    for what, ours, theirs in [("assemble", "assemble", "assemble_pythonize"),
                               ("building the report alone", "build_pyser", "build_pythonize")]:
        paired = [t / o for o, t in zip(calls[ours], calls[theirs])]
        low, _, high = statistics.quantiles(paired, n=4)
        ours, theirs = statistics.median(calls[ours]), statistics.median(calls[theirs])
        print(f"{what}: pyser {ours / 1e3:.1f} us, pythonize {theirs / 1e3:.1f} us, "
              f"pythonize / pyser {theirs / ours:.3f} (call by call, quartiles {low:.3f} to "
              f"{high:.3f})")

    requests = [[dict(r, content=f"{i} {r['content']}") for r in results] for i in range(200)]
    # One call with 1 thread, then one with 2, per round: the speed-up of each round is taken
    # from two calls a fraction of a second apart, so the machine's swings mostly cancel.
    speedups, walls, cpus = [], {1: [], 2: []}, {1: [], 2: []}
    for _ in range(MANY_ROUNDS):
        wall = {}
        for threads in (1, 2):
            cpu, start = time.process_time(), time.perf_counter()
            assembler.assemble_many(requests, threads=threads)
            wall[threads] = time.perf_counter() - start
            walls[threads].append(wall[threads])
            cpus[threads].append(time.process_time() - cpu)
        speedups.append(wall[1] / wall[2])
    for threads in (1, 2):
        print(f"assemble_many 200 requests, {threads} thread(s): median wall "
              f"{statistics.median(walls[threads]) * 1e3:.0f} ms, CPU "
              f"{statistics.median(cpus[threads]) * 1e3:.0f} ms")
    low, median, high = statistics.quantiles(speedups, n=4)
    print(f"2 threads over 1, per round: median {median:.2f}x, quartiles {low:.2f}x to "
          f"{high:.2f}x ({MANY_ROUNDS} rounds)")
    print(uptime())


if __name__ == "__main__":
    main()
