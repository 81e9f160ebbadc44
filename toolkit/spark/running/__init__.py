"""Running exprscope's plans and expressions on Spark: natively, or inside Spark's partitions,
and comparing the two."""
