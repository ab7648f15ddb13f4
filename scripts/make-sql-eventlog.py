#!/usr/bin/env python3
"""A real Spark 4.0 SQL application for `sparkyard replay`'s tests (issue 30, item 18: SQL logs).

A DataFrame aggregation of 4 M rows over 400 partitions (spark.sql.shuffle.partitions 400,
adaptive execution off) and a join, 3 jobs, 7 stages, 2,051 tasks of a few to a few hundred ms:
the regime where per-task overheads, not the work, make the time. Recorded on 2026-12-05 with
pyspark 4.0.0 (Java 17) on this 2-core machine under other builds' load:

  spark-submit --master "local-cluster[2,2,1024]" --conf spark.eventLog.enabled=true \
    --conf spark.eventLog.dir=DIR --conf spark.executor.memory=768m scripts/make-sql-eventlog.py

and kept as tests/data/eventlogs/sql_n2_r1.zstd (the rolling directory's one events file); the
same with `local-cluster[1,2,1024]` is sql_n1_r1.zstd (the what-if's target).
"""
from pyspark.sql import SparkSession, functions as F
spark = SparkSession.builder.appName("sql-many-tasks").getOrCreate()
spark.conf.set("spark.sql.shuffle.partitions", "400")
spark.conf.set("spark.sql.adaptive.enabled", "false")
df = spark.range(0, 4_000_000, 1, 400).withColumn("k", F.col("id") % 1000)
agg = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("c"))
print(agg.orderBy("k").limit(5).collect())
other = spark.range(0, 1000, 1, 50).withColumnRenamed("id", "k")
print(agg.join(other, "k").groupBy((F.col("k") % 10).alias("m")).agg(F.sum("s")).count())
spark.stop()
