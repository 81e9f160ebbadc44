"""Engine mode's scans of Parquet files, read by Spark's Python workers themselves.

Every row Spark hands to `mapInArrow` first goes through the JVM's row-to-Arrow
conversion, which for a wide scan costs more than Spark's whole native query.
When the DataFrame a scan reads is nothing but Parquet files the workers can
open, the workers read them with pyarrow instead: Spark only distributes the
work (`spark.range` with one id per partition; each id names its list of row
groups, shipped inside the fragment) and every `mapInArrow` task reads its row
groups, only the scan's columns, and hands the batches to the fragment as
Spark's own would arrive.

The driver decides, and says why not when it does not (the scan then goes
through the JVM as before). It reads:

- Spark's optimized plan of the scan's columns (py4j): a `LogicalRelation` over
  a `HadoopFsRelation` of `ParquetFileFormat`, with no partition columns, under
  at most a projection of plain (possibly renamed) columns;
- `df.inputFiles()`: each a `file:` URI or a plain path, on a local master;
- every file's footer: each scan column is found as Spark finds it (by name,
  case-insensitively unless `spark.sql.caseSensitive`; absent: nulls, as Spark
  gives them; two matches: Spark refuses, so the JVM path lets it), and its
  Arrow type must turn into the scan's type by an exact cast (the same type,
  a string or binary of another width, a wider integer, decimal or timestamp
  unit). INT96 timestamps, nested columns and dates or timestamps written by
  Spark 2's calendar (which Spark rebases) stay on the JVM path.

No pre-filter is pushed into the read: exprscope's own filter runs on every row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import unquote, urlparse

import pyarrow as pa
import pyarrow.types as pat

__all__ = ["JvmScan", "ScanInput", "UnitsReader", "WorkUnit", "WorkerScan", "plan_worker_scan"]

MAX_FILES = 10_000  # footers the driver reads before it leaves the listing to the JVM


@dataclass(frozen=True)
class WorkUnit:
    """Row groups of one file, and which file column each scan column reads (None: nulls)."""

    path: str
    row_groups: tuple[int, ...]
    columns: tuple[str | None, ...]
    rows: int
    bytes: int  # compressed size of the columns read


@dataclass(frozen=True)
class WorkerScan:
    """The worker path: the partitions' work and how to describe it."""

    partitions: tuple[tuple[WorkUnit, ...], ...]
    files: int
    row_groups: int

    def describe(self) -> str:
        return (f"read from Parquet by the Python workers ({self.files} "
                f"file{'s' * (self.files != 1)}, {self.row_groups} row "
                f"group{'s' * (self.row_groups != 1)} in {len(self.partitions)} "
                f"partition{'s' * (len(self.partitions) != 1)})")


@dataclass(frozen=True)
class JvmScan:
    """The JVM path, and why the workers do not read the files themselves."""

    reason: str

    def describe(self) -> str:
        return f"read by Spark's JVM: {self.reason}"


class ScanInput(NamedTuple):
    """How a scan's rows enter Python: the DataFrame whose partitions feed `mapInArrow`, and
    the reader turning them into the scan's rows (None: they are the scan's rows)."""

    df: object
    reader: object | None


