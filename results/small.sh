#!/bin/sh
# Solves completely the rule sets small enough for a few minutes of CPU and
# writes their committed results (docs/results.md):
#
#   results/<name>-sliding.csv    morris stats --format csv, sliding sectors
#   results/<name>-placement.csv  morris stats --format csv, placement sectors
#   results/<name>-longest.csv    morris stats --longest 10 --reachable no --format csv
#   results/<name>-reach.csv      morris reach --format csv: the positions that
#                                 can arise in a game, per table and in total
#   results/<name>-longest-reachable.csv
#                                 morris stats --longest 10 --reachable yes
#   results/values.csv            one row per rule set: morris value --format csv
#                                 with the wall seconds of `solve --phase all`
#                                 and of `verify` (/usr/bin/time)
#
# Rows of values.csv for other rule sets (nine) are kept as they are.
# Run from the repository root after `cargo build --release`:
#
#   results/small.sh                      # all of them
#   results/small.sh six "lasker-5:--rules lasker --stones 5"
#
# Each argument is NAME or NAME:OPTIONS (the file name, then the rule-set
# options). Scratch databases go to $SCRATCH (default
# /tmp/morris-results) and are deleted when done.
set -eu
. "$(dirname "$0")/common.sh"

morris=${MORRIS:-target/release/morris}
scratch=${SCRATCH:-/tmp/morris-results}

if [ $# -eq 0 ]; then
    set -- three three-nodiagonal six six-flying five five-flying seven seven-flying \
        "six-fly4:--rules six --fly-at 4" "six-flyalways:--rules six --fly-at always" \
        "six-strict:--rules six --removal strict" "six-lenient:--rules six --removal lenient" \
        "six-misere:--rules six --misere" \
        "lasker-5:--rules lasker --stones 5"
fi
[ -x "$morris" ] || { echo "$morris: not found; run cargo build --release first" >&2; exit 1; }
mkdir -p "$scratch"

for spec in "$@"; do
    name=${spec%%:*}
    case $spec in
        *:*) options=${spec#*:} ;;
        *) options="--rules $name" ;;
    esac
    db=$scratch/$name
    rm -rf "$db"
    # shellcheck disable=SC2086 # the options are words
    /usr/bin/time -f %e -o "$scratch/solve.s" "$morris" solve --phase all $options --db "$db" -q
    # shellcheck disable=SC2086
    /usr/bin/time -f %e -o "$scratch/verify.s" "$morris" verify $options --db "$db" -q --recheck > "$scratch/verify.out"
    # Reachability first, so that the stats files get their reachable column.
    # shellcheck disable=SC2086
    "$morris" reach $options --db "$db" --format csv > "results/$name-reach.csv"
    "$morris" stats --longest 10 --reachable yes --format csv --db "$db" > "results/$name-longest-reachable.csv"
    # shellcheck disable=SC2086 # the options are words
    write_results "$name" "$db" "$(tail -1 "$scratch/solve.s")" "$(tail -1 "$scratch/verify.s")" $options
    rm -rf "$db"
done
rm -f "$scratch/solve.s" "$scratch/verify.s" "$scratch/verify.out"
