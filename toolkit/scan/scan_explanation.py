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
explains it, and, where Arrow's skip may lose matching rows (NaN outside float
statistics, a cast that rounds or overflows), with why (`lost_rows.py`); where
pyarrow's own scan fails on the statistics, a one-line `ScanError` says so. Each fragment's `.trace` replays its partition simplification
under a tracer when first read, so explaining a thousand files stays cheap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow as pa

from ..errors import ExprscopeError, GuaranteeError, ScanError
from ..model.expression import Expression, Literal, as_expression, preorder
from ..passes import is_satisfiable, simplify_with_guarantee
from ..passes.chain import ExprKey
from ..sql.parse import parse
from ..support import late
from ..support.visible_text import visible
from ..tracing import Trace, trace
from .lost_rows import lost_rows_warning
from .range_suggestion import never_true
from .skip_reason import Clash, skip_reason
from .statistics_guarantee import row_group_guarantee

if TYPE_CHECKING:
    import pyarrow.dataset as ds

pyarrow_dataset = late.module("pyarrow.dataset")

__all__ = ["Clash", "FragmentVerdict", "RowGroupVerdict", "ScanExplanation", "explain_scan"]



def _true() -> Expression:
    """The literal true (made on use: a pyarrow scalar made at import time loads pandas)."""
    return Literal(pa.scalar(True))


@dataclass(frozen=True)
class RowGroupVerdict:
    """One Parquet row group: what its statistics guarantee and whether the scan reads it."""

    id: int
    kept: bool
    guarantee: Expression
    simplified: Expression
    num_rows: int
    bytes: int
    filter: Expression = field(repr=False, default=None)
    file_skipped: bool = False

    @functools.cached_property
    def clash(self) -> Clash | None:
        """The member of its statistics guarantee and of the filter that clash (None if read)."""
        if self.kept or self.file_skipped:
            return None
        return skip_reason(self.filter, self.guarantee)

    @functools.cached_property
    def beyond_arrow(self) -> str | None:
        """Why exprscope could skip this group although Arrow reads it (ranges through
        arithmetic); None when it could not either. A suggestion, not Arrow's verdict."""
        if not self.kept:
            return None
        return never_true(self.simplified, self.guarantee)

    @functools.cached_property
    def lost_rows(self) -> str | None:
        """Why Arrow's skip may lose matching rows here (NaN left out of the statistics,
        a cast that rounds or overflows); None when the skip is safe or the group is read."""
        if self.kept or self.file_skipped:
            return None
        return lost_rows_warning(self.filter, self.guarantee)

    @property
    def reason(self) -> str | None:
        """Why the group is skipped, in one line."""
        if self.kept:
            return None
        return "its file is skipped" if self.file_skipped else str(self.clash)


@dataclass(frozen=True)
class FragmentVerdict:
    """One file (fragment): its partition guarantee, the filter under it, and the verdict.

    A skipped file's Parquet footer is not read while explaining (Arrow does not
    read it either); its rows, bytes and row groups are read when first asked for.
    """

    path: str
    kept: bool
    guarantee: Expression
    simplified: Expression
    filter: Expression = field(repr=False)
    fragment: ds.Fragment = field(repr=False, compare=False, default=None)
    kept_file_groups: tuple[RowGroupVerdict, ...] | None = field(repr=False, default=None)

    @functools.cached_property
    def clash(self) -> Clash | None:
        """The member of its partition guarantee and of the filter that clash (None if read)."""
        return None if self.kept else skip_reason(self.filter, self.guarantee)

    @functools.cached_property
    def beyond_arrow(self) -> str | None:
        """Why exprscope could skip this file although Arrow reads it; a suggestion only."""
        if not self.kept:
            return None
        return never_true(self.simplified, self.guarantee)

    @property
    def reason(self) -> str | None:
        """Why the file is skipped, in one line: "year == 2020 contradicts year >= 2022"."""
        return None if self.clash is None else str(self.clash)

    @functools.cached_property
    def trace(self) -> Trace:
        """Every pass of the partition simplification, recorded by replaying it."""
        with trace() as recorded:
            simplify_with_guarantee(self.filter, self.guarantee)
        return recorded

    @functools.cached_property
    def row_groups(self) -> tuple[RowGroupVerdict, ...]:
        """Each Parquet row group's verdict; () for fragments that are not Parquet files."""
        if self.kept_file_groups is not None:
            return self.kept_file_groups
        metadata = _parquet_metadata(self.fragment)
        if metadata is None:
            return ()
        return tuple(
            RowGroupVerdict(info.id, False, _true(), self.simplified, *_group_size(metadata, info.id),
                            self.simplified, file_skipped=True)
            for info in self.fragment.row_groups)

    @functools.cached_property
    def num_rows(self) -> int | None:
        metadata = _parquet_metadata(self.fragment)
        return metadata.num_rows if metadata is not None else None

    @functools.cached_property
    def bytes(self) -> int | None:
        """Compressed bytes of the file's column chunks (what a scan would read)."""
        groups = self.row_groups
        return sum(g.bytes for g in groups) if groups else None

    @property
    def data_read(self) -> bool:
        """Whether a scan reads the file's data: it is kept and some row group is (a kept
        file whose every row group statistics rule out has only its footer read)."""
        return self.kept and (not self.row_groups or any(g.kept for g in self.row_groups))

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
    """The whole scan: every fragment's verdict and what is read against the whole.

    `rows` and `bytes` count the whole dataset too, which reads the footers of
    skipped files the first time they are asked for.
    """

    filter: Expression
    fragments: tuple[FragmentVerdict, ...]
    dataset_guarantee: Expression = field(default_factory=_true)

    @property
    def files(self) -> tuple[int, int]:
        return sum(f.kept for f in self.fragments), len(self.fragments)

    @property
    def files_with_data_read(self) -> int:
        """Files whose data is read; the other kept files have only their footer read."""
        return sum(f.data_read for f in self.fragments)

    def beyond_arrow(self) -> tuple[list[FragmentVerdict], list[RowGroupVerdict]]:
        """Files and row groups Arrow reads that ranges through arithmetic would rule out."""
        files = [f for f in self.fragments if f.beyond_arrow]
        groups = [g for f in self.fragments if f.kept and not f.beyond_arrow
                  for g in f.row_groups if g.beyond_arrow]
        return files, groups

    def skipped_by(self) -> list[tuple[str, list[FragmentVerdict]]]:
        """Skipped files grouped by the part of the filter that ruled them out, largest first."""
        groups: dict[str, list[FragmentVerdict]] = {}
        for verdict in self.fragments:
            if not verdict.kept:
                groups.setdefault(verdict.clash.filter_text, []).append(verdict)
        return sorted(groups.items(), key=lambda item: -len(item[1]))

    def lost_rows(self) -> list[RowGroupVerdict]:
        """Row groups Arrow skips although rows there may match (see `lost_rows.py`)."""
        return [g for f in self.fragments if f.kept for g in f.row_groups if g.lost_rows]

    @property
    def row_groups(self) -> tuple[int, int]:
        groups = [g for f in self.fragments for g in f.row_groups]
        return sum(g.kept for g in groups), len(groups)

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
        return f"<ScanExplanation {visible(str(self.filter))}: {kept:,} of {total:,} files kept>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)


