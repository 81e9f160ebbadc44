"""A dataset scan explanation as terminal text: totals, a bar of what is read, one line a file.

    filter: (year >= 2022)
    reads 4 of 12 files · 31 of 240 row groups · 1.2 MB of 8.9 MB · 40,511 of 336,776 rows
    ▕██████████··························▏ 13% of bytes
    ✓ year=2022/part-0.parquet   3 of 20 row groups   9,988 rows   skipped 17, e.g. group 3: ...
    ✗ year=2020/part-0.parquet   year == 2020 contradicts year >= 2022

Paths are shown relative to the files' common folder. Long scans show the
first `limit` files and say how many more there are; every value from the
dataset (paths, names, literals) goes through `labels.visible`.
"""

from __future__ import annotations

import os

from .labels import shorten, visible

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
    root = os.path.commonpath(paths) if all(p.startswith("/") for p in paths) else ""
    return [os.path.relpath(p, root) if root else p for p in paths]


def scan_lines(scan, paint, limit: int = 50) -> list[str]:
    files_kept, files = scan.files
    groups_kept, groups = scan.row_groups
    bytes_kept, total_bytes = scan.bytes
    rows_kept, rows = scan.rows
    lines = [paint("filter: ", "title") + visible(str(scan.filter)),
             (f"reads {files_kept:,} of {files:,} files · {groups_kept:,} of {groups:,} row groups"
             f" · {human_bytes(bytes_kept)} of {human_bytes(total_bytes)}"
             f" · {rows_kept:,} of {rows:,} rows")]
    share = bytes_kept / total_bytes if total_bytes else (files_kept / files if files else 0.0)
    filled = round(share * BAR_CELLS)
    lines.append("▕" + paint("█" * filled, "strip") + "·" * (BAR_CELLS - filled)
                 + f"▏ {share:.0%} of {'bytes' if total_bytes else 'files'}")
    shown = scan.fragments[:limit]
    names = relative_paths([f.path for f in scan.fragments])[:limit]
    width = min(48, max((len(visible(n)) for n in names), default=0))
    for verdict, name in zip(shown, names):
        label = shorten(visible(name), 48).ljust(width)
        if verdict.kept:
            lines.append(paint("✓ ", "pass") + label + "   " + _kept_detail(verdict))
        else:
            lines.append(paint("✗ ", "fail") + paint(label, "dim") + "   "
                         + visible(verdict.reason or ""))
    if len(scan.fragments) > limit:
        lines.append(paint(f"… {len(scan.fragments) - limit:,} more files "
                           "(tk.write_report(scan, path) lists them all)", "dim"))
    return lines


def _kept_detail(verdict) -> str:
    groups = verdict.row_groups
    if not groups:
        rows = verdict.num_rows
        return "whole file" + (f"   {rows:,} rows" if rows is not None else "")
    kept = sum(g.kept for g in groups)
    text = f"{kept} of {len(groups)} row groups   {verdict.rows_kept:,} rows"
    skipped = [g for g in groups if not g.kept]
    if skipped:
        first = skipped[0]
        text += f"   skipped {len(skipped)}, e.g. group {first.id}: {visible(first.reason)}"
    return text
