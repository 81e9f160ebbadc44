"""Spark -> exprscope: a Spark query's expressions and plan (py4j or Spark Connect) as exprscope's."""
