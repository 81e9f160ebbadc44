"""The import graph: no cycles, imports at the top, the engine importing no UI and no Spark.

Read from the source with `ast`, so a cycle hidden behind an import inside a
function counts as much as one at the top of a module.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGES = ("toolkit", "widgets")
# the parts above the engine: drawing, tracing, explaining dataset scans (each with its
# trace), Spark, the command line, Jupyter
ABOVE_ENGINE = ("toolkit.render", "toolkit.trace", "toolkit.scan", "toolkit.spark",
                "toolkit.cli", "toolkit.demo", "widgets")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _runtime_imports(tree: ast.Module):
    """(import node, inside a function?) for each import that runs (not `if TYPE_CHECKING`)."""
    stack = [(node, False) for node in tree.body]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend((n, in_function) for n in node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Lambda))
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))


def _imports(name: str, path: Path):
    """(line, imported module, at module level?) for every import of the packages' own modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    for node, in_function in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".")
                base = parts if is_package else parts[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from package import submodule` imports the submodule; a name, the package
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module
                       for a in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in PACKAGES and target in MODULES and target != name:
                yield node.lineno, target, not in_function


GRAPH = {name: list(_imports(name, path)) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    edges = {m: sorted({t for _, t, _ in found}) for m, found in GRAPH.items()}
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter[0]
                counter[0] += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out


def test_the_import_graph_has_no_cycles():
    assert _cycles() == []


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["toolkit.expression"].append((0, "toolkit.bind", False))
    try:
        assert any({"toolkit.expression", "toolkit.bind"} <= set(c) for c in _cycles())
    finally:
        GRAPH["toolkit.expression"].pop()


# our own modules that exist to carry a heavy dependency, loaded on first use
CARRIERS = {"toolkit.sql_reader",  # sqlglot
            "toolkit.cli_substrait",  # the substrait package's protobuf classes
            "widgets.substrait_display",  # the same
            "toolkit.spark"}  # pyspark: the CLI's catalyst command and %%catalyst load it


def test_own_modules_are_imported_at_the_top():
    inside = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}"
              for m, found in GRAPH.items() for line, target, at_top in found
              if not at_top and target not in CARRIERS]
    assert inside == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("toolkit.")
                                          and not m.startswith(ABOVE_ENGINE)))
def test_the_engine_imports_nothing_above_it(module):
    above = [target for _, target, _ in GRAPH[module] if target.startswith(ABOVE_ENGINE)]
    assert above == []


def test_the_engine_never_imports_pyspark():
    importing = []
    for module, path in MODULES.items():
        if module.startswith("toolkit.") and not module.startswith(ABOVE_ENGINE):
            for node, _ in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                importing += [f"{module}:{node.lineno}" for n in names if "pyspark" in n]
    assert importing == []
