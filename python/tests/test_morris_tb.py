"""morris_tb against the `morris` command line on the same positions."""

import csv
import io
import re
import shutil
import threading

import pytest

import morris_tb
from morris_tb import MissingTableError, Position, open_tablebase

START = "W: B: w 3 3"


def parse_value(text: str):
    """`Win(9)` -> (1, 9); `Loss(4)` -> (-1, -4); `Draw` -> (0, None)."""
    text = text.strip()
    if text == "Draw":
        return 0, None
    m = re.fullmatch(r"(Win|Loss)\((\d+)\)", text)
    assert m, text
    n = int(m.group(2))
    return (1, n) if m.group(1) == "Win" else (-1, -n)


def positions_along_a_game(tb, count=40):
    """Positions of a game where both sides play their best moves, then
    each position's first few legal moves: placement and sliding."""
    out = []
    pos = Position.from_fen(START, rules="three")
    while len(out) < count and not pos.is_game_over():
        out.append(pos)
        for mv in pos.legal_moves()[:3]:
            nxt = pos.push(mv)
            if not nxt.is_game_over():
                out.append(nxt)
        pos = pos.push(tb.best_move(pos))
        if len(out) > count:
            break
    return out


def test_start_of_three_is_win_in_nine_by_b2(three_db):
    with open_tablebase(three_db) as tb:
        assert tb.rules == "three"
        start = Position.from_fen(START, rules="three")
        assert tb.probe_dtm(start) == 9
        assert tb.probe_wdl(start) == 1
        assert tb.best_move(start) == "b2"
        assert tb.probe_dtm(START) == 9  # a string works as well


def test_values_and_moves_agree_with_the_cli(three_db, cli):
    db = str(three_db)
    with open_tablebase(three_db, rules="three") as tb:
        positions = positions_along_a_game(tb)
        assert len(positions) > 10
        for pos in positions:
            text = pos.text()
            expected = parse_value(cli("probe", "--rules", "three", "--db", db, text))
            assert (tb.probe_wdl(pos), tb.probe_dtm(pos)) == expected, text
            best = cli("bestmove", "--rules", "three", "--db", db, text).split()[0]
            assert tb.best_move(pos) == best, text
            lines = cli("analyze", "--rules", "three", "--db", db, text).splitlines()[1:]
            rows = [line.split() for line in lines if not line.startswith("no legal move")]
            expected_moves = [(mv, *parse_value(v)) for mv, v in rows]
            assert tb.moves(pos) == expected_moves, text
            assert sorted(mv for mv, _, _ in tb.moves(pos)) == pos.legal_moves()


def test_sanmill_fen_and_our_notation_give_the_same_position():
    ours = Position.from_fen("W:a4,a1,d3 B:a7,d1,c4 w")
    fen = ours.fen()
    assert "/" in fen
    again = Position.from_fen(fen)
    assert again == ours
    assert again.text() == ours.text()
    assert ours.side_to_move == "white"


def test_push_returns_a_new_position():
    start = Position.from_fen(START, rules="three")
    after = start.push("b2")
    assert after is not start
    assert start.text() == "W: B: w 3 3"
    assert after.side_to_move == "black"
    assert "b2" not in after.legal_moves()
    with pytest.raises(ValueError, match="zz"):
        start.push("zz")


def test_malformed_positions_raise_value_error_naming_the_problem():
    with pytest.raises(ValueError, match="zz"):
        Position.from_fen("W:a1,zz B: w", rules="three")
    with pytest.raises(ValueError, match="no-such-rules"):
        Position.from_fen(START, rules="no-such-rules")
    with pytest.raises(ValueError):
        Position.from_fen("not a position at all")


