#!/bin/sh
# One timed whole-game run of a 24-point rule set, for the performance
# figures (docs/performance.md): `morris solve --phase all --compress`
# from an empty directory and `morris verify` of every table, each one
# process under `/usr/bin/time -v`, each followed by the same committed
# results as results/whole.sh (the values row's `verify_s` empty until the
# verify is timed), and:
#
#   results/NAME-runs.csv              step,wall_s,cpu_s,peak_rss_mib,disk_peak_gb,disk_final_gb,quiet,version
#                                      (version: `morris --version`'s and the
#                                      commit it was built from; the figures of
#                                      earlier runs are in CHANGELOG.md)
#   results/NAME-sliding-timing.csv    pair,initialise_s,iterate_s,plies,store_s  (from `solve -v`;
#                                      store_s: writing the unit's tables)
#   results/NAME-placement-timing.csv  sector,initialise_s,iterate_s,plies,store_s
#   results/NAME-compress-timing.csv   sector,mtb_bytes,mtz_bytes,seconds  (each
#                                      table replaced by its .mtz twin)
#   results/NAME-verify-timing.csv     sector,wall_s  (each table's seconds in
#                                      the timed verify, from its log)
#
#   nohup results/timed.sh NAME DB [STEP] > NAME.timed.log 2>&1 &
#
# Each step timed replaces its own row of results/NAME-runs.csv and leaves
# the other steps' rows as they are: a verify or an export of tables kept
# on disk does not replace the committed solve row with that of the run
# that made them.
#
# STEP is `solve` or `verify` to time that step only (a machine lent for
# less time than both take: the verify of the whole of `nine` follows a
# solve kept in DB, its row joining the solve's in DB.runs.csv), `wdl` to
# time the export of the smallest WDL files read at random without
# decompressing (`morris export-wdl --compress groups --single-sided` into
# DB.wdl; its row's disk figures are those of DB.wdl, each file's bytes go
# to results/NAME-wdl-bytes.csv), `all` (the default) for the three.
#
# The database directory DB is sampled every 30 s for its size (DB.disk.csv)
# and the machine for its 1-minute load average; `quiet` is `yes` when that
# load never passed 2.5 during the step (this run's 2 threads and little
# else), else `no (load up to X)`. A solve that finds tables already in DB
# (a run started again after a kill) says `resumed` there: its times are
# not those of one run. Run it from the repository root after
# `cargo build --release`; MORRIS names another binary.
set -eu
. "$(dirname "$0")/common.sh"

[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: results/timed.sh NAME DB [solve|verify|wdl|all]" >&2; exit 2; }
name=$1 db=$2 only=${3:-all}
case $only in
    solve | verify | wdl | all) ;;
    *) echo "results/timed.sh: STEP is solve, verify, wdl or all, not $only" >&2; exit 2 ;;
esac
morris=${MORRIS:-target/release/morris}
[ -x "$morris" ] || { echo "$morris: not found; run cargo build --release first" >&2; exit 1; }
mkdir -p "$db"
runs=$db.runs.csv
runs_header="step,wall_s,cpu_s,peak_rss_mib,disk_peak_gb,disk_final_gb,quiet,version"
[ -f "$runs" ] || echo "$runs_header" > "$runs"
version="$("$morris" --version | awk '{ print $NF }') ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"

# The directory whose size is sampled: DB, or DB.wdl while the WDL files
# are written.
watch=$db

# Appends one sample of the watched directory's size and the load to
# DB.disk.csv.
sample_once() {
    echo "$(date -u +%s),$(du -sb "$watch" | cut -f1),$(cut -d' ' -f1 /proc/loadavg)" >> "$db.disk.csv"
}

# Samples every 30 s until killed.
sample() {
    while true; do
        sample_once
        sleep 30
    done
}

# timed STEP ARGS...: runs `morris ARGS` under /usr/bin/time -v, appends
# STEP's row to DB.runs.csv. `morris bench` runs first, untimed, into
# DB.STEP.bench: the host's speed that day, to compare runs of other days by.
timed() {
    step=$1
    shift
    note=""
    [ "$step" = solve ] && [ -n "$(ls -A "$db")" ] && note="resumed; "
    "$morris" bench > "$db.$step.bench" 2>&1 || true
    from=$(date -u +%s)
    sample &
    sampler=$!
    status=0
    /usr/bin/time -v -o "$db.$step.time" "$morris" "$@" >> "$db.$step.log" 2>&1 || status=$?
    kill "$sampler"
    sample_once
    [ "$status" -eq 0 ] || { tail -5 "$db.$step.log" >&2; echo "$step failed (exit $status)" >&2; exit 1; }
    awk -F, -v from="$from" '$1 >= from { if ($2 > peak) peak = $2; if ($3 > load) load = $3; final = $2 }
        END { printf "%.2f %.2f %.2f\n", peak / 1e9, final / 1e9, load }' "$db.disk.csv" > "$db.$step.disk"
    read -r peak final load < "$db.$step.disk"
    quiet=$(awk -v l="$load" -v n="$note" 'BEGIN { if (l <= 2.5) print n "yes"; else print n "no (load up to " l ")" }')
    awk -F': ' -v step="$step" -v peak="$peak" -v final="$final" -v quiet="$quiet" -v version="$version" '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
        /User time/ { cpu += $2 } /System time/ { cpu += $2 }
        /Maximum resident set size/ { rss = $2 / 1024 }
        END { printf "%s,%.0f,%.0f,%.0f,%s,%s,%s,%s\n", step, wall, cpu, rss, peak, final, quiet, version }' \
        "$db.$step.time" >> "$runs"
}

