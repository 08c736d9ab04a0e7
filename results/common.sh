# Shared by results/small.sh, whole.sh and timed.sh (sourced, not run):
# writes the committed results of one solved database.
#
#   verify_seconds [CSV] LOG...
#
# `sector,seconds` of each table that `morris verify` passed in the LOGs
# (its `SECTOR OK ... re-derived in S s` lines), after the rows of CSV's
# body when given, one row per sector in the order first seen, a later
# line's seconds replacing an earlier one's.
#
#   write_results NAME DB SOLVE_S VERIFY_S RULE-OPTIONS...
#
# results/NAME-sliding.csv and -placement.csv (`morris stats --format csv`,
# sliding sectors named w-b, placement sectors w-b-wh-bh),
# results/NAME-longest.csv (`--longest 10 --reachable no`), and NAME's row of
# results/values.csv (`morris value --no-solve`, with SOLVE_S and VERIFY_S
# as its times (either may be empty: left empty in the row); other rows
# kept), which it prints. Needs $morris set and `set -e` in the caller.
write_results() {
    name=$1 db=$2 solve_s=$3 verify_s=$4
    shift 4
    values=results/values.csv
    header=rules,start,first_moves,positions,tables,solve_s,verify_s
    "$morris" stats --format csv --db "$db" > "$db.stats.csv"
    head -1 "$db.stats.csv" > "results/$name-sliding.csv"
    head -1 "$db.stats.csv" > "results/$name-placement.csv"
    awk -F, 'NR > 1 && split($1, s, "-") == 2' "$db.stats.csv" >> "results/$name-sliding.csv"
    awk -F, 'NR > 1 && split($1, s, "-") == 4' "$db.stats.csv" >> "results/$name-placement.csv"
    rm -f "$db.stats.csv"
    # Every position of the tables, reachable or not (the bitmaps, when
    # there, would make `--reachable auto` filter).
    "$morris" stats --longest 10 --reachable no --format csv --db "$db" > "results/$name-longest.csv"
    # An empty time is left out (`morris value` refuses an empty number);
    # a failing `morris value` stops the calling script (set -e), where a
    # pipe into `tail` would have written an empty row.
    times=""
    [ -z "$solve_s" ] || times="--solve-s $solve_s"
    [ -z "$verify_s" ] || times="$times --verify-s $verify_s"
    # shellcheck disable=SC2086 # $times: zero to four words, all numbers
    out=$("$morris" value "$@" --db "$db" --no-solve --format csv $times)
    row=$(printf '%s\n' "$out" | tail -1)
    rules=${row%%,*}
    [ -f "$values" ] || echo "$header" > "$values"
    { echo "$header"; grep -v -e "^$header\$" -e "^$rules," "$values" || true; echo "$row"; } > "$values.new"
    mv "$values.new" "$values"
    echo "$row"
}

verify_seconds() {
    {
        case ${1:-} in *.csv) [ ! -f "$1" ] || tail -n +2 "$1"; shift ;; esac
        { [ $# -eq 0 ] || cat "$@" 2>/dev/null; } \
            | awk '$2 == "OK" && / re-derived in / { for (i = 1; i < NF; i++) if ($i == "in") print $1 "," $(i + 1) }'
    } | awk -F, '{ s[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
                 END { for (i = 1; i <= n; i++) print order[i] "," s[order[i]] }'
}
