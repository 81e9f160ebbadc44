"""Hypothesis strategies for random expressions and tables, one module per need.

- `untyped`: expression trees that need not bind (parse/print round trips, hashing,
  rendering);
- `typed`: well-typed trees and guarantees over a small schema, for the pass properties;
- `paired`: well-typed trees of every kind built twice, as exprscope's and as pyarrow's
  `pc.Expression`, with random tables, for comparing evaluation with Acero.

    from tests.strategies.untyped import expressions
"""
