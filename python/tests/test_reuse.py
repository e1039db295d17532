"""An `Assembler` reads each request into the buffers of the last one. Nothing of the last
request may show in the next: every report must equal a fresh `Assembler`'s, in any order
of requests, after errors, and from several threads at once."""

import json
import threading
import warnings

import pytest
from conftest import RESULT_FIXTURES

from mentor_context import Assembler, MentorContextError
from mentor_context._native import _kept_bytes

# The most bytes an Assembler keeps between calls (`MAX_KEPT_BYTES` in python/src/reuse.rs).
MAX_KEPT_BYTES = 4 << 20


def requests():
    """Every fixture, and shapes that differ from one to the next in what they leave."""
    loaded = [json.loads(path.read_text()) for path in RESULT_FIXTURES]
    full = {"content": "long " * 400, "score": 1, "title": "T", "sourceUrl": "https://a.example",
            "metadata": {"k": "v", "year": "2025"}}
    bare = {"content": "short", "score": "0.5"}
    return loaded + [
        [full, full],
        [bare],
        [dict(bare, metadata={"year": "2026"}), full],
        # The same keys as `full`'s metadata, in the other order: the order must follow.
        [dict(full, metadata={"year": "2024", "k": "w"}), bare],
        [dict(full, metadata={"k": "v", "extra": None, "year": "2025"})],
        [dict(bare, title=None, metadata=None)],
        [],
    ]


def fresh(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Assembler(300).assemble(request)


def fresh_json(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Assembler(300).assemble_json(request)


def same(report, expected):
    """Equal, and in the same order: `==` on dicts would not see metadata keys reordered."""
    assert json.dumps(report) == json.dumps(expected)


def test_each_request_reads_as_it_reads_into_a_fresh_assembler():
    reused = Assembler(300)
    everything = requests()
    # Each request after each other one, so that every pair meets.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for before in everything:
            for request in everything:
                reused.assemble(before)
                same(reused.assemble(request), fresh(request))
                assert reused.assemble_json(request) == fresh_json(request)


def test_a_refused_request_leaves_nothing_for_the_next():
    assembler = Assembler(300)
    kept = [{"content": "kept from before", "score": 1, "title": "Before"}]
    assembler.assemble(kept)
    with pytest.raises(MentorContextError, match=r"results\[1\]: missing field `score`"):
        assembler.assemble([{"content": "a", "score": 1}, {"content": "b"}])
    after = [{"content": "after", "score": 1}]
    same(assembler.assemble(after), fresh(after))


def test_unknown_properties_are_still_warned_about_on_every_call():
    assembler = Assembler(300)
    for _ in range(2):
        with pytest.warns(UserWarning, match="unknown property `url`"):
            assembler.assemble([{"content": "a", "score": 1, "url": "u"}])


def test_a_request_far_larger_than_usual_does_not_keep_its_memory():
    assembler = Assembler(300)
    small = [{"content": "x" * 2048, "score": 1, "title": "t"} for _ in range(50)]
    assembler.assemble(small)
    kept = _kept_bytes(assembler)
    assert 50 * 2048 <= kept <= MAX_KEPT_BYTES
    # Large by any of its strings, by its number of results, or by one metadata table.
    big = "y" * (MAX_KEPT_BYTES + 1)
    for huge in (
        [{"content": big, "score": 1}],
        [{"content": "a", "score": 1, "title": big}],
        [{"content": "a", "score": 1, "sourceUrl": big}],
        [{"content": "a", "score": 1, "metadata": {big: "v"}}],
        [{"content": "a", "score": 1, "metadata": {"k": big}}],
        [{"content": "a", "score": 1}] * 500_000,
        [{"content": "a", "score": 1, "metadata": {f"k{i}": None for i in range(200_000)}}],
    ):
        assembler.assemble(huge)
        assert _kept_bytes(assembler) == 0
        same(assembler.assemble(small), fresh(small))
        assert _kept_bytes(assembler) == kept


def test_a_large_request_refused_or_warned_about_does_not_keep_its_memory_either():
    assembler = Assembler(300)
    # Refused at its last result: the list was grown for all the others.
    refused = [{"content": "a", "score": 1}] * 500_000 + [{"content": "b"}]
    with pytest.raises(MentorContextError, match=r"missing field `score`"):
        assembler.assemble(refused)
    assert _kept_bytes(assembler) == 0
    # Read whole, then a warning raised as an error before any assembly.
    warned = [{"content": "y" * (MAX_KEPT_BYTES + 1), "score": 1, "url": "u"}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="unknown property `url`"):
            assembler.assemble(warned)
    assert _kept_bytes(assembler) == 0


# catch_warnings is not thread-safe: the filter is set once for the whole test instead.
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_calls_from_many_threads_at_once_each_get_their_own_request():
    assembler = Assembler(300)
    everything = requests()
    expected = [fresh(request) for request in everything]
    failures = []

    def work(offset):
        for round_ in range(30):
            at = (offset + round_) % len(everything)
            if json.dumps(assembler.assemble(everything[at])) != json.dumps(expected[at]):
                failures.append(at)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_assemble_many_reads_each_request_as_a_fresh_assembler_does(threads):
    # Requests of every shape, many times over, so that the results of one are read into
    # by later ones whatever the order they come back in.
    everything = requests() * 6
    expected = [fresh(request) for request in everything]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reports = Assembler(300).assemble_many(everything, threads=threads)
    assert len(reports) == len(expected)
    for report, wanted in zip(reports, expected):
        same(report, wanted)
