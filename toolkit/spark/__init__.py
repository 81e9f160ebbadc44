"""exprscope on Spark: the embedded session, Column translation, running plans, imports.

    from toolkit import spark as tks
    tks.session()                        # the active SparkSession, or an embedded local one
    tks.to_column(e, schema)             # a pyspark Column with Arrow's semantics
    tks.run(p_or_expr, df, mode="native" | "engine")
    tks.compare(p_or_expr, df)           # rows where native Spark and exprscope disagree
    tks.from_spark(df_or_column)         # a Spark query's expressions as exprscope's
    tks.explain_row(df, "x = 1")        # a source row's journey through a Spark query
    tks.catalyst_steps(df_or_sql)        # Spark's own planning, one step per rule that changed it

`import toolkit` never imports this package (nor pyspark); import it explicitly.
"""

from .active_session import session  # noqa: F401
from .catalyst import CatalystStep, CatalystSteps, catalyst_steps, filter_pushdown  # noqa: F401
from .errors import (  # noqa: F401
    SparkError,
    SparkImportError,
    SparkSchemaMismatch,
    SparkTranslationError,
    SparkUnavailableError,
)
from .reading.from_spark import from_spark  # noqa: F401
from .running.compare import Comparison, Difference, compare  # noqa: F401
from .running.engine_trace import EngineTrace  # noqa: F401
from .running.explain_row import explain_row  # noqa: F401
from .running.run import SparkRun, run  # noqa: F401
from .running.source import SparkSource  # noqa: F401  (importing it lets plan.scan read DataFrames)
from .translate.dataframe import dataframe  # noqa: F401
from .translate.to_column import to_column, translatable_names  # noqa: F401
from .translate.types import from_spark_type, to_spark_type, to_struct_type  # noqa: F401
