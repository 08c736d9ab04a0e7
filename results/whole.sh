#!/bin/sh
# Solves, verifies and summarises one 24-point rule set completely (both
# phases, every sector), in runs that may be killed and started again at any
# point: each step resumes from what is on disk. For the games too large for
# one session (docs/results.md); the small ones use results/small.sh.
#
#   results/whole.sh NAME [DB]      e.g. results/whole.sh nine-diagonal /data/nd
#
# NAME is a preset (`morris solve --help` lists them); DB (default
# $DBROOT/NAME, DBROOT default `.`) keeps the tables, which are never
# deleted. Start it with nohup, from the repository root, after
# `cargo build --release`:
#
#   nohup results/whole.sh nine-diagonal > nine-diagonal.log 2>&1 &
#
# Steps, each logged beside the database (DB.*):
#   1. `morris solve --phase sliding` (tables left as .mtb), then the
#      value by search: WDL files of the sliding tables (DB.wdl) and
#      `morris prove --divide` (DB.prove.txt), hours before the placement
#      tables exist.
#   2. `morris solve --phase all --compress` (resumes from finished tables).
#      Every solve run's wall and CPU seconds and peak resident memory go
#      to DB.solve-runs.csv (/usr/bin/time; a run that was killed, only
#      its wall seconds up to its last finished table), each pair's and
#      sector's times to DB.solve.log (`solve -v`).
#   3. `morris verify`, one table at a time; each passing table goes to
#      DB.verify.csv with its wall seconds, so a new run verifies only the
#      rest. A fault stops the script (exit 1) with the table named.
#   4. the results (written once before step 3 too, with verify_s
#      empty, so the value is there as soon as the tables are):
#      results/NAME-prove.txt (step 1's search),
#      results/NAME-verify.csv (step 3's list: every table's seconds),
#      results/NAME-sliding.csv and -placement.csv (`morris
#      stats --format csv`), results/NAME-longest.csv (`--longest 10`) and
#      the row of results/values.csv (`morris value --no-solve`, which must
#      agree with step 1), with solve_s the sum of the solve runs' wall
#      seconds and verify_s the sum of the tables' verify seconds.
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
solve --phase all --compress

# The results as soon as every table exists, verify_s left empty: the
# value does not wait for the hours of step 3 (which a session's end may
# cut short); step 4 writes them again with verify_s.
solve_s() { awk -F, 'NR > 1 { t += $2 } END { printf "%.0f", t }' "$runs"; }
cp "$db.prove.txt" "results/$name-prove.txt"
write_results "$name" "$db" "$(solve_s)" "" --rules "$name"

# 3. Verify every table not verified yet. Files are NAME_W_B_WH_BH.mtb or
# .mtz; sliding sectors are named w-b, placement sectors w-b-wh-bh.
done_list=$db.verify.csv
[ -f "$done_list" ] || echo "sector,wall_s" > "$done_list"
for f in "$db/${name}"_*.mt[bz]; do
    sector=$(basename "$f" | sed -e "s/^${name}_//" -e 's/\.mt[bz]$//' -e 's/_0_0$//' -e 's/_/-/g')
    if grep -q "^$sector," "$done_list"; then continue; fi
    if ! /usr/bin/time -f %e -o "$db.time" "$morris" verify --rules "$name" --db "$db" --sectors "$sector" -q --recheck \
        > "$db.verify-last.txt" 2>&1; then
        cat "$db.verify-last.txt" >&2
        echo "verify: table $sector failed (above)" >&2
        exit 1
    fi
    echo "$sector,$(tail -1 "$db.time")" >> "$done_list"
done

# 4. Results.
verify_s=$(awk -F, 'NR > 1 { t += $2 } END { printf "%.0f", t }' "$done_list")
cp "$done_list" "results/$name-verify.csv"
write_results "$name" "$db" "$(solve_s)" "$verify_s" --rules "$name"
