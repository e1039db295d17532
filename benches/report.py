#!/usr/bin/env python3
"""Turns the results of `cargo bench --bench assemble` into same-run ratios and a plot.

Reads criterion's `target/criterion/**/new/estimates.json` (the median point estimate), with
the benchmark's IDs from the `benchmark.json` beside it, and the per-sample ratios of the paired
groups (`paired.json`, written by the benchmark), prints a markdown table of the
ratios the performance targets are stated in, and writes `docs/cost-vs-budget.svg`.

Usage: python3 benches/report.py [--criterion DIR] [--svg FILE]

Standard library only; the output depends only on the data.
"""

import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIXTURES = ["english", "multilingual", "markdown"]
# The warm group runs on the prose fixtures only.
WARM_FIXTURES = ["english", "multilingual"]
ENCODINGS = ["o200k", "cl100k"]
BUDGETS = [500, 1000, 2000, 4000, 8000, 16000, 32000]

COLD_TARGET = 1.1
WARM_TARGET = 0.1
SCALE_TARGET = 1.5
OPEN_TARGET = 1.2
OPEN_BUDGETS = [4000, 32000]


def load(criterion_dir):
    """Median time in nanoseconds of every benchmark, by its full ID (`group/function/value`)."""
    medians = {}
    for dirpath, dirnames, filenames in os.walk(criterion_dir):
        dirnames.sort()
        if os.path.basename(dirpath) != "new" or "estimates.json" not in filenames:
            continue
        with open(os.path.join(dirpath, "estimates.json"), encoding="utf-8") as f:
            median = json.load(f)["median"]["point_estimate"]
        info_path = os.path.join(dirpath, "benchmark.json")
        if os.path.exists(info_path):
            with open(info_path, encoding="utf-8") as f:
                full_id = json.load(f)["full_id"]
        else:
            # Criterion writes `/` in group names as `_`; the path is only a fallback.
            full_id = os.path.relpath(os.path.dirname(dirpath), criterion_dir).replace(os.sep, "/")
        medians[full_id] = median
    return medians


def load_paired(criterion_dir):
    """The median per-sample ratio of each paired group (`paired.json`), by group ID, by the
    wall clock and (under `<group>/cpu`) by the thread's CPU time."""
    paired = {}
    for dirpath, _, filenames in os.walk(criterion_dir):
        if "paired.json" in filenames:
            with open(os.path.join(dirpath, "paired.json"), encoding="utf-8") as f:
                group = os.path.relpath(dirpath, criterion_dir).replace("_", "/")
                data = json.load(f)
                paired[group] = data["median"]
                if "median_cpu" in data:
                    paired[f"{group}/cpu"] = data["median_cpu"]
    return paired


def fmt_ratio(value):
    return "n/a" if value is None else f"{value:.3f}"


