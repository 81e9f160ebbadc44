"""exprscope's engine and everything that explains it.

    import toolkit as tk
    e = tk.parse("if(a != 0, b / a, 0)")
    with tk.trace() as t:
        tk.evaluate(tk.optimize(e, table.schema), table)
    tk.write_report(t, "report.html")

The public names are re-exported here; see docs/ for the guide.
"""


from .errors import (  # noqa: F401
    ArityError,
    BindError,
    BuildError,
    EndlessCallError,
    ExprscopeError,
    FieldRefError,
    KernelError,
    NoKernelError,
    ParseError,
    SubstraitError,
    UnboundError,
    UnknownFunctionError,
    UnknownFunctionNameError,
)
from .execution import SelectionVector, evaluate  # noqa: F401
from .functions import (  # noqa: F401
    Function,
    FunctionKind,
    Kernel,
    NullHandling,
    describe,
    function_names,
    get_function,
)
from .functions.bind import bind  # noqa: F401
from .model.builders import (  # noqa: F401
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
from .model.expression import Call, Expression, Literal, Parameter, from_pyarrow  # noqa: F401
from .model.field_ref import FieldPath, FieldRef  # noqa: F401
from .model.visit import modify_expression, node_at, walk  # noqa: F401
from .observe import Observer, observing  # noqa: F401
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
from .sql.parse import parse  # noqa: F401
from .support import late
from .tracing import Trace, trace  # noqa: F401

# Plans, drawing and scan explanation (the planner and its rules, graphviz
# helpers, the HTML report, the dataset machinery) are half of the package's
# import time, and Substrait's protobuf classes as much again. They load on first use
# of one of these names (PEP 562), so `import toolkit` stays close to
# `import pyarrow.compute` for scripts that only build and evaluate expressions.
late.declare(__name__, {
    "plan": "toolkit.plan",
    "to_dot": "toolkit.render",
    "to_svg": "toolkit.render",
    "to_text": "toolkit.render",
    "write_report": "toolkit.render",
    "explain_scan": "toolkit.scan",
    "explain_row": "toolkit.explain",
    "RowStory": "toolkit.explain",
    "RowStories": "toolkit.explain",
    "from_substrait": "toolkit.interop",
    "from_substrait_all": "toolkit.interop",
    "to_substrait": "toolkit.interop",
})
# `plan.from_substrait` reads a Substrait plan into the plans the reader builds on, so
# it lives above toolkit.plan; this package, above both, says where it is
late.declare("toolkit.plan", {"from_substrait": "toolkit.interop.substrait.plans"})
# the methods of the engine's objects whose work lives in a folder above the object's
late.declare(late.OPERATIONS, {
    "bind": "toolkit.functions.bind",
    "to_sql": "toolkit.sql.to_sql",
    "explain_plan": "toolkit.plan.explain",
    "render": "toolkit.render",
    "to_substrait": "toolkit.interop.substrait.expressions",
    "plan_to_substrait": "toolkit.interop.substrait.plans",
    "row_story_to_json": "toolkit.explain.story_json",
    "row_story_from_json": "toolkit.explain.story_json",
    "explain_plan_row": "toolkit.explain.journey",
    "why_not": "toolkit.explain.journey",
})

__getattr__, __dir__ = late.names(__name__)