def test_missing_table_raises_missing_table_error(three_db, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(three_db, partial)
    for f in partial.glob("three_3_3_0_0.*"):
        f.unlink()
    pos = "W:a1,c1,b3 B:a2,c2,a3 w"
    with open_tablebase(partial) as tb:
        with pytest.raises(MissingTableError) as info:
            tb.probe_wdl(pos)
        assert isinstance(info.value, KeyError)
        assert info.value.sector == "3-3"
        assert info.value.path.endswith("three_3_3_0_0.mtb")
        assert "three_3_3_0_0.mtb" in str(info.value)
        assert tb.get_wdl(pos) is None
        assert tb.get_dtm(pos) is None
        # Tables that are there still answer.
        assert tb.get_dtm(START) == 9


def test_bad_directories_and_rule_sets(three_db, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        open_tablebase(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no table"):
        open_tablebase(tmp_path)
    with pytest.raises(ValueError, match="no-such-rules"):
        open_tablebase(three_db, rules="no-such-rules")
    # Tables of another rule set: every probe names the table it lacks.
    with open_tablebase(three_db, rules="three-nodiagonal") as tb:
        with pytest.raises(MissingTableError, match="three"):
            tb.probe_wdl(START)
    # A position of another rule set.
    with open_tablebase(three_db) as tb:
        with pytest.raises(ValueError, match="rule set"):
            tb.probe_wdl(Position.start("nine"))
    tb.close()
    with pytest.raises(ValueError, match="closed"):
        tb.probe_wdl(START)


def test_add_directory(three_db, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(three_db, partial)
    for f in partial.glob("three_3_3_0_0.*"):
        f.unlink()
    pos = "W:a1,c1,b3 B:a2,c2,a3 w"
    with open_tablebase(partial, rules="three") as tb:
        assert tb.get_wdl(pos) is None
        tb.add_directory(three_db)
        assert tb.probe_wdl(pos) in (-1, 0, 1)


def test_probe_wdl_many_matches_single_probes(three_db):
    with open_tablebase(three_db) as tb:
        texts = [p.text() for p in positions_along_a_game(tb)]
        singles = [tb.probe_wdl(t) for t in texts]
        assert tb.probe_wdl_many(texts) == singles
        with pytest.raises(ValueError, match="zz"):
            tb.probe_wdl_many(texts + ["W:zz B: w"])


def test_sample_is_reproducible_and_agrees_with_probes(three_db, cli):
    with open_tablebase(three_db) as tb:
        rows = tb.sample("3-3", 50, seed=7)
        assert len(rows) == 50
        assert rows == tb.sample("3-3", 50, seed=7)
        assert rows != tb.sample("3-3", 50, seed=8)
        assert rows == morris_tb.sample(three_db, "three", "3-3", 50, seed=7)
        for text, wdl, dtm in rows:
            assert (tb.probe_wdl(text), tb.probe_dtm(text)) == (wdl, dtm)
        # The command line draws the same positions for the same seed.
        out = cli("sample", "--rules", "three", "--db", str(three_db), "--sector", "3-3",
                  "-n", "50", "--seed", "7", "--format", "csv")
        table = list(csv.DictReader(io.StringIO(out)))
        assert [r["position"] for r in table] == [t for t, _, _ in rows]
        assert [int(r["wdl"]) for r in table] == [w for _, w, _ in rows]
        assert [int(r["dtm"]) if r["dtm"] else None for r in table] == [d for _, _, d in rows]
        for r in table:
            best = tb.moves(r["position"])
            top = [m for m, w, d in best if (w, d) == best[0][1:]] if best else []
            assert r["best_moves"].split() == sorted(top)


def test_numpy_arrays(three_db):
    np = pytest.importorskip("numpy")
    with open_tablebase(three_db) as tb:
        rows = tb.sample("3-3", 20, seed=1)
        arrays = tb.sample("3-3", 20, seed=1, as_numpy=True)
        assert arrays["wdl"].dtype == np.int8
        assert arrays["wdl"].tolist() == [w for _, w, _ in rows]
        assert arrays["dtm"].tolist() == [d or 0 for _, _, d in rows]
        assert arrays["positions"] == [t for t, _, _ in rows]
        assert all(bin(int(w)).count("1") == 3 for w in arrays["white"])
        many = tb.probe_wdl_many(arrays["positions"], as_numpy=True)
        assert many.dtype == np.int8
        assert many.tolist() == arrays["wdl"].tolist()


def test_many_threads_probe_at_once(three_db):
    with open_tablebase(three_db) as tb:
        texts = [p.text() for p in positions_along_a_game(tb)]
        expected = [(tb.probe_wdl(t), tb.probe_dtm(t)) for t in texts]
        errors = []

        def work():
            try:
                for _ in range(20):
                    got = [(tb.probe_wdl(t), tb.probe_dtm(t)) for t in texts]
                    assert got == expected
                    assert tb.probe_wdl_many(texts) == [w for w, _ in expected]
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors


def test_module_exports():
    assert issubclass(morris_tb.MissingTableError, KeyError)
    assert morris_tb.looks_like_fen("********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1")
    assert not morris_tb.looks_like_fen(START)
