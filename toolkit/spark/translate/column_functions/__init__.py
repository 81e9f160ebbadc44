"""The translators from exprscope's function catalog to pyspark Columns, one module per domain.

One entry per catalog name: `translate(call, args, types) -> Column`, where
`args` are the arguments already translated and `types` their Arrow types
(None when the expression is unbound). Where Spark's own function differs from
Arrow's, the translation adds what makes the result Arrow's; the differences:

- integer `divide`: Arrow truncates (int result) and fails on a zero divisor;
  Spark's `/` returns a double. Translated as integral division, failing on zero.
- float `divide`: Arrow follows IEEE (x/0 = ±inf, 0/0 = NaN); Spark returns null
  or fails (ANSI). Translated to IEEE results (a divisor of -0.0 counts as +0.0).
- comparisons of floats: Arrow follows IEEE (NaN equals nothing, not even NaN);
  Spark orders NaN above everything and NaN = NaN. Translated to IEEE.
- `if_else` with a null condition gives null in Arrow, the else value in Spark.
- `is_in`/`index_in` never give null for a null input in Arrow (it matches a
  null in the value set unless skip_nulls); Spark's IN gives null.
- `is_nan(null)` is null in Arrow, false in Spark.
- `and`/`or` (plain, not Kleene): any null gives null.
- `add`/`subtract`/`multiply` on integers wrap on overflow in Arrow; Spark fails
  in ANSI mode (Spark 4's default) and wraps otherwise. Not emulated: an
  overflow fails on Spark. The `_checked` variants fail on both sides.
- `floor`/`ceil`/`trunc`/`power`/temporal fields: Spark's result type differs
  (long, double, int); cast back to Arrow's type.
- `round`: Spark's `round` is Arrow's half_towards_infinity, `bround` its
  half_to_even; other modes only for ndigits=0 (floor/ceil/trunc).
- `day_of_week`: Arrow counts from Monday=0 by default (DayOfWeekOptions);
  Spark's `dayofweek` from Sunday=1. Translated through `weekday` (Monday=0).
"""

from . import (  # noqa: F401  (each module registers its translators)
    arithmetic,
    cast,
    comparison,
    conditional,
    logic,
    nulls,
    same_meaning,
    sets,
    strings,
    temporal,
)
from .common import STRUCTURAL_TRANSLATORS, TRANSLATORS, untranslatable
from .same_meaning import SAME_MEANING

__all__ = ["SAME_MEANING", "STRUCTURAL_TRANSLATORS", "TRANSLATORS", "untranslatable"]
