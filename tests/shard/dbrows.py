"""Row-for-row comparison of two SQLite databases (the gathered and the one-process file).

Every table of either file (sqlite_* internals aside) must exist in both with the same schema and
the same rows, and the indexes the same definitions. Rows are compared in primary-key order where a
table has one (tb_nodes.id, tb_stack.id, tb_config.id, the trend tables' keys), else in sorted
order (vp_badges): with threads, the one-process run itself writes the rows of a graph that spans
several dump.json windows in the order the workers finish them, so rowids differ from run to run
(two one-process runs of a 16-rank compare differ from row 512 on), while ids, node_order and
every value do not. Prints the first differences and returns False when they differ.
"""
import sqlite3
import sys


def tables(con):
    return {name: sql for name, sql in con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}


def indexes(con):
    return sorted((n, t, s) for n, t, s in con.execute(
        "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))


def rows(con, table, sql):
    pk = [r[1] for r in sorted((r for r in con.execute(f'PRAGMA table_info("{table}")') if r[5]), key=lambda r: r[5])]
    if pk:
        return con.execute(f'SELECT * FROM "{table}" ORDER BY ' + ", ".join(f'"{c}"' for c in pk)).fetchall()
    return sorted(con.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)


def same_rows(a_path, b_path, out=sys.stdout):
    a, b = sqlite3.connect(a_path), sqlite3.connect(b_path)
    ta, tb = tables(a), tables(b)
    ok = True
    if set(ta) != set(tb):
        print(f"tables differ: only in {a_path}: {sorted(set(ta) - set(tb))}; only in {b_path}: {sorted(set(tb) - set(ta))}", file=out)
        ok = False
    if indexes(a) != indexes(b):
        print("index definitions differ", file=out)
        ok = False
    for t in sorted(set(ta) & set(tb)):
        if ta[t] != tb[t]:
            print(f"{t}: schemas differ:\n  {ta[t]}\n  {tb[t]}", file=out)
            ok = False
            continue
        ra, rb = rows(a, t, ta[t]), rows(b, t, tb[t])
        if ra != rb:
            ok = False
            print(f"{t}: {len(ra)} rows against {len(rb)}", file=out)
            shown = 0
            for i, (x, y) in enumerate(zip(ra, rb)):
                if x != y:
                    print(f"  row {i}:\n    {x}\n    {y}", file=out)
                    shown += 1
                    if shown == 3:
                        break
    return ok


if __name__ == "__main__":
    sys.exit(0 if same_rows(sys.argv[1], sys.argv[2]) else 1)
