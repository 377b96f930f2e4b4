"""The one helper of the Python test suites (issue 47, item 5): running the CLI, reading databases.

Where it lives: tests/cli/, next to the suites that use it. A suite run as a script
(`python3 tests/cli/test_x.py`, as ctest does) has its own folder first on sys.path, so the
tests/cli suites import it as is; tests/parity/test_parity.py already puts tests/cli on sys.path
for test_cli's readers, and tests/shard/test_shard.py and test_slurm.py put it there (their own
folder, for dbrows.py, is first on sys.path already).

  run(cmd, args)            the CLI in a subprocess, with a clean environment and a hang guard
  cli_cmd(kind, native, js) the command of the native CLI or of the wasm one under Node (run's cmd)
  log_lines(stdout)         the engine's log lines as (level, message)
  rows(db, sql, params)     the rows of one read-only query, as tuples
  columns(db, table)        a table's columns as written in a real database (PRAGMA table_info)
  declared_columns(table)   a .vis.db table's columns as the engine declares them (core/db/schema.cc)
"""
import os
import pathlib
import re
import sqlite3
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_CC = REPO / "core" / "db" / "schema.cc"

# A hang guard, not a time budget: generous enough for the sanitizer build on a busy machine.
HANG_GUARD_S = 1800

LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(DEBUG|INFO|WARNING|ERROR)\] (.*)$")


class Result:
    """What a run gave: rc, out, err. returncode / stdout / stderr are the same values under
    subprocess.CompletedProcess's names, so assertions written against those read unchanged."""

    def __init__(self, argv, rc, out, err):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err

    returncode = property(lambda self: self.rc)
    stdout = property(lambda self: self.out)
    stderr = property(lambda self: self.err)

    def __repr__(self):
        return "Result(rc=%r, argv=%r)" % (self.rc, self.argv)


def cli_cmd(kind, native, wasm, liftoff=True):
    """The command of one CLI build: kind 'native' is the binary `native`; 'wasm' is `node ... wasm`
    (visprobe.js), with liftoff V8's baseline compiler only (same wasm semantics, less CPU on small
    inputs). Node's runs need NODE_PATH, which run() sets whenever the command starts with node."""
    if kind == "native":
        return [native]
    return ["node", "--no-experimental-fetch"] + (["--liftoff-only"] if liftoff else []) + [wasm]


def run(cmd, args=(), *, env=None, cwd=None, check=False, timeout=HANG_GUARD_S, errors=None):
    """Runs `cmd + args` (cmd: the binary's path, or a list such as cli_cmd(...)) and returns a Result.

    The environment is the caller's without MSPROBE_LOG_LEVEL (the suites read the engine's INFO
    lines), with NODE_PATH for Node, then `env` on top. check: a non-zero exit raises
    AssertionError with the command and both outputs. timeout: a hang guard (subprocess raises
    TimeoutExpired). errors: how undecodable output bytes are decoded (as in subprocess.run)."""
    argv = ([cmd] if isinstance(cmd, (str, os.PathLike)) else list(cmd)) + [str(a) for a in args]
    full_env = dict(os.environ)
    full_env.pop("MSPROBE_LOG_LEVEL", None)
    if os.path.basename(str(argv[0])) == "node":
        full_env.setdefault("NODE_PATH", "/usr/share/nodejs")
    full_env.update(env or {})
    p = subprocess.run(argv, capture_output=True, text=True, errors=errors, env=full_env, cwd=cwd, timeout=timeout)
    r = Result(argv, p.returncode, p.stdout, p.stderr)
    if check and r.rc != 0:
        raise AssertionError("%s exited %d:\n%s\n%s" % (" ".join(map(str, argv)), r.rc, r.out, r.err))
    return r


def log_lines(stdout):
    """The engine's log lines of an output, as (level, message); other lines are left out."""
    return [(m.group(1), m.group(2)) for m in map(LOG_LINE.match, stdout.splitlines()) if m]


def _read_only(db):
    return sqlite3.connect(pathlib.Path(db).resolve().as_uri() + "?mode=ro", uri=True)


def rows(db, sql, params=()):
    """The rows of one query on the database file `db` (opened read-only), as tuples."""
    con = _read_only(db)
    try:
        return [tuple(r) for r in con.execute(sql, params)]
    finally:
        con.close()


def columns(db, table):
    """The columns of `table` in the database file `db`, in order, as written (PRAGMA table_info)."""
    return [r[1] for r in rows(db, 'PRAGMA table_info("%s")' % table)]


def declared_schema(table):
    """[(column, declared type), ...] of a .vis.db table as core/db/schema.cc declares it (the one
    declaration both builds create their tables from): the TableDef{"<table>", {{"col", "TYPE"}, ...}}."""
    text = SCHEMA_CC.read_text()
    m = re.search(r'TableDef\s+\w+\{"%s",\s*\{(.*?)\}\};' % re.escape(table), text, re.S)
    if not m:
        raise LookupError("%s declares no table %s" % (SCHEMA_CC, table))
    return re.findall(r'\{"(\w+)",\s*"([^"]*)"\}', m.group(1))


def declared_columns(table):
    """The column names of a .vis.db table (tb_nodes, tb_config, tb_stack, vp_badges) as the engine declares them."""
    return [name for name, _ in declared_schema(table)]
