"""exprscope -> Spark: expressions as pyspark Columns, Arrow types and data as Spark's."""
