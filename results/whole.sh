#!/bin/sh
# Solves, verifies and summarises one 24-point rule set completely (both
# phases, every sector), in runs that may be killed and started again at any
# point, on this machine or on a fresh one: each step resumes from what is
# on disk, and what was verified is kept in the committed ledger
# results/NAME-verified.csv (docs/ledger.md), so a table rebuilt elsewhere
# (the solver is deterministic) is not checked again. For the games too
# large for one session (docs/results.md); the small ones use
# results/small.sh.
#
#   results/whole.sh NAME [DB]      e.g. results/whole.sh nine-diagonal /data/nd
#
# NAME is a preset (`morris solve --help` lists them); DB (default
# $DBROOT/NAME, DBROOT default `.`) keeps the tables, which are never
# deleted. Start it with nohup, from the repository root, after
# `cargo build --release`, and commit results/NAME-verified.csv as it
# grows (one row per verified table):
#
#   nohup results/whole.sh nine-diagonal > nine-diagonal.log 2>&1 &
#
# Steps, each logged beside the database (DB.*):
#   1. The value by search, unless results/NAME-prove.txt has it already:
#      `morris solve --phase sliding` (tables left as .mtb), WDL files of
#      the sliding tables (DB.wdl) and `morris prove --divide`
#      (DB.prove.txt), hours before the placement tables exist.
#   2. `morris solve --phase all --compress --verify --ledger
#      results/NAME-verified.csv -v`: resumes from finished tables, and
#      checks each unit's tables with the independent verifier as soon as
#      they are written, skipping those the ledger vouches for. Every
#      solve run's wall and CPU seconds and peak resident memory go to
#      DB.solve-runs.csv (/usr/bin/time; a run that was killed, only its
#      wall seconds up to its last logged line), each pair's and sector's
#      times and each table's check to DB.solve.log.
#   3. `morris verify --ledger results/NAME-verified.csv` of the whole
#      directory: checks what the ledger still lacks (tables kept from a
#      solve without --verify), lists every table (DB.verify.log).
#   4. the results (written once before step 3 too, with verify_s
#      empty, so the value is there as soon as the tables are):
#      results/NAME-prove.txt (step 1's search),
#      results/NAME-verify.csv (each table checked on this machine and its
#      seconds, merged with the rows committed before),
#      results/NAME-sliding.csv and -placement.csv (`morris
#      stats --format csv`), results/NAME-longest.csv (`--longest 10`) and
#      the row of results/values.csv (`morris value --no-solve`, which must
#      agree with step 1), with solve_s the solve runs' wall seconds less
#      the checks in them, and verify_s the seconds of every table's check
#      in results/NAME-verify.csv.
set -eu
. "$(dirname "$0")/common.sh"

[ $# -ge 1 ] || { echo "usage: results/whole.sh NAME [DB]" >&2; exit 2; }
name=$1
db=${2:-${DBROOT:-.}/$name}
morris=${MORRIS:-target/release/morris}
[ -x "$morris" ] || { echo "$morris: not found; run cargo build --release first" >&2; exit 1; }

# 1. and 2. Solve, timing each run. A run killed before it ended (the
# machine's session ended, say) left DB.solve-running behind: it is
# counted from its start to its last line in DB.solve.log (the last table
# it finished; the rest is solved again), its CPU time and memory unknown.
runs=$db.solve-runs.csv
[ -f "$runs" ] || echo "started,wall_s,cpu_s,peak_rss_mib" > "$runs"
if [ -f "$db.solve-running" ]; then
    read -r started from < "$db.solve-running"
    last=$(stat -c %Y "$db.solve.log")
    echo "$started,$((last > from ? last - from : 0)),," >> "$runs"
    rm -f "$db.solve-running"
fi
solve() {
    started=$(date -u +%FT%TZ)
    echo "$started $(date -u +%s)" > "$db.solve-running"
    /usr/bin/time -f "%e %U %S %M" -o "$db.time" "$morris" solve --rules "$name" --db "$db" -q -v "$@" \
        >> "$db.solve.log" 2>&1
    awk -v s="$started" '{ printf "%s,%.0f,%.0f,%.0f\n", s, $1, $2 + $3, $4 / 1024 }' "$db.time" >> "$runs"
    rm -f "$db.solve-running"
}
ledger=results/$name-verified.csv
if [ ! -f "$db.prove.txt" ] && [ -f "results/$name-prove.txt" ]; then
    cp "results/$name-prove.txt" "$db.prove.txt"
fi
if [ ! -f "$db.prove.txt" ]; then
    # Sliding tables stay .mtb: the placement phase reads them at random.
    solve --phase sliding
    # The value by search, from the sliding tables' WDL files.
    mkdir -p "$db.sliding" "$db.wdl"
    for f in "$db/${name}"_*_0_0.mt[bz]; do ln -f "$f" "$db.sliding/"; done
    "$morris" export-wdl --rules "$name" --db "$db.sliding" --out "$db.wdl"
    "$morris" prove --rules "$name" --db "$db.sliding" --wdl "$db.wdl" --divide > "$db.prove.new"
    mv "$db.prove.new" "$db.prove.txt"
    rm -rf "$db.sliding"
fi
cat "$db.prove.txt"
solve --phase all --compress --verify --ledger "$ledger"

# The solve runs' wall seconds less the checks made in them.
solve_s() {
    wall=$(awk -F, 'NR > 1 { t += $2 } END { printf "%.0f", t }' "$runs")
    checks=$(awk '$2 == "OK" && / re-derived in / { for (i = 1; i < NF; i++) if ($i == "in") t += $(i + 1) }
                  END { printf "%.0f", t }' "$db.solve.log")
    echo $((wall - checks))
}

# The results as soon as every table exists, verify_s left empty: the
# value does not wait for step 3.
cp "$db.prove.txt" "results/$name-prove.txt"
write_results "$name" "$db" "$(solve_s)" "" --rules "$name"

# 3. Verify what the ledger lacks; a fault stops the script (exit 1) with
# the table named in DB.verify.log.
if ! "$morris" verify --rules "$name" --db "$db" --ledger "$ledger" > "$db.verify.log" 2>&1; then
    cat "$db.verify.log" >&2
    echo "verify: a table failed or could not be checked (above)" >&2
    exit 1
fi
tail -1 "$db.verify.log"

# 4. Results.
# Each table's seconds, merged with results/NAME-verify.csv's earlier rows
# (a sector checked again here gets its new seconds).
{ echo "sector,wall_s"; verify_seconds "results/$name-verify.csv" "$db.solve.log" "$db.verify.log"; } > "$db.verify.csv"
cp "$db.verify.csv" "results/$name-verify.csv"
verify_s=$(awk -F, 'NR > 1 { t += $2 } END { printf "%.0f", t }' "$db.verify.csv")
write_results "$name" "$db" "$(solve_s)" "$verify_s" --rules "$name"
