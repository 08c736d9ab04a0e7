/*
 * libmorris example: open a directory made by
 *     morris solve --rules three --phase all --db DIR
 * and print the start position's value, its best move, every move, and the
 * error for a table the second directory lacks.
 *
 *     make run DB=DIR        (see Makefile)
 *     ./probe DIR [MISSING_DIR]
 */
#include <stdio.h>
#include <stdlib.h>
#include "morris.h"

static void print_value(MorrisValue v) {
    if (v.wdl > 0) printf("Win(%d)", v.dtm);
    else if (v.wdl < 0) printf("Loss(%d)", -v.dtm);
    else printf("Draw");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [MISSING_DIR]\n", argv[0]);
        return 2;
    }
    /* NULL rules: the one rule set whose tables DIR holds. */
    MorrisDb *db = morris_open(argv[1], NULL);
    if (db == NULL) {
        fprintf(stderr, "morris_open: %s\n", morris_last_error());
        return 1;
    }
    const char *start = "W: B: w 3 3"; /* or a Sanmill FEN */

    MorrisValue value;
    if (morris_probe(db, start, &value) != MORRIS_STATUS_OK) {
        fprintf(stderr, "morris_probe: %s\n", morris_last_error());
        return 1;
    }
    printf("value: ");
    print_value(value);
    printf("\n");

    char best[16];
    if (morris_best_move(db, start, best, sizeof best, NULL) != MORRIS_STATUS_OK) {
        fprintf(stderr, "morris_best_move: %s\n", morris_last_error());
        return 1;
    }
    printf("best move: %s\n", best);

    MorrisMove moves[64];
    size_t count = 0;
    if (morris_moves(db, start, moves, 64, &count) != MORRIS_STATUS_OK) {
        fprintf(stderr, "morris_moves: %s\n", morris_last_error());
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        printf("  %-6s ", moves[i].text);
        print_value(moves[i].value);
        printf("\n");
    }

    /* Bad input is an error code and a message, never a crash. */
    MorrisStatus s = morris_probe(db, "W:a1,zz B: w", &value);
    printf("bad position: status %d: %s\n", (int)s, morris_last_error());
    s = morris_probe(NULL, start, &value);
    printf("null handle: status %d: %s\n", (int)s, morris_last_error());
    morris_close(db);

    if (argc > 2) {
        MorrisDb *partial = morris_open(argv[2], "three");
        if (partial == NULL) {
            fprintf(stderr, "morris_open: %s\n", morris_last_error());
            return 1;
        }
        s = morris_probe(partial, "W:a1,c1,b3 B:a2,c2,a3 w", &value);
        printf("missing table: status %d: %s\n", (int)s, morris_last_error());
        morris_close(partial);
        if (s != MORRIS_STATUS_MISSING_TABLE) return 1;
    }
    return 0;
}
