"""exprscope's engine and everything that explains it.

    import toolkit as tk
    e = tk.parse("if(a != 0, b / a, 0)")
    with tk.trace() as t:
        tk.evaluate(tk.optimize(e, table.schema), table)
    tk.write_report(t, "report.html")

The public names are re-exported here; see docs/ for the guide.
"""

# -- plans: `from toolkit import plan` --
from . import plan  # noqa: F401,E402
from . import to_sql as _to_sql  # noqa: F401  (provides Expression.to_sql)
from .bind import bind  # noqa: F401
from .builders import (  # noqa: F401
    and_,
    call,
    case_when,
    cast,
    coalesce,
    equal,
    field,
    greater,
    greater_equal,
    if_else,
    is_null,
    is_valid,
    less,
    less_equal,
    literal,
    make_struct,
    not_,
    not_equal,
    or_,
    project,
)
from .errors import (  # noqa: F401
    ArityError,
    BindError,
    BuildError,  # noqa: F401
    ExprscopeError,
    FieldRefError,
    KernelError,
    NoKernelError,
    ParseError,
    UnboundError,
    UnknownFunctionError,
)

# -- evaluation and special forms --
from .execution import SelectionVector, evaluate  # noqa: F401
from .expression import Call, Expression, Literal, Parameter, from_pyarrow  # noqa: F401
from .field_ref import FieldPath, FieldRef  # noqa: F401

# -- functions and bind --
from .functions import (  # noqa: F401
    Function,
    FunctionKind,
    Kernel,
    NullHandling,
    describe,
    function_names,
    get_function,
)
from .observe import Observer, observing  # noqa: F401

# -- parse --
from .parse import parse  # noqa: F401

# -- passes --
from .passes import (  # noqa: F401
    DEFAULT_PASSES,
    canonicalize,
    extract_known_field_values,
    fold_constants,
    is_satisfiable,
    optimize,
    remove_named_refs,
    replace_fields_with_known_values,
    simplify_identities,
    simplify_with_guarantee,
)
from .render import to_dot, to_svg, to_text, write_report  # noqa: F401
from .scan import explain_scan  # noqa: F401

# -- trace and render --
from .trace import Trace, trace  # noqa: F401
from .visit import modify_expression, node_at, walk  # noqa: F401
