"""Assemble a JSON Lines file of requests on Ray Data: the `mentor-context batch` of a cluster.

    python ray_batch.py REQUESTS.jsonl OUT.jsonl [--budget 4000] [--format plain] ...
        [--address ADDRESS] [--num-cpus N]

Each line of REQUESTS is an object {"id": <any JSON>, "results": [...], "budget": N} ("id" and
"budget" may be left out), as `mentor-context batch` reads it. Each request gives one line of
OUT: `{"id": ..., <the assemble --json report>}`, or `{"id": ..., "error": "..."}` when its
results are bad. That is the line `mentor-context batch` writes, less its "line" key: Ray reads
the file in blocks and does not know line numbers. Lines come out in the order Ray finishes
them, not the input's.

Without --address, Ray starts on this machine with --num-cpus CPUs. On a cluster, pass its
address (`--address auto` on a node of the cluster, or `ray://HEAD:10001` from outside); the
rest is the same. REQUESTS must then be a path every node can read (shared storage, `s3://`).

What `ray.data.read_json(..., lines=True)` cannot keep, and so this script cannot either
(pandas reads the lines): a line that is a bare JSON array (not an object), or that is not JSON
(the whole read fails, where `batch` reports the line and goes on); ids that are numeric
strings ("12" comes back as 12), and whole-number ids beside lines without an id (3 as 3.0).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

import ray

from mentor_context import Assembler, MentorContextError


def plain(value: Any) -> Any:
    """A value of a pandas column as plain Python: numpy scalars unwrapped, and the NaN that
    pandas puts where a line had no such key as None."""
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


class AssembleRequests:
    """The `map_batches` worker. Ray builds one per worker process, so the Assembler (and the
    encoding's tables, a few hundred ms to load) is built once per worker, not per batch."""

    def __init__(self, options: dict[str, Any]):
        self.assembler = Assembler(**options)
        # Assemblers for budgets that lines set, as `batch` keeps them.
        self.by_budget: dict[int, Assembler] = {self.assembler.budget: self.assembler}

    def assembler_for(self, budget: int | None) -> Assembler:
        if budget is None:
            return self.assembler
        if budget not in self.by_budget:
            if len(self.by_budget) >= 64:
                self.by_budget = {self.assembler.budget: self.assembler}
            self.by_budget[budget] = self.assembler.with_budget(budget)
        return self.by_budget[budget]

    def __call__(self, batch):
        """A pandas DataFrame of requests (columns id, results, budget) into a column of
        report lines. pandas keeps each row's results as the Python lists and dicts read
        from the JSON; Arrow would widen every metadata dict to the union of all keys."""
        rows = len(batch)
        ids = batch["id"] if "id" in batch else [None] * rows
        budgets = batch["budget"] if "budget" in batch else [None] * rows
        lines = []
        for id_, results, budget in zip(ids, batch["results"], budgets):
            id_, budget = plain(id_), plain(budget)
            head = "{" if id_ is None else '{"id":' + json.dumps(id_, ensure_ascii=False) + ","
            try:
                assembler = self.assembler_for(None if budget is None else int(budget))
                report = assembler.assemble_json(plain(results))
            except (MentorContextError, TypeError) as err:
                lines.append(head + '"error":' + json.dumps(str(err), ensure_ascii=False) + "}")
            else:
                # The report is the library's JSON; the id goes first, as `batch` puts it.
                lines.append(head + report[1:])
        return {"line": lines}


def assemble_file(requests: str, out: str, options: dict[str, Any], workers: int) -> int:
    """Assembles every request of `requests` into `out`; returns how many lines it wrote.
    Ray must be initialised."""
    dataset = ray.data.read_json(requests, lines=True)
    reports = dataset.map_batches(
        AssembleRequests,
        fn_constructor_args=(options,),
        # Up to one worker per CPU, each assembling on one thread. From one, not all: the
        # read tasks need a CPU too, and workers holding every CPU from the start would wait
        # for input that cannot be read (Ray reserves a pool's minimum up front).
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=workers),
        batch_format="pandas",
        batch_size=32,
    )
    written = 0
    with open(out, "w", encoding="utf-8") as f:
        # The lines stream back to this process as blocks finish; memory holds a few blocks.
        for batch in reports.iter_batches(batch_format="pandas", batch_size=None):
            for line in batch["line"]:
                f.write(line + "\n")
                written += 1
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("requests")
    parser.add_argument("out")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--encoding")
    parser.add_argument("--format")
    parser.add_argument("--overflow")
    parser.add_argument("--address", help="a running cluster's address; default: start locally")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of a local start")
    parser.add_argument("--workers", type=int, help="assembling workers [default: all CPUs]")
    args = parser.parse_args(argv)
    options = {k: v for k, v in {"budget": args.budget, "encoding": args.encoding,
                                 "format": args.format, "overflow": args.overflow}.items()
               if v is not None}
    start = time.perf_counter()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    started = time.perf_counter()
    workers = args.workers or int(ray.cluster_resources().get("CPU", 1))
    written = assemble_file(args.requests, args.out, options, workers)
    done = time.perf_counter()
    print(
        f"ray_batch: {written} requests on {workers} workers in {done - started:.2f} s "
        f"({written / (done - started):.0f} requests/s; Ray start-up {started - start:.2f} s)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