def fmt_us(ns):
    return "n/a" if ns is None else f"{ns / 1000:.1f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def verdict(value, limit):
    if value is None:
        return "missing"
    return "met" if value <= limit else "**not met**"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def report(m, paired):
    out = []
    out.append("## Cold: 50 results of ~2 KiB into 4,000 tokens (target ours/F <= 1.1)\n")
    rows = []
    for fixture in FIXTURES:
        for enc in ENCODINGS:
            g = f"cold/{fixture}/{enc}"
            ours, floor, naive = (m.get(f"{g}/{f}") for f in ("ours", "floor", "naive"))
            r = ratio(ours, floor)
            rows.append([fixture, enc, fmt_us(ours), fmt_us(floor), fmt_us(naive),
                         fmt_ratio(r), fmt_ratio(paired.get(g)), fmt_ratio(paired.get(f"{g}/cpu")),
                         fmt_ratio(ratio(naive, floor)), fmt_ratio(ratio(naive, ours)),
                         verdict(r, COLD_TARGET)])
    out.append(table(["fixture", "encoding", "ours µs", "F µs", "naive µs", "ours/F",
                      "ours/F paired", "paired CPU", "naive/F", "speedup naive/ours",
                      "cold target"], rows))

    out.append("\n## Warm: the same, with a warmed TokenCache (target warm/F <= 0.1)\n")
    rows = []
    for fixture in WARM_FIXTURES:
        for enc in ENCODINGS:
            warm = m.get(f"warm/{fixture}/{enc}/ours")
            # The warm group measures the floor again; the cold one is the same text.
            floor = m.get(f"warm/{fixture}/{enc}/floor", m.get(f"cold/{fixture}/{enc}/floor"))
            cold = m.get(f"cold/{fixture}/{enc}/ours")
            r = ratio(warm, floor)
            rows.append([fixture, enc, fmt_us(warm), fmt_us(floor), fmt_ratio(r),
                         fmt_ratio(ratio(cold, warm)), verdict(r, WARM_TARGET)])
    out.append(table(["fixture", "encoding", "warm µs", "F µs", "warm/F", "cold/warm",
                      "warm target"], rows))

    out.append("\n## Scale: input size at 4,000 tokens, o200k (target <= 1.5x the 50-result case)\n")
    base = m.get("inputs/ours/50")
    rows = []
    for label, key, target in [("5 results", "5", False), ("50 results", "50", False),
                               ("500 results", "500", False), ("5,000 results", "5000", True),
                               ("one 10 MB result", "10mb", True)]:
        t = m.get(f"inputs/ours/{key}")
        r = ratio(t, base)
        rows.append([label, fmt_us(t), fmt_ratio(r),
                     verdict(r, SCALE_TARGET) if target else "-"])
    out.append(table(["input", "ours µs", "x 50 results", "scale target"], rows))

    out.append("\n## Budget sweep: 500 distinct results, o200k (ours/F per budget)\n")
    rows = []
    for budget in BUDGETS:
        ours, floor = m.get(f"budget/ours/{budget}"), m.get(f"budget/floor/{budget}")
        rows.append([f"{budget:,}", fmt_us(ours), fmt_us(floor), fmt_ratio(ratio(ours, floor))])
    out.append(table(["budget", "ours µs", "F µs", "ours/F"], rows))

    rows = []
    for fixture in FIXTURES:
        for enc in ENCODINGS:
            g = f"backend/{fixture}/{enc}"
            slow, fast = m.get(f"{g}/tiktoken"), m.get(f"{g}/bpe-openai")
            own = m.get(f"{g}/own-floor")
            if slow is not None and fast is not None:
                rows.append([fixture, enc, fmt_us(slow), fmt_us(fast), fmt_us(own),
                             fmt_ratio(ratio(slow, fast)), fmt_ratio(ratio(fast, own)),
                             fmt_ratio(paired.get(g)), fmt_ratio(paired.get(f"{g}/cpu"))])
    if rows:
        out.append("\n## Engines: the cold assembly counted by tiktoken-rs and by bpe-openai\n")
        out.append(table(["fixture", "encoding", "tiktoken-rs µs", "bpe-openai µs",
                          "own floor µs", "speedup", "bpe-openai / own floor",
                          "paired", "paired CPU"], rows))

    rows = []
    for model in ["llama3", "qwen3"]:
        for fixture in FIXTURES:
            for budget in OPEN_BUDGETS:
                g = f"open/{model}/{fixture}/{budget}"
                if g in paired:
                    rows.append([model, fixture, f"{budget:,}", fmt_ratio(paired.get(g)),
                                 fmt_ratio(paired.get(f"{g}/cpu")),
                                 verdict(paired.get(f"{g}/cpu"), OPEN_TARGET)])
    if rows:
        out.append("\n## Open models: assembly over its own floor (`open_models` bench)\n")
        out.append(table(["model", "fixture", "budget", "paired", "paired CPU",
                          "target 1.2"], rows))
    return "\n".join(out)


def nice_step(span, ticks):
    """A round step (1, 2 or 5 times a power of ten) giving about `ticks` intervals."""
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        if raw <= mult * power:
            return mult * power
    return 10 * power


def fmt_num(v):
    if v == int(v):
        return f"{int(v):,}"
    return f"{v:,.1f}"


