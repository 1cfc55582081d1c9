"""Runs scaling.duckdb.sql over an aggregate directory with DuckDB's Python package, with the
exact-permutation p of small groups (n <= 10) as a Python UDF (spearman_p.py), and prints the
hotspots as JSON lines (one object per (metric, variant, semantic frame) group).

    python3 scaling_duckdb.py DIR [--medians]

Needs: pip install duckdb (tested with 1.5.6).
"""

import json
import os
import sys

import duckdb
DOUBLE = duckdb.sqltype("DOUBLE")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spearman_p  # noqa: E402


def connect(directory):
    """A connection whose working directory is the aggregate directory, with the UDF."""
    os.chdir(directory)
    con = duckdb.connect()
    con.create_function(
        "spearman_exact_p",
        spearman_p.exact_p,
        [duckdb.list_type(DOUBLE), duckdb.list_type(DOUBLE)],
        DOUBLE,
    )
    return con


def main():
    directory = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "scaling.duckdb.sql"), encoding="utf-8") as f:
        sql = f.read()
    con = connect(directory)
    con.execute(sql)
    table = "scaling_medians" if "--medians" in sys.argv[2:] else "scaling_hotspots"
    cur = con.execute(f"SELECT * FROM {table}")
    names = [d[0] for d in cur.description]
    out = sys.stdout
    for row in cur.fetchall():
        out.write(json.dumps(dict(zip(names, row))) + "\n")


if __name__ == "__main__":
    main()
