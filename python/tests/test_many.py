"""`assemble_many` is a loop of `assemble`, in parallel, with the GIL released."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import FIXTURES

from mentor_context import Assembler, MentorContextError

BENCH = json.loads((FIXTURES / "bench-english.json").read_text())


def requests(n):
    """`n` different requests: the bench results, each content prefixed with its number."""
    return [
        [dict(r, content=f"Request {i}. {r['content']}", score=(r["score"] * (i + 3)) % 1)
         for r in BENCH[: 10 + i % 40]]
        for i in range(n)
    ]


@pytest.mark.parametrize("threads", [None, 1, 2, 3])
def test_many_equals_a_loop_of_one_at_a_time_in_order(threads):
    assembler = Assembler(600, cache_bytes=1 << 20)
    batch = requests(24)
    many = assembler.assemble_many(batch, threads=threads)
    assert many == [assembler.assemble(r) for r in batch]
    assert [m["citations"][0]["inputIndex"] for m in many] == [
        assembler.assemble(r)["citations"][0]["inputIndex"] for r in batch
    ]


def test_many_of_nothing_is_nothing():
    assert Assembler(10).assemble_many([]) == []


def test_a_bad_request_is_named_by_its_place():
    batch = requests(3)
    batch[2][5] = {"score": 1}
    with pytest.raises(MentorContextError, match=r"^requests\[2\]: results\[5\]: missing field"):
        Assembler(100).assemble_many(batch)
    with pytest.raises(TypeError, match=r"^requests\[1\]: results: expected a list"):
        Assembler(100).assemble_many([[], "oops"])
    with pytest.raises(MentorContextError, match="threads: 0; expected at least 1"):
        Assembler(100).assemble_many([], threads=0)
    with pytest.raises(MentorContextError,
                       match=r"threads: 100000; expected at least 1 and at most \d+ here \(8 per core\)"):
        Assembler(100).assemble_many([], threads=100_000)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_a_bad_request_late_in_a_long_batch_stops_it_whatever_the_threads(threads):
    # Earlier requests are queued or being assembled on other threads when the bad one is
    # read: the call still raises, naming it, and returns.
    batch = requests(40)
    batch[33] = [{"content": "x", "score": "high"}]
    with pytest.raises(MentorContextError, match=r"^requests\[33\]: results\[0\]: "):
        Assembler(300).assemble_many(batch, threads=threads)


def test_any_iterable_of_requests_is_read_and_its_own_error_passes_through():
    assembler = Assembler(300)
    batch = requests(12)
    assert assembler.assemble_many(iter(batch), threads=2) == assembler.assemble_many(batch)

    def broken():
        yield batch[0]
        raise KeyError("the source went away")

    with pytest.raises(KeyError, match="the source went away"):
        assembler.assemble_many(broken(), threads=2)


def ran_while(call):
    """Runs `call` while a second Python thread records the times it gets to run, and
    returns (the call's start and end, the times the other thread ran)."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    other = threading.Thread(target=tick)
    other.start()
    time.sleep(0.05)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    other.join()
    return start, end, ticks


def big_request():
    """One request that takes some 100 ms or more to assemble: about 4 MB to tokenize."""
    return [dict(r, content=f"{i} {r['content']}") for i in range(40) for r in BENCH]


@pytest.mark.parametrize("many", [False, True])
def test_another_python_thread_runs_while_assembling(many):
    # Were the GIL held, the other thread could run only at the edges of the call (Python
    # switches threads between bytecodes, never inside a call into Rust); it must run in
    # the middle half too.
    assembler = Assembler(10_000_000)
    request = big_request()
    call = (lambda: assembler.assemble_many([request, request])) if many else (
        lambda: assembler.assemble(request))
    start, end, ticks = ran_while(call)
    quarter = (end - start) / 4
    assert end - start > 0.05, "the call is too short to tell"
    middle = [t for t in ticks if start + quarter < t < end - quarter]
    assert len(middle) >= 3, (end - start, len(ticks))


UNDER_A_THREAD_LIMIT = r"""
import os, resource, sys
from mentor_context import Assembler, MentorContextError

assembler = Assembler(300)
requests = [[{"content": f"hello {i}", "score": 1}] for i in range(10)]
expected = [assembler.assemble(r) for r in requests]
# As the user nobody, with TASKS processes and threads in all (RLIMIT_NPROC, which the
# kernel enforces only for users other than root): a system that refuses threads, as a
# container's pids.max does. The package is loaded already; nothing more is read from disk.
resource.setrlimit(resource.RLIMIT_NPROC, (TASKS, TASKS))
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
try:
    got = assembler.assemble_many(REQUESTS, threads=THREADS)
except MentorContextError as err:
    print("refused:", err)
    sys.exit(0)
print("assembled", len(got), "the same" if got == expected[:len(got)] else "differently")
"""


def run_under_a_thread_limit(requests, threads, tasks=4):
    if os.geteuid() != 0:
        pytest.skip("running as another user needs root")
    script = (UNDER_A_THREAD_LIMIT.replace("REQUESTS", requests)
              .replace("THREADS", str(threads)).replace("TASKS", str(tasks)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout


def test_threads_that_cannot_start_are_an_error_not_a_hang():
    # Threads already started must stop and the call must raise, not wait for them forever
    # with the GIL held. A generator has no length, so all 8 are asked for; 3 can start.
    out = run_under_a_thread_limit("iter(requests)", 8)
    assert out.startswith("refused: threads: cannot start 8 threads (started "), out
    assert "Resource temporarily unavailable" in out, out


def test_a_list_gets_no_more_threads_than_it_has_requests():
    # Three requests start three threads at most, which the limit allows where 8 are not.
    assert run_under_a_thread_limit("requests[:3]", 8) == "assembled 3 the same\n"
    assert run_under_a_thread_limit("requests", 3) == "assembled 10 the same\n"
