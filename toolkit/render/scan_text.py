"""A dataset scan explanation as terminal text: totals, a bar of what is read, one line a file.

    filter: (year >= 2022)
    reads 4 of 12 files · 31 of 240 row groups · 1.2 MB of 8.9 MB · 40,511 of 336,776 rows
    ▕██████████··························▏ 13% of bytes
    ✓ year=2022/part-0.parquet   3 of 20 row groups   9,988 rows   skipped 17, e.g. group 3: ...
    ◌ year=2022/part-1.parquet   footer read, data not: all 20 row groups skipped, e.g. ...
    ✗ 8 files skipped by year >= 2022   e.g. year=2020/part-0.parquet: year == 2020

Files that are read come first, one line each (the first `limit`): `✓` when
their data is read, `◌` when statistics skip every row group, so only the
footer is read; skipped files are grouped by the part of the filter that ruled
them out. The summary counts the files whose data is read.

Paths are shown relative to the files' common folder; every value from the
dataset (paths, names, literals) goes through `labels.visible`.
"""

from __future__ import annotations

import os

from .labels import counted, share_text, shorten, visible

__all__ = ["human_bytes", "relative_paths", "scan_lines"]

BAR_CELLS = 40


def human_bytes(n: int | None) -> str:
    if n is None:
        return "?"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1000
    return f"{n:,} B"


def relative_paths(paths: list[str]) -> list[str]:
    """Each path without the folder all of them share."""
    if len(paths) < 2:
        return [os.path.basename(p) or p for p in paths]
    try:
        root = os.path.commonpath(paths)
    except ValueError:  # absolute and relative paths mixed: nothing in common
        return list(paths)
    return [os.path.relpath(p, root) if root else p for p in paths]


def scan_lines(scan, paint, limit: int = 50) -> list[str]:
    files_kept, files = scan.files
    groups_kept, groups = scan.row_groups
    bytes_kept, total_bytes = scan.bytes
    rows_kept, rows = scan.rows
    data_read = scan.files_with_data_read
    footers = (f" (and {counted(files_kept - data_read, 'footer')} only)"
               if files_kept > data_read else "")
    lines = [paint("filter: ", "title") + visible(str(scan.filter)),
             (f"reads {data_read:,} of {files:,} files{footers} · {groups_kept:,} of "
              f"{groups:,} row groups · {human_bytes(bytes_kept)} of {human_bytes(total_bytes)}"
              f" · {rows_kept:,} of {rows:,} rows")]
    share = bytes_kept / total_bytes if total_bytes else (files_kept / files if files else 0.0)
    # a scan that reads anything fills a cell, one that skips anything leaves one empty
    cells = min(BAR_CELLS, getattr(paint, "cells", BAR_CELLS))
    filled = min(max(round(share * cells), share > 0), cells - (share < 1))
    lines.append("▕" + paint("█" * filled, "strip") + "·" * (cells - filled)
                 + f"▏ {share_text(share, 1, digits=0)} of {'bytes' if total_bytes else 'files'}")
    extra_files, extra_groups = scan.beyond_arrow()
    if extra_files or extra_groups:
        example = (extra_files or extra_groups)[0].beyond_arrow
        lines.append(paint("beyond Arrow (not what Arrow does): ", "rule")
                     + f"exprscope could also skip {len(extra_files):,} files and "
                     f"{len(extra_groups):,} row groups, e.g. {visible(example)}")
    lost = scan.lost_rows()
    if lost:
        lines.append(paint("⚠ Arrow may lose rows: ", "fail")
                     + f"{len(lost):,} skipped row group{'s' if len(lost) > 1 else ''} may hold "
                     f"matching rows, e.g. group {lost[0].id}: {visible(lost[0].lost_rows)}")
    names = dict(zip((id(f) for f in scan.fragments),
                     relative_paths([f.path for f in scan.fragments])))
    kept = [f for f in scan.fragments if f.kept]
    width = min(48, max((len(visible(names[id(f)])) for f in kept[:limit]), default=0))
    for verdict in kept[:limit]:
        label = shorten(visible(names[id(verdict)]), 48).ljust(width)
        mark = paint("✓ ", "pass") if verdict.data_read else paint("◌ ", "dim")
        lines.append(mark + label + "   " + _kept_detail(verdict))
    if len(kept) > limit:
        lines.append(paint(f"… {len(kept) - limit:,} more files read", "dim"))
    for filter_text, skipped in scan.skipped_by()[:limit]:
        first = skipped[0]
        count = f"{len(skipped):,} file{'s' if len(skipped) > 1 else ''}"
        example = shorten(visible(names[id(first)]), 48)
        lines.append(paint("✗ ", "fail") + f"{count} skipped by {visible(filter_text)}"
                     + paint(f"   e.g. {example}: {visible(first.clash.guarantee_text)}", "dim"))
    return lines


def _kept_detail(verdict) -> str:
    groups = verdict.row_groups
    if not groups:
        rows = verdict.num_rows
        return "whole file" + (f"   {counted(rows, 'row')}" if rows is not None else "")
    kept = sum(g.kept for g in groups)
    skipped = [g for g in groups if not g.kept]
    if not kept:
        first = skipped[0]
        return (f"footer read, data not: all {counted(len(groups), 'row group')} skipped, "
                f"e.g. group {first.id}: {visible(first.reason)}")
    text = f"{kept} of {counted(len(groups), 'row group')}   {counted(verdict.rows_kept, 'row')}"
    if skipped:
        first = skipped[0]
        text += f"   skipped {len(skipped)}, e.g. group {first.id}: {visible(first.reason)}"
    return text
