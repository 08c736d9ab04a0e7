#!/usr/bin/env python3
"""The rates of `solver/src/estimate.rs` (`estimated_rate`'s table and
`FINISH_SECONDS_PER_SLOT`) fitted to one timed whole solve: per kind of unit
(sliding pair, placement sector) and size bucket, the slots of its units over
their seconds; the finishing time is the wall time less the units' times.

usage: results/fit-rates.py STATS.json SLIDING.csv PLACEMENT.csv RUNS.csv

STATS.json is `morris stats --db DB --format json` of the run's tables (for
each sector's slots); the CSVs are the run's `results/NAME-sliding-timing.csv`,
`results/NAME-placement-timing.csv` and `results/NAME-runs.csv`.
"""
import csv
import json
import sys

BUCKETS = [5_000_000, 50_000_000, 300_000_000, None]


def bucket(slots):
    for i, b in enumerate(BUCKETS):
        if b is None or slots <= b:
            return i


def main(stats, sliding, placement, runs):
    slots = {row["sector"]: row["slots"] for row in json.load(open(stats))}
    acc = {(kind, b): [0, 0.0] for kind in ("sliding", "placement") for b in range(len(BUCKETS))}
    units_s = 0.0
    for kind, path, key in (("sliding", sliding, "pair"), ("placement", placement, "sector")):
        for row in csv.DictReader(open(path)):
            seconds = float(row["initialise_s"]) + float(row["iterate_s"])
            n = sum(slots[s] for s in row[key].split("/"))
            acc[(kind, bucket(n))][0] += n
            acc[(kind, bucket(n))][1] += seconds
            units_s += seconds
    for b, limit in enumerate(BUCKETS):
        rates = []
        for kind in ("sliding", "placement"):
            n, seconds = acc[(kind, b)]
            rates.append(f"{kind} {n / seconds / 1e6:.2f}e6" if seconds else f"{kind} -")
        print(f"slots up to {limit or 'any'}: {', '.join(rates)} slots/s")
    wall = float(next(r for r in csv.DictReader(open(runs)) if r["step"] == "solve")["wall_s"])
    total = sum(slots.values())
    print(f"finishing: {wall - units_s:.0f} s over {total} slots (the units {units_s:.0f} s, the run {wall:.0f} s)")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
