"""Why a pyarrow dataset scan reads the files and row groups it reads.

`explain_scan(dataset, filter)` replays the two decisions Arrow's scanner makes
before it reads any data, with exprscope's passes, and keeps what each one saw:

1. Partitions (`Dataset::GetFragments`): the filter is simplified with the
   dataset's own partition expression, then with each fragment's
   (`fragment.partition_expression`, e.g. `year == 2021` from a hive path);
   a fragment whose simplified filter is not satisfiable is skipped.
2. Row groups (`ParquetFileFragment::FilterRowGroups`), for each kept Parquet
   file: every row group's column statistics give a guarantee
   (`statistics_guarantee.py`); the filter already simplified with the
   partition is simplified again with it, and unsatisfiable row groups are skipped.

The verdicts are Arrow's (the tests hold them to `dataset.get_fragments(filter=)`
and `fragment.subset(filter=)`); a skip comes with the shortest clash that
explains it. Each fragment's `.trace` replays its partition simplification
under a tracer when first read, so explaining a thousand files stays cheap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.dataset as ds

from ..errors import ExprscopeError
from ..expression import Expression, Literal, as_expression, preorder
from ..parse import parse
from ..passes import is_satisfiable, simplify_with_guarantee
from ..trace import Trace, trace
from .skip_reason import skip_reason
from .statistics_guarantee import row_group_guarantee

__all__ = ["FragmentVerdict", "RowGroupVerdict", "ScanExplanation", "explain_scan"]

TRUE = Literal(pa.scalar(True))


@dataclass(frozen=True)
class RowGroupVerdict:
    """One Parquet row group: what its statistics guarantee and whether the scan reads it."""

    id: int
    kept: bool
    guarantee: Expression
    simplified: Expression
    num_rows: int
    bytes: int
    reason: str | None = None


@dataclass(frozen=True)
class FragmentVerdict:
    """One file (fragment): its partition guarantee, the filter under it, and the verdict."""

    path: str
    kept: bool
    guarantee: Expression
    simplified: Expression
    filter: Expression = field(repr=False)
    num_rows: int | None = None
    bytes: int | None = None
    row_groups: tuple[RowGroupVerdict, ...] = ()
    reason: str | None = None

    @functools.cached_property
    def trace(self) -> Trace:
        """Every pass of the partition simplification, recorded by replaying it."""
        with trace() as recorded:
            simplify_with_guarantee(self.filter, self.guarantee)
        return recorded

    @property
    def rows_kept(self) -> int | None:
        if not self.kept:
            return 0
        if not self.row_groups:
            return self.num_rows
        return sum(g.num_rows for g in self.row_groups if g.kept)

    @property
    def bytes_kept(self) -> int | None:
        if not self.kept:
            return 0
        if not self.row_groups:
            return self.bytes
        return sum(g.bytes for g in self.row_groups if g.kept)


@dataclass(frozen=True)
class ScanExplanation:
    """The whole scan: every fragment's verdict and what is read against the whole."""

    filter: Expression
    fragments: tuple[FragmentVerdict, ...]
    dataset_guarantee: Expression = TRUE

    @property
    def files(self) -> tuple[int, int]:
        return sum(f.kept for f in self.fragments), len(self.fragments)

    @property
    def row_groups(self) -> tuple[int, int]:
        groups = [g for f in self.fragments for g in f.row_groups]
        return sum(g.kept and f.kept for f in self.fragments for g in f.row_groups), len(groups)

    @property
    def rows(self) -> tuple[int, int]:
        return (sum(f.rows_kept or 0 for f in self.fragments),
                sum(f.num_rows or 0 for f in self.fragments))

    @property
    def bytes(self) -> tuple[int, int]:
        return (sum(f.bytes_kept or 0 for f in self.fragments),
                sum(f.bytes or 0 for f in self.fragments))

    def __repr__(self) -> str:
        kept, total = self.files
        groups_kept, groups = self.row_groups
        return (f"<ScanExplanation {self.filter}: {kept:,} of {total:,} files, "
                f"{groups_kept:,} of {groups:,} row groups>")


def explain_scan(dataset: ds.Dataset, filter) -> ScanExplanation:
    """Explain which fragments and row groups a scan of `dataset` with `filter` reads."""
    if not isinstance(dataset, ds.Dataset):
        raise ExprscopeError(
            f"explain_scan takes a pyarrow.dataset.Dataset, got {type(dataset).__name__}")
    predicate = _bound_filter(filter, dataset.schema)
    dataset_guarantee = as_expression(dataset.partition_expression)
    predicate = simplify_with_guarantee(predicate, dataset_guarantee)
    dataset_open = is_satisfiable(predicate)
    verdicts = []
    for fragment in dataset.get_fragments():
        verdicts.append(_fragment_verdict(fragment, predicate, dataset_open))
    return ScanExplanation(predicate, tuple(verdicts), dataset_guarantee)


def _bound_filter(filter, schema: pa.Schema) -> Expression:
    expr = parse(filter) if isinstance(filter, str) else as_expression(filter)
    bound = expr.bind(schema)
    if bound.type is not None and bound.type != pa.bool_():
        raise ExprscopeError(f"a scan filter must be boolean; {expr} is {bound.type}")
    return bound


def _fragment_verdict(fragment, predicate: Expression, dataset_open: bool) -> FragmentVerdict:
    guarantee = as_expression(fragment.partition_expression)
    simplified = simplify_with_guarantee(predicate, guarantee)
    kept = dataset_open and is_satisfiable(simplified)
    path = getattr(fragment, "path", None) or str(fragment)
    metadata = _parquet_metadata(fragment)
    num_rows = metadata.num_rows if metadata is not None else None
    size = _file_bytes(metadata) if metadata is not None else None
    reason = None if kept else skip_reason(predicate, guarantee)
    groups: tuple[RowGroupVerdict, ...] = ()
    if metadata is not None:
        groups = _row_group_verdicts(fragment, metadata, simplified, kept)
    return FragmentVerdict(path, kept, guarantee, simplified, predicate, num_rows, size,
                           groups, reason)


def _parquet_metadata(fragment):
    if not isinstance(fragment, ds.ParquetFileFragment):
        return None
    return fragment.metadata


def _row_group_verdicts(fragment, metadata, simplified: Expression,
                        fragment_kept: bool) -> tuple[RowGroupVerdict, ...]:
    ids = [info.id for info in fragment.row_groups]
    refs = [node.ref for node in preorder(simplified) if node.is_field]
    schema = fragment.physical_schema
    out = []
    for group_id in ids:
        meta = metadata.row_group(group_id)
        size = sum(meta.column(j).total_compressed_size for j in range(meta.num_columns))
        if not fragment_kept:
            out.append(RowGroupVerdict(group_id, False, TRUE, simplified, meta.num_rows, size,
                                       "its file is skipped"))
            continue
        guarantee = row_group_guarantee(refs, schema, meta)
        result = simplify_with_guarantee(simplified, guarantee)
        kept = is_satisfiable(result)
        reason = None if kept else skip_reason(simplified, guarantee)
        out.append(RowGroupVerdict(group_id, kept, guarantee, result, meta.num_rows, size, reason))
    return tuple(out)


def _file_bytes(metadata) -> int:
    return sum(metadata.row_group(i).column(j).total_compressed_size
               for i in range(metadata.num_row_groups)
               for j in range(metadata.row_group(i).num_columns))
