"""Row-for-row comparison of two SQLite databases (the gathered and the one-process file).

Every table of either file (sqlite_* internals aside) must exist in both with the same columns, and
the same rows in the same rowid order (WITHOUT ROWID tables: primary-key order). Indexes must have
the same definitions. Prints the first differences and returns False when they differ.
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
    order = "" if "WITHOUT ROWID" in (sql or "").upper() else " ORDER BY rowid"
    return con.execute(f'SELECT * FROM "{table}"{order}').fetchall()


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