def svg(m):
    """A line chart of ours and F against the budget (log x), in microseconds."""
    series = [
        ("assemble (ours)", "ours", "#1f77b4", ""),
        ("floor F: one encode_ordinary of the output", "floor", "#d62728", "6,4"),
    ]
    points = {key: [(b, m[f"budget/{key}/{b}"] / 1000) for b in BUDGETS if f"budget/{key}/{b}" in m]
              for _, key, _, _ in series}
    width, height = 640, 400
    left, right, top, bottom = 78, 24, 44, 62
    pw, ph = width - left - right, height - top - bottom
    ymax_data = max([y for pts in points.values() for _, y in pts] or [1.0])
    step = nice_step(ymax_data, 5)
    ymax = step * math.ceil(ymax_data / step)
    xmin, xmax = math.log10(BUDGETS[0]), math.log10(BUDGETS[-1])

    def x(b):
        return left + (math.log10(b) - xmin) / (xmax - xmin) * pw

    def y(v):
        return top + ph - v / ymax * ph

    e = []
    e.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
             f'font-size="12">')
    e.append(f'<rect width="{width}" height="{height}" fill="#ffffff"/>')
    e.append(f'<text x="{width / 2:.1f}" y="24" text-anchor="middle" font-size="15" '
             f'font-weight="bold">Cost of assembling against the token budget (o200k_base)</text>')
    # Grid and y ticks.
    v = 0.0
    while v <= ymax + step / 2:
        yy = y(v)
        e.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + pw}" y2="{yy:.1f}" '
                 f'stroke="#e0e0e0"/>')
        e.append(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end">{fmt_num(v)}</text>')
        v += step
    # X ticks at each budget.
    for b in BUDGETS:
        xx = x(b)
        e.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + ph}" '
                 f'stroke="#f0f0f0"/>')
        e.append(f'<line x1="{xx:.1f}" y1="{top + ph}" x2="{xx:.1f}" y2="{top + ph + 5}" '
                 f'stroke="#333333"/>')
        e.append(f'<text x="{xx:.1f}" y="{top + ph + 19}" text-anchor="middle">{b:,}</text>')
    # Axes.
    e.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" '
             f'stroke="#333333"/>')
    e.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333333"/>')
    e.append(f'<text x="{left + pw / 2:.1f}" y="{height - 16}" text-anchor="middle">'
             f'budget (tokens, log scale)</text>')
    e.append(f'<text x="18" y="{top + ph / 2:.1f}" text-anchor="middle" '
             f'transform="rotate(-90 18 {top + ph / 2:.1f})">median time (µs)</text>')
    # Series.
    for _, key, color, dash in series:
        pts = points[key]
        if not pts:
            continue
        path = " ".join(f"{x(b):.1f},{y(t):.1f}" for b, t in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        e.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"'
                 f'{dash_attr}/>')
        for b, t in pts:
            e.append(f'<circle cx="{x(b):.1f}" cy="{y(t):.1f}" r="3.5" fill="{color}"/>')
    # Legend, top left inside the plot (the lines rise to the right).
    lx, ly = left + 14, top + 14
    e.append(f'<rect x="{lx - 8}" y="{ly - 12}" width="300" height="{len(series) * 20 + 6}" '
             f'fill="#ffffff" fill-opacity="0.9" stroke="#cccccc"/>')
    for i, (label, _, color, dash) in enumerate(series):
        yy = ly + i * 20
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        e.append(f'<line x1="{lx}" y1="{yy}" x2="{lx + 28}" y2="{yy}" stroke="{color}" '
                 f'stroke-width="2"{dash_attr}/>')
        e.append(f'<circle cx="{lx + 14}" cy="{yy}" r="3.5" fill="{color}"/>')
        e.append(f'<text x="{lx + 36}" y="{yy + 4}">{label}</text>')
    e.append("</svg>")
    return "\n".join(e) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criterion", default=os.path.join(ROOT, "target", "criterion"),
                        help="criterion's output directory")
    parser.add_argument("--svg", default=os.path.join(ROOT, "docs", "cost-vs-budget.svg"),
                        help="where to write the plot")
    args = parser.parse_args()
    medians = load(args.criterion)
    if not medians:
        sys.exit(f"no criterion results under {args.criterion}; run `cargo bench --bench assemble`")
    print(report(medians, load_paired(args.criterion)))
    os.makedirs(os.path.dirname(os.path.abspath(args.svg)), exist_ok=True)
    with open(args.svg, "w", encoding="utf-8", newline="\n") as f:
        f.write(svg(medians))
    print(f"\nwrote {os.path.relpath(args.svg, os.getcwd())}")


if __name__ == "__main__":
    main()
