"""`make demo`: exprscope's showcase, run from the terminal.

For now it builds a handful of expressions and prints each as a tree; the
showcase grows with the engine (binding, passes, lazy evaluation, Spark).
"""

from __future__ import annotations

import toolkit as tk


def _tree(expr, indent: str = "") -> list[str]:
    lines = []
    stack = [(expr, "", True, True)]
    while stack:
        node, prefix, last, root = stack.pop()
        label = node.to_string() if not node.is_call else node.name
        lines.append(label if root else f"{prefix}{'└── ' if last else '├── '}{label}")
        child_prefix = prefix if root else prefix + ("    " if last else "│   ")
        args = node.args
        for i in range(len(args) - 1, -1, -1):
            stack.append((args[i], child_prefix, i == len(args) - 1, False))
    return lines


def main() -> None:
    a, b = tk.field("a"), tk.field("b")
    examples = [
        a + 1 > 3,
        tk.if_else(a != 0, b / a, 0),
        tk.case_when([(a > 10, "big"), (a > 0, "small")], else_="none"),
        tk.coalesce(a, b, 0),
        tk.and_(a.is_valid(), tk.not_(b.isin([1, 2, 3]))),
    ]
    for e in examples:
        print(e.to_string())
        print("\n".join("  " + line for line in _tree(e)))
        print()


if __name__ == "__main__":
    main()