def explain_scan(dataset: ds.Dataset, filter) -> ScanExplanation:
    """Explain which fragments and row groups a scan of `dataset` with `filter` reads."""
    if not isinstance(dataset, pyarrow_dataset.Dataset):
        raise ExprscopeError(
            f"explain_scan takes a pyarrow.dataset.Dataset, got {type(dataset).__name__}")
    bound = _bound_filter(filter, dataset.schema)
    dataset_guarantee = as_expression(dataset.partition_expression)
    predicate = simplify_with_guarantee(bound, dataset_guarantee)
    dataset_open = is_satisfiable(predicate)
    memo: dict = {}  # (filter, guarantee) -> (simplified, kept): files often share statistics
    verdicts = tuple(_fragment_verdict(fragment, predicate, dataset_open, memo)
                     for fragment in dataset.get_fragments())
    return ScanExplanation(bound, verdicts, dataset_guarantee)


def _bound_filter(filter, schema: pa.Schema) -> Expression:
    expr = parse(filter) if isinstance(filter, str) else as_expression(filter)
    bound = expr.bind(schema)
    if bound.type is not None and bound.type != pa.bool_():
        raise ExprscopeError(f"a scan filter must be boolean; {expr} is {bound.type}")
    return bound


def _fragment_verdict(fragment, predicate: Expression, dataset_open: bool,
                      memo: dict) -> FragmentVerdict:
    guarantee = as_expression(fragment.partition_expression)
    simplified = simplify_with_guarantee(predicate, guarantee)
    kept = dataset_open and is_satisfiable(simplified)
    path = getattr(fragment, "path", None) or str(fragment)
    groups = None
    if kept:
        metadata = _parquet_metadata(fragment)
        if metadata is not None:
            groups = _row_group_verdicts(fragment, metadata, simplified, memo)
    return FragmentVerdict(path, kept, guarantee, simplified, predicate, fragment, groups)


def _arrow_fails(fragment, group_id: int, exc: GuaranteeError) -> str:
    """One line: pyarrow's own scan fails on this row group too, and why."""
    why = str(exc).splitlines()[0]
    path = visible(getattr(fragment, "path", None) or str(fragment))
    return (f"pyarrow's scan fails here too: row group {group_id} of {path}: its statistics "
            f"cannot be compared with the filter ({why})")


def _parquet_metadata(fragment):
    if not isinstance(fragment, pyarrow_dataset.ParquetFileFragment):
        return None
    return fragment.metadata


def _group_size(metadata, group_id: int) -> tuple[int, int]:
    """(rows, compressed bytes) of one row group."""
    meta = metadata.row_group(group_id)
    return meta.num_rows, sum(meta.column(j).total_compressed_size
                              for j in range(meta.num_columns))


def _row_group_verdicts(fragment, metadata, simplified: Expression,
                        memo: dict) -> tuple[RowGroupVerdict, ...]:
    refs = [node.ref for node in preorder(simplified) if node.is_field]
    schema = fragment.physical_schema
    out = []
    for info in fragment.row_groups:
        guarantee = row_group_guarantee(refs, schema, metadata.row_group(info.id))
        key = (ExprKey(simplified), ExprKey(guarantee))
        if key not in memo:
            try:
                result = simplify_with_guarantee(simplified, guarantee)
            except GuaranteeError as exc:
                raise ScanError(_arrow_fails(fragment, info.id, exc)) from None
            memo[key] = (result, is_satisfiable(result))
        result, kept = memo[key]
        out.append(RowGroupVerdict(info.id, kept, guarantee, result,
                                   *_group_size(metadata, info.id), simplified))
    return tuple(out)