class UnitsReader:
    """Turns the ids `spark.range` hands a partition into the batches of their row groups,
    typed as the scan's schema says."""

    def __init__(self, scan: WorkerScan, schema: pa.Schema, batch_rows: int):
        self.partitions = scan.partitions
        self.schema = schema
        self.batch_rows = batch_rows

    def __call__(self, id_batches):
        for ids in id_batches:
            for partition in ids.column(0).to_pylist():
                for unit in self.partitions[partition]:
                    yield from self._read(unit)

    def _read(self, unit: WorkUnit):
        import pyarrow.parquet as pq

        wanted = sorted({c for c in unit.columns if c is not None})
        with pq.ParquetFile(unit.path) as file:
            # a Spark task is one core's worker: pyarrow's own threads would oversubscribe
            for batch in file.iter_batches(batch_size=self.batch_rows,
                                           row_groups=list(unit.row_groups),
                                           columns=wanted, use_threads=False):
                arrays = []
                for name, field in zip(unit.columns, self.schema):
                    if name is None:
                        arrays.append(pa.nulls(batch.num_rows, field.type))
                        continue
                    column = batch.column(name)
                    arrays.append(column if column.type == field.type
                                  else column.cast(field.type))
                yield pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def plan_worker_scan(df, columns: list[str], schema: pa.Schema, spark) -> WorkerScan | JvmScan:
    """Whether the workers can read `df.select(columns)` from its Parquet files exactly as
    Spark would (typed as `schema`, the scan's), and their work if so."""
    if getattr(df, "_jdf", None) is None:
        return JvmScan("a Spark Connect DataFrame (no JVM plan to read through py4j)")
    names = _relation_names(df.select(*[df[c] for c in columns]))
    if isinstance(names, JvmScan):
        return names
    if not spark.sparkContext.master.startswith("local"):
        return JvmScan(f"the master is {spark.sparkContext.master}, not local: the workers "
                       "may not see the driver's files")
    if spark.conf.get("spark.sql.parquet.fieldId.read.enabled", "false").lower() == "true":
        return JvmScan("spark.sql.parquet.fieldId.read.enabled matches columns by field id")
    paths = []
    for uri in df.inputFiles():
        path = _local_path(uri)
        if path is None:
            return JvmScan(f"the file {uri} is not a local path")
        paths.append(path)
    if len(paths) > MAX_FILES:
        return JvmScan(f"{len(paths)} files, more footers than {MAX_FILES} to read first")
    case_sensitive = spark.conf.get("spark.sql.caseSensitive", "false").lower() == "true"
    units = []
    for path in sorted(paths):
        found = _file_units(path, names, schema, case_sensitive)
        if isinstance(found, JvmScan):
            return found
        units.extend(found)
    target = max(spark.sparkContext.defaultParallelism,
                 math.ceil(sum(u.bytes for u in units) / _max_partition_bytes(spark)))
    return WorkerScan(_spread(units, target), len(paths), len(units))


def _relation_names(selected) -> list[str] | JvmScan:
    """The relation's column behind each column of `selected`, when its optimized plan is
    a Parquet relation with at most a projection of its plain columns over it."""
    plan = selected._jdf.queryExecution().optimizedPlan()
    kind = plan.getClass().getSimpleName()
    if kind == "Project":
        names = []
        for expr in _seq(plan.projectList()):
            if expr.getClass().getSimpleName() == "Alias":
                expr = expr.child()
            if expr.getClass().getSimpleName() != "AttributeReference":
                return JvmScan(f"the DataFrame computes a column ({_short(expr.toString())})")
            names.append(str(expr.name()))
        plan = plan.child()
        kind = plan.getClass().getSimpleName()
    else:
        names = None
    if kind != "LogicalRelation":
        return JvmScan(f"Spark's plan of the scan is a {kind}, not a plain file relation")
    relation = plan.relation()
    if relation.getClass().getSimpleName() != "HadoopFsRelation":
        return JvmScan(f"the relation is a {relation.getClass().getSimpleName()}, not files")
    file_format = relation.fileFormat().getClass().getSimpleName()
    if file_format != "ParquetFileFormat":
        return JvmScan(f"the files are read by {file_format}, not Parquet")
    partition_columns = [str(n) for n in relation.partitionSchema().fieldNames()]
    if partition_columns:
        return JvmScan(f"partition columns ({', '.join(partition_columns)}) come from the "
                       "directory names")
    if names is None:
        names = [str(a.name()) for a in _seq(plan.output())]
    in_files = {str(n) for n in relation.dataSchema().fieldNames()}
    for name in names:
        if name not in in_files:
            return JvmScan(f"the column {name!r} is not one of the files' columns "
                           "(a metadata column?)")
    return names


def _file_units(path: str, names: list[str], schema: pa.Schema,
                case_sensitive: bool) -> list[WorkUnit] | JvmScan:
    """One work unit per row group of the file at `path`, or why it cannot be read exactly."""
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        return JvmScan(f"pyarrow cannot open {path}: {_short(str(exc))}")
    with file:
        metadata = file.metadata
        arrow = file.schema_arrow
        kv = {k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
              for k, v in (metadata.metadata or {}).items()}
        legacy = ("org.apache.spark.legacyDateTime" in kv or "org.apache.spark.legacyINT96" in kv
                  or kv.get("org.apache.spark.version", "3").startswith(("2.", "1.")))
        chosen: list[str | None] = []
        for name, field in zip(names, schema):
            matches = [f for f in arrow if (f.name == name if case_sensitive
                                            else f.name.lower() == name.lower())]
            if len(matches) > 1:
                return JvmScan(f"{path} has {len(matches)} columns named like {name!r} "
                               "(Spark refuses to choose)")
            if not matches:
                chosen.append(None)  # Spark reads a column a file lacks as nulls
                continue
            found = matches[0]
            problem = _type_problem(found, field.type, file, legacy)
            if problem:
                return JvmScan(f"column {found.name!r} of {path} {problem}")
            chosen.append(found.name)
        read = {i for i in range(metadata.num_columns)
                if metadata.schema.column(i).path in set(chosen)}
        units = []
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            size = sum(group.column(i).total_compressed_size for i in read)
            units.append(WorkUnit(path, (g,), tuple(chosen), group.num_rows, size))
    return units


