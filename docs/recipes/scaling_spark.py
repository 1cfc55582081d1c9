"""trialscope's scaling analysis over the Parquet aggregates of `trialscope summarize`, in
Spark (PySpark; local mode or a cluster): the same numbers as scaling.duckdb.sql and as
`trialscope scaling --metric M --json` (tests/it/summarize.rs checks rho to 1e-12, q to 1e-9).

    python3 scaling_spark.py DIR            # local[*]; on a cluster: spark-submit scaling_spark.py DIR

DIR may be any path Spark reads (a local folder, s3a://..., hdfs://...), holding the tables
trials/, frame_costs/ and frames/ (docs/parquet-schema.md). Prints one JSON object per tested
(metric, variant, semantic frame) group.

Everything is Spark SQL — zero-filling, average ranks by window functions, rho, BH q by a
window over all tested groups of a metric — except the p-value, which is a Python UDF
(spearman_p.py): the exact permutation p for n <= 10 trials and the t approximation (df = n - 2)
above, as trialscope computes them. Needs: pip install pyspark (tested with 4.0.5, Java 17).
"""

import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import DoubleType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spearman_p  # noqa: E402

SQL_VALS = """
WITH groups AS (
    SELECT DISTINCT u.variant, c.semantic_frame_id
    FROM costs c JOIN usable u ON c.artifact_id = u.artifact_id
),
metrics AS (SELECT * FROM VALUES ('inclusive'), ('self'), ('count') AS m(metric))
SELECT g.variant, g.semantic_frame_id, m.metric, u.artifact_id, u.x,
       CASE WHEN c.artifact_id IS NULL THEN 0D
            WHEN m.metric = 'inclusive' THEN CAST(c.inclusive_ns AS DOUBLE)
            WHEN m.metric = 'self' THEN CAST(c.self_ns AS DOUBLE)
            ELSE CAST(c.count AS DOUBLE) END AS y,
       c.artifact_id IS NULL AS zero_filled
FROM groups g
JOIN usable u ON u.variant = g.variant
CROSS JOIN metrics m
LEFT JOIN costs c ON c.artifact_id = u.artifact_id AND c.semantic_frame_id = g.semantic_frame_id
WHERE c.artifact_id IS NOT NULL OR NOT u.data_loss
"""

SQL_MEDIANS = """
SELECT variant, semantic_frame_id, metric, x AS input, median(y) AS median, count(*) AS trials,
       count_if(zero_filled) AS zero_filled
FROM vals GROUP BY variant, semantic_frame_id, metric, x
"""

SQL_RANKED = """
SELECT variant, semantic_frame_id, metric, x, y,
       count(*) OVER (PARTITION BY variant, semantic_frame_id, metric) AS n,
       rank() OVER (PARTITION BY variant, semantic_frame_id, metric ORDER BY x)
         + CAST(count(*) OVER (PARTITION BY variant, semantic_frame_id, metric, x) - 1 AS DOUBLE) / 2D AS rx,
       rank() OVER (PARTITION BY variant, semantic_frame_id, metric ORDER BY y)
         + CAST(count(*) OVER (PARTITION BY variant, semantic_frame_id, metric, y) - 1 AS DOUBLE) / 2D AS ry
FROM vals
"""

SQL_TESTED = """
WITH g AS (
    SELECT variant, semantic_frame_id, metric, first(n) AS n, count(DISTINCT x) AS distinct_inputs,
           sum((rx - (n + 1) / 2D) * (ry - (n + 1) / 2D)) AS sab,
           sum((rx - (n + 1) / 2D) * (rx - (n + 1) / 2D)) AS saa,
           sum((ry - (n + 1) / 2D) * (ry - (n + 1) / 2D)) AS sbb,
           array_sort(collect_list(struct(rx, ry))) AS pairs,
           min(x) AS supported_min, max(x) AS supported_max
    FROM ranked GROUP BY variant, semantic_frame_id, metric
),
r AS (
    SELECT *, CASE WHEN saa * sbb > 0 THEN greatest(-1D, least(1D, sab / sqrt(saa * sbb))) END AS rho
    FROM g WHERE n >= 3 AND distinct_inputs >= 2
),
p AS (
    SELECT variant, semantic_frame_id, metric, n, distinct_inputs, supported_min, supported_max, rho,
           spearman_p(rho, n, transform(pairs, e -> e.rx), transform(pairs, e -> e.ry)) AS p_value,
           CASE WHEN n <= 10 THEN 'exact_permutation' ELSE 't_distribution' END AS p_method
    FROM r WHERE rho IS NOT NULL AND NOT isnan(rho)
)
SELECT * FROM p WHERE p_value IS NOT NULL AND NOT isnan(p_value)
"""