# publish STEP: STEP's row of DB.runs.csv into results/NAME-runs.csv, in
# place of that step's earlier row; the other steps' rows stay (a verify
# or export of tables kept on disk leaves the committed solve row, perhaps
# of a quieter run, as it is).
publish() {
    out="results/$name-runs.csv"
    [ -f "$out" ] || echo "$runs_header" > "$out"
    row=$(grep "^$1," "$runs" | tail -1)
    { grep -v "^$1," "$out" || true; echo "$row"; } > "$out.new"
    mv "$out.new" "$out"
}

# The per-table timings of the solve just timed, from its log (`store_s`
# when the binary says it), and each table's compression.
write_solve_timings() {
    columns="initialise_s,iterate_s,plies"
    grep -q '^pair .*, store ' "$db.solve.log" && columns="$columns,store_s"
    echo "pair,$columns" > "results/$name-sliding-timing.csv"
    echo "sector,$columns" > "results/$name-placement-timing.csv"
    awk -v s="results/$name-sliding-timing.csv" -v p="results/$name-placement-timing.csv" '
        $1 == "pair" && $3 == "initialise" {
            row = $2 "," $4 "," $7 "," $9
            if ($11 == "store") row = row "," $12
            if (split($2, parts, "-") == 4) print row >> p; else print row >> s
        }' "$db.solve.log"
    if grep -q '^compressed .* in [0-9.]* s$' "$db.solve.log"; then
        echo "sector,mtb_bytes,mtz_bytes,seconds" > "results/$name-compress-timing.csv"
        awk '$1 == "compressed" && $7 == "in" { sub(":", "", $2); print $2 "," $3 "," $6 "," $8 }' \
            "$db.solve.log" >> "results/$name-compress-timing.csv"
    fi
}

# The committed stats, longest and values.csv row, its times those of
# results/NAME-runs.csv (`verify_s` empty until a verify is timed).
# Written after the solve too, so that a session ending during the hours
# of verify keeps them.
write_timed_results() {
    solve_s=$(awk -F, '$1 == "solve" { print $2 }' "results/$name-runs.csv")
    verify_s=$(awk -F, '$1 == "verify" { print $2 }' "results/$name-runs.csv")
    write_results "$name" "$db" "$solve_s" "$verify_s" --rules "$name"
}

if { [ "$only" = solve ] || [ "$only" = all ]; } && ! grep -q '^solve,' "$runs"; then
    timed solve solve --rules "$name" --db "$db" --phase all --compress -q -v
    publish solve
    write_solve_timings
    write_timed_results
fi
if [ "$only" = verify ] && ! grep -q '^solve,' "$runs"; then
    echo "results/timed.sh: no solve row in $runs: time the solve first" >&2
    exit 1
fi
if { [ "$only" = verify ] || [ "$only" = all ]; } && ! grep -q '^verify,' "$runs"; then
    timed verify verify --rules "$name" --db "$db" -q --recheck
    publish verify
    { echo "sector,wall_s"; verify_seconds "$db.verify.log"; } > "results/$name-verify-timing.csv"
    write_timed_results
fi
if { [ "$only" = wdl ] || [ "$only" = all ]; } && ! grep -q '^export-wdl,' "$runs"; then
    grep -q '^solve,' "$runs" || { echo "results/timed.sh: no solve row in $runs: time the solve first" >&2; exit 1; }
    mkdir -p "$db.wdl"
    watch=$db.wdl
    timed export-wdl export-wdl --rules "$name" --db "$db" --out "$db.wdl" --compress groups --single-sided
    publish export-wdl
    # sector,file,bytes: a file of the header alone (128 bytes) is a stub.
    {
        echo "sector,file,bytes"
        for f in "$db.wdl"/*.mwdl; do
            bytes=$(stat -c %s "$f")
            kind=groups
            [ "$bytes" -eq 128 ] && kind=stub
            echo "$(basename "$f" .mwdl | cut -d_ -f2- | tr _ -),$kind,$bytes"
        done | sort -t- -k1,1n -k2,2n -k3,3n -k4,4n
    } > "results/$name-wdl-bytes.csv"
fi