def _type_problem(found: pa.Field, want: pa.DataType, file, legacy: bool) -> str | None:
    """Why the file's column cannot become `want` exactly (None: it can)."""
    got = found.type
    if pat.is_nested(got):
        return f"is nested ({got})"
    leaves = [file.schema.column(i) for i in range(len(file.schema))]
    if any(c.path == found.name and c.physical_type == "INT96" for c in leaves):
        return "is an INT96 timestamp (Spark converts those itself)"
    if legacy and (pat.is_temporal(got)):
        return "was written with Spark 2's calendar (Spark rebases those dates)"
    if not _exact_cast(got, want):
        return f"is {got} in the file and {want} in the scan: no exact cast"
    return None


def _exact_cast(got: pa.DataType, want: pa.DataType) -> bool:
    """Whether every value of `got` casts to the same value of `want`."""
    if got == want:
        return True
    if pat.is_dictionary(got):
        return _exact_cast(got.value_type, want)
    strings = (pat.is_string, pat.is_large_string, pat.is_string_view)
    binaries = (pat.is_binary, pat.is_large_binary, pat.is_binary_view)
    for family in (strings, binaries):
        if any(f(got) for f in family) and any(f(want) for f in family):
            return True
    if pat.is_integer(got) and pat.is_integer(want):
        if pat.is_signed_integer(got):
            return pat.is_signed_integer(want) and want.bit_width >= got.bit_width
        return want.bit_width > got.bit_width or (pat.is_unsigned_integer(want)
                                                  and want.bit_width == got.bit_width)
    if pat.is_integer(got) and pat.is_decimal(want):
        digits = len(str(2 ** got.bit_width - 1))  # enough for either sign
        return want.scale == 0 and want.precision >= digits
    if pat.is_decimal(got) and pat.is_decimal(want):
        return want.scale == got.scale and want.precision >= got.precision
    if pat.is_floating(got) and pat.is_floating(want):
        return want.bit_width >= got.bit_width
    if pat.is_timestamp(got) and pat.is_timestamp(want):
        units = ["s", "ms", "us", "ns"]
        return ((got.tz is None) == (want.tz is None)
                and units.index(want.unit) >= units.index(got.unit))
    return False


def _spread(units: list[WorkUnit], target: int) -> tuple[tuple[WorkUnit, ...], ...]:
    """The units in file order, cut into at most `target` runs of about equal bytes."""
    count = max(1, min(target, len(units)))
    total = sum(max(u.bytes, 1) for u in units)
    partitions: list[list[WorkUnit]] = [[] for _ in range(count)]
    done = 0
    for unit in units:
        # the partition whose share of the bytes this unit's middle falls in
        middle = done + max(unit.bytes, 1) / 2
        partitions[min(count - 1, int(middle * count / total))].append(unit)
        done += max(unit.bytes, 1)
    return tuple(tuple(p) for p in partitions)


def _local_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
        return unquote(parsed.path)
    if parsed.scheme == "" and uri.startswith("/"):
        return uri
    return None


def _max_partition_bytes(spark) -> int:
    text = spark.conf.get("spark.sql.files.maxPartitionBytes", "134217728b").strip().lower()
    scale = {"k": 2**10, "m": 2**20, "g": 2**30}
    digits = text.rstrip("b")
    if digits and digits[-1] in scale:
        return int(digits[:-1]) * scale[digits[-1]]
    return int(digits) if digits.isdigit() else 134_217_728


def _seq(scala_seq) -> list:
    iterator = scala_seq.iterator()
    out = []
    while iterator.hasNext():
        out.append(iterator.next())
    return out


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."