SQL_HOTSPOTS = """
WITH ordered AS (
    SELECT *, count(*) OVER (PARTITION BY metric) AS m,
           row_number() OVER (PARTITION BY metric ORDER BY p_value, semantic_frame_id, variant) AS i
    FROM tested
),
q AS (
    SELECT *, least(1D, min(p_value * m / i) OVER (PARTITION BY metric ORDER BY i DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) AS q_value
    FROM ordered
),
f AS (
    SELECT semantic_frame_id, first(provider) AS provider, first(name) AS name,
           first(category) AS category, first(file) AS file, first(line) AS line,
           first(function) AS function, first(posted_from) AS posted_from
    FROM frames GROUP BY semantic_frame_id
)
SELECT q.variant, q.semantic_frame_id, q.metric, f.provider, f.name, f.category, f.file, f.line,
       f.function, f.posted_from, q.n AS trials, q.distinct_inputs, q.supported_min,
       q.supported_max, q.n - 2 AS df, q.rho, q.p_value, q.p_method, q.q_value,
       q.m AS tested_hypotheses
FROM q LEFT JOIN f ON q.semantic_frame_id = f.semantic_frame_id
ORDER BY q.metric, abs(q.rho) DESC, q.q_value, q.semantic_frame_id
"""


def spark_session():
    """A local session (unless spark-submit gave a master) using this Python for the UDFs."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (
        SparkSession.builder.appName("trialscope-scaling")
        .master(os.environ.get("SPARK_MASTER", "local[*]"))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", os.environ.get("SPARK_SHUFFLE_PARTITIONS", "8"))
        .getOrCreate()
    )


def hotspots(spark, directory):
    """The tested groups of every metric as a DataFrame (and the per-input medians as the
    temporary view `scaling_medians`)."""
    # Ship spearman_p.py to the executors (the UDF's module).
    spark.sparkContext.addPyFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "spearman_p.py"))
    spark.udf.register("spearman_p", spearman_p.p_value, DoubleType())
    spark.read.parquet(os.path.join(directory, "trials")).createOrReplaceTempView("trials")
    spark.read.parquet(os.path.join(directory, "frame_costs")).createOrReplaceTempView("frame_costs")
    spark.read.parquet(os.path.join(directory, "frames")).createOrReplaceTempView("frames")
    spark.sql(
        "SELECT artifact_id, variant, input AS x, coalesce(data_loss, false) AS data_loss "
        "FROM trials WHERE status = 'ok' AND input IS NOT NULL AND NOT isnan(input) "
        "AND abs(input) != double('inf')"
    ).createOrReplaceTempView("usable")
    spark.sql(
        "SELECT c.* FROM frame_costs c LEFT SEMI JOIN usable u ON c.artifact_id = u.artifact_id"
    ).createOrReplaceTempView("costs")
    spark.sql(SQL_VALS).cache().createOrReplaceTempView("vals")
    spark.sql(SQL_MEDIANS).createOrReplaceTempView("scaling_medians")
    spark.sql(SQL_RANKED).createOrReplaceTempView("ranked")
    spark.sql(SQL_TESTED).cache().createOrReplaceTempView("tested")
    return spark.sql(SQL_HOTSPOTS)


def main():
    spark = spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    for directory in sys.argv[1:]:
        for row in hotspots(spark, directory).toLocalIterator():
            d = row.asDict()
            d["dir"] = directory
            sys.stdout.write(json.dumps(d) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
