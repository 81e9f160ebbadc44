"""The import graph: no cycles, no import from a folder to one above it, imports at the top.

Read from the source with `ast`, so a cycle hidden behind an import inside a function
counts as much as one at the top of a module. Late imports are edges too: every module
path `toolkit.support.late` loads is a string literal in a `late.module(...)` or
`late.declare(...)` call (its rules are in that module's docstring), counted from the
module that declares it. The order of the folders is the one docs/architecture.md
draws, read from its "Import order" block, so the page and the test cannot disagree.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGES = ("toolkit", "widgets")
LATE = "toolkit.support.late"


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


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


def _late_declarations(tree: ast.Module):
    """(line, module path) for each string a module hands to `late.module` / `late.declare`."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "late"
                and node.func.attr in ("module", "declare")):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    yield node.lineno, inner.value


def _imports(name: str, path: Path):
    """(line, imported module, how) for every import of the packages' own modules; how is
    "top", "function" (inside a function) or "late" (declared to toolkit.support.late)."""
    tree = TREES[name]
    is_package = path.name == "__init__.py"
    for node, in_function in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
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
        for target in targets:
            if target.split(".")[0] in PACKAGES and target in MODULES and target != name:
                yield node.lineno, target, "function" if in_function else "top"
    for line, target in _late_declarations(tree):
        if target in MODULES and target != name:
            yield line, target, "late"


GRAPH = {name: list(_imports(name, path)) for name, path in MODULES.items()}


def documented_order() -> list[str]:
    """The folders bottom first, as docs/architecture.md's "Import order" block lists them
    top first: `toolkit/x/` is a folder, `toolkit/x.py` one module."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"## Import order.*?```text\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no Import order block"
    entries = [line.split()[0] for line in block.group(1).splitlines()
               if line.strip() and line.split()[0].startswith(PACKAGES)]
    return list(reversed(entries))


ORDER = documented_order()


def place(module: str) -> str:
    """The entry of the documented order a module belongs to: the longest that holds it."""
    best = None
    for entry in ORDER:
        if entry.endswith(".py"):
            holds = module == entry.removesuffix(".py").replace("/", ".").removesuffix(
                ".__init__")
        else:
            prefix = entry.rstrip("/").replace("/", ".")
            holds = module == prefix or module.startswith(prefix + ".")
        if holds and (best is None or len(entry) > len(best)):
            best = entry
    return best


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
    GRAPH["toolkit.model.expression"].append((0, "toolkit.functions.bind", "late"))
    try:
        assert any({"toolkit.model.expression", "toolkit.functions.bind"} <= set(c)
                   for c in _cycles())
    finally:
        GRAPH["toolkit.model.expression"].pop()


def test_late_imports_are_edges_of_the_graph():
    # the root declares where the operations of lower objects are done, and the parser
    # its sqlglot reader: both late, both seen
    assert ("toolkit.functions.bind", "late") in {(t, how) for _, t, how in GRAPH["toolkit"]}
    assert ("toolkit.sql.reader", "late") in {(t, how) for _, t, how in GRAPH["toolkit.sql.parse"]}


def test_every_module_has_a_place_in_the_documented_order():
    assert [m for m in MODULES if place(m) is None] == []


def _upward(module: str, target: str) -> bool:
    # a package's __init__ is its table of contents: it may name anything inside it
    if MODULES[module].name == "__init__.py" and target.startswith(module + "."):
        return False
    return ORDER.index(place(target)) > ORDER.index(place(module))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_runs_up_the_documented_order(module):
    up = [f"{MODULES[module].relative_to(ROOT)}:{line} imports {target} ({how}), "
          f"which is in {place(target)}, above {place(module)}"
          for line, target, how in GRAPH[module] if _upward(module, target)]
    assert up == []


def test_the_order_finder_finds_an_upward_import():
    GRAPH["toolkit.model.expression"].append((0, "toolkit.render", "late"))
    try:
        assert _upward("toolkit.model.expression", "toolkit.render")
    finally:
        GRAPH["toolkit.model.expression"].pop()


def test_own_modules_are_imported_at_the_top_or_declared_late():
    inside = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}"
              for m, found in GRAPH.items() for line, target, how in found
              if how == "function"]
    assert inside == []


def test_only_the_late_loader_imports_by_name():
    by_name = []
    for module, tree in TREES.items():
        if module == LATE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                if called in ("importlib.import_module", "__import__", "import_module"):
                    by_name.append(f"{module}:{node.lineno}")
    assert by_name == []


def _names_bound_in(tree: ast.Module) -> set[str]:
    bound = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            bound.update(a.asname or a.name for a in node.names
                         if not (node.level == 1 and node.module is None and not a.asname))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound.update(n.id for t in node.targets for n in ast.walk(t)
                         if isinstance(n, ast.Name))
    return bound


# subpackages whose functions are named after their modules on purpose (a pass is
# named after its function), reached through toolkit's own names (tk.canonicalize)
NAMED_AFTER_THEIR_FUNCTION = {
    "toolkit.passes": {"canonicalize", "fold_constants", "is_satisfiable", "optimize",
                       "remove_named_refs", "simplify_identities",
                       "simplify_with_guarantee"},
}


@pytest.mark.parametrize("package", sorted(m for m, p in MODULES.items()
                                           if p.name == "__init__.py"))
def test_no_name_of_a_package_shadows_its_module(package):
    """`tk.bind` is the function: no module of toolkit's root may be called bind."""
    folder = MODULES[package].parent
    submodules = ({p.stem for p in folder.glob("*.py")} - {"__init__"}) | {
        d.name for d in folder.iterdir() if (d / "__init__.py").exists()}
    shadowed = (submodules & _names_bound_in(TREES[package])) - NAMED_AFTER_THEIR_FUNCTION.get(
        package, set())
    assert shadowed == set()


def test_the_public_functions_are_functions():
    import toolkit

    for name in ("bind", "parse", "trace"):
        assert callable(getattr(toolkit, name))
        assert f"toolkit.{name}" not in MODULES  # no module or package of that name


def test_the_engine_never_imports_pyspark():
    importing = []
    for module, tree in TREES.items():
        if module.startswith("toolkit.") and not module.startswith(("toolkit.spark",
                                                                    "toolkit.cli")):
            for node, _ in _runtime_imports(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                importing += [f"{module}:{node.lineno}" for n in names if "pyspark" in n]
            importing += [f"{module}:{line}" for line, target in _late_declarations(tree)
                          if "pyspark" in target]
    assert importing == []
