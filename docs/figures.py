"""The pictures of docs/concepts.md, drawn by exprscope itself on the Palmer penguins.

Run: python docs/figures.py [OUT_DIR]      (default: docs/images)

Each figure is the SVG `tk.to_svg` makes of a real object: a bound expression,
one optimization pass as a diff, a lazy evaluation with its selection vectors,
an optimized plan, and a failing invariant check. Regenerating them after an
engine change keeps the guide honest. docs/architecture.md's picture of the folders
and their imports is drawn from the import graph the tests check.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def penguins():
    import pyarrow as pa
    from palmerpenguins import load_penguins

    return pa.Table.from_pandas(load_penguins(), preserve_index=False)


def figures() -> dict[str, object]:
    """{file name: the object whose picture it is}."""
    import toolkit as tk
    from toolkit import plan

    table = penguins()
    schema = table.schema

    bound = tk.parse("year + 1.5 > bill_length_mm / bill_depth_mm").bind(schema)

    with tk.trace() as passes:
        tk.optimize(tk.parse("year = 2008 and 40 < bill_length_mm and (1 + 1 = 3 or species = 'Gentoo')"),
                    schema, guarantee=tk.parse("year = 2008"))
    changed_pass = next(step for step in passes.steps if step.changed)

    with tk.trace() as evaluation:
        tk.evaluate(tk.parse("if(bill_depth_mm > 18, bill_length_mm / bill_depth_mm, 0)"),
                    table.slice(0, 24))

    query = (plan.scan("penguins", table)
             .filter(tk.field("year") > 2007)
             .project(["species", tk.field("body_mass_g") / 1000], names=["species", "mass_kg"])
             .filter(tk.field("mass_kg") > 4)
             .aggregate(["species"], [("count", "species", "n")]))

    class DropsLastColumn(plan.Rule):
        """A deliberately broken rule: it changes the plan's schema."""

        name = "drops_last_column"
        order = "plan"

        def rewrite(self, p, ctx):
            return self.fired(p.project(p.schema.qualified_names[:-1]), "drops the last column")

    with tk.trace() as broken:
        try:
            plan.optimize(plan.scan("penguins", table).project(["species", "island"]),
                          rules=[DropsLastColumn()])
        except plan.InvariantViolation:
            pass
    failed_check = next(s for s in broken.steps if getattr(s, "passed", True) is False)

    return {
        "expression-tree.svg": bound,
        "pass-diff.svg": changed_pass,
        "selection-vectors.svg": evaluation.steps[-1],
        "plan.svg": plan.optimize(query),
        "invariant-violation.svg": failed_check,
    }


def folder_graph() -> tuple[list[str], set[tuple[str, str]]]:
    """(the documented order, top first; the folder-to-folder imports a folder does not
    already reach through another), read by tests/test_import_graph.py's own reader, so
    the picture shows the graph the test holds to the order."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "tests" / "test_import_graph.py")
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    edges = {(graph.place(module), graph.place(target))
             for module, found in graph.GRAPH.items() for _, target, _ in found
             if module == "toolkit" or not (graph.MODULES[module].name == "__init__.py"
                                            and target.startswith(module + "."))}
    edges = {(a, b) for a, b in edges if a != b}
    reach = {a: {b for x, b in edges if x == a} for a in graph.ORDER}
    changed = True
    while changed:  # the transitive closure, to leave out the arrows it implies
        changed = False
        for a in reach:
            more = set().union(*(reach[b] for b in reach[a])) - reach[a]
            if more:
                reach[a] |= more
                changed = True
    direct = {(a, b) for a, b in edges
              if not any(b in reach[c] for x, c in edges if x == a and c != b)}
    return list(reversed(graph.ORDER)), direct


def layout_dot() -> str:
    """The folders, top first, each above what it imports."""
    order, edges = folder_graph()

    def label(entry: str) -> str:
        return entry.removeprefix("toolkit/") if entry != "toolkit/__init__.py" else (
            "toolkit/__init__.py (the public API)")

    lines = ["digraph layout {", '  graph [rankdir=TB, nodesep=0.25, ranksep=0.3, '
             'fontname="Helvetica"];', '  node [shape=box, style="rounded,filled", '
             'fillcolor="#eef3fb", color="#5b7bb2", fontname="Helvetica", fontsize=11];',
             '  edge [color="#7f8c9f", arrowsize=0.6];']
    for entry in order:
        lines.append(f'  "{entry}" [label="{label(entry)}"];')
    for upper, lower in zip(order, order[1:]):  # one rank per entry, in the order
        lines.append(f'  "{upper}" -> "{lower}" [style=invis, weight=10];')
    for a, b in sorted(edges):
        lines.append(f'  "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    import graphviz

    import toolkit as tk

    out = Path(argv[1]) if len(argv) > 1 else DOCS / "images"
    out.mkdir(parents=True, exist_ok=True)
    for name, obj in figures().items():
        (out / name).write_text(tk.to_svg(obj), encoding="utf-8")
        print(f"docs: drew {out / name}")
    layout = graphviz.Source(layout_dot()).pipe(format="svg").decode("utf-8")
    (out / "layout.svg").write_text(layout, encoding="utf-8")
    print(f"docs: drew {out / 'layout.svg'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
