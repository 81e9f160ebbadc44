"""A dataset scan explanation as HTML: the notebook's rich display and the standalone report.

Both show the totals, a bar of the bytes read, and a table with a row per file
(kept or skipped, why, rows, bytes); a kept Parquet file opens to its row
groups. The notebook view shows one page of files at a time (`page`,
`page_size`), so a scan of thousands of files stays responsive; the report
lists them all, with each file's simplification drawn as a text tree.
Everything from the dataset is escaped by `labels.html_text`.
"""

from __future__ import annotations

from .labels import counted, html_text, share_text
from .scan_text import human_bytes, relative_paths
from .text import to_text

__all__ = ["scan_html", "scan_report_html"]

PAGE_SIZE = 50

_CSS = """
.xs-scan{font-family:system-ui,sans-serif;font-size:13px;max-width:100%}
.xs-scan table{border-collapse:collapse;width:100%;table-layout:auto}
.xs-scan th,.xs-scan td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
.xs-scan td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.xs-scan .kept{color:#1a7f37;font-weight:600}.xs-scan .skipped{color:#b42318;font-weight:600}
.xs-scan .footer{color:#6b7280;font-weight:600}
.xs-scan td code{overflow-wrap:anywhere}
.xs-scan tr.off td{color:#777}
.xs-scan .bar{height:12px;background:#eee;border-radius:3px;width:min(420px,100%);margin:4px 0}
.xs-scan .bar div{height:100%;background:#2f6fdf;border-radius:3px}
.xs-scan code{font-size:12px;word-break:break-word}
.xs-scan details pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;
  background:#f7f7f7;padding:6px;max-width:100%}
.xs-scan details table{table-layout:fixed}
.xs-scan .beyond{border-left:3px solid #8250df;padding-left:8px;color:#5a3e99}
.xs-scan .lost{border-left:3px solid #cf222e;padding-left:8px;color:#a40e26}
.xs-scan .path{overflow-wrap:anywhere;min-width:12em}
.xs-scan th{white-space:nowrap}
.xs-scan details th{white-space:normal}
.xs-scan details th:nth-child(-n+4){width:6em}
"""


def scan_html(scan, page: int = 0, page_size: int = PAGE_SIZE) -> str:
    """One page of the scan as an HTML fragment (its own styles included)."""
    fragments = scan.fragments
    pages = max(1, -(-len(fragments) // page_size))
    page = min(max(page, 0), pages - 1)
    start = page * page_size
    rows = _fragment_rows(scan, start, start + page_size, details=False)
    caption = (f"<p>files {start + 1:,}–{min(start + page_size, len(fragments)):,} of "
               f"{len(fragments):,} (page {page + 1} of {pages})</p>" if pages > 1 else "")
    return f"<style>{_CSS}</style><div class='xs-scan'>{_summary(scan)}{caption}{rows}</div>"


def scan_report_html(scan, title: str, csp: str) -> str:
    """The standalone page: every file, each opening to its row groups and simplification."""
    body = _summary(scan) + _fragment_rows(scan, 0, len(scan.fragments), details=True)
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html_text(title)}</title><style>{_CSS}</style></head>"
            f"<body class='xs-scan'><h1>{html_text(title)}</h1>{body}</body></html>")


def _summary(scan) -> str:
    files_kept, files = scan.files
    groups_kept, groups = scan.row_groups
    bytes_kept, total_bytes = scan.bytes
    rows_kept, rows = scan.rows
    share = bytes_kept / total_bytes if total_bytes else (files_kept / files if files else 0.0)
    skipped = "".join(
        f"<li>{len(group):,} file{'s' if len(group) > 1 else ''} skipped by "
        f"<code>{html_text(filter_text)}</code> (e.g. <code>"
        f"{html_text(group[0].clash.guarantee_text)}</code>)</li>"
        for filter_text, group in scan.skipped_by()[:20])
    extra_files, extra_groups = scan.beyond_arrow()
    beyond = ""
    if extra_files or extra_groups:
        example = (extra_files or extra_groups)[0].beyond_arrow
        beyond = (f"<p class='beyond'><b>Beyond Arrow</b> (a suggestion, not what Arrow does): "
                  f"exprscope could also skip {len(extra_files):,} files and "
                  f"{len(extra_groups):,} row groups, e.g. <code>{html_text(example)}</code></p>")
    lost = scan.lost_rows()
    if lost:
        beyond += (f"<p class='lost'><b>⚠ Arrow may lose rows</b>: {len(lost):,} skipped row "
                   f"group{'s' if len(lost) > 1 else ''} may hold matching rows, e.g. group "
                   f"{lost[0].id}: {html_text(lost[0].lost_rows)}</p>")
    data_read = scan.files_with_data_read
    footers = (f" (and {counted(files_kept - data_read, 'footer')} only)"
               if files_kept > data_read else "")
    return (f"<p><b>filter</b> <code>{html_text(str(scan.filter))}</code></p>"
            f"<p>reads <b>{data_read:,}</b> of {files:,} files{footers} · "
            f"<b>{groups_kept:,}</b> of "
            f"{groups:,} row groups · <b>{human_bytes(bytes_kept)}</b> of "
            f"{human_bytes(total_bytes)} · <b>{rows_kept:,}</b> of {rows:,} rows</p>"
            f"<div class='bar' title='{share_text(share, 1)} of the bytes are read'>"
            f"<div style='width:{share * 100:.2f}%'></div></div>"
            + (f"<ul>{skipped}</ul>" if skipped else "") + beyond)


def _fragment_rows(scan, start: int, stop: int, details: bool) -> str:
    """Rows `start:stop` of the table: files that are read first, then skipped ones."""
    names = dict(zip((id(f) for f in scan.fragments),
                     relative_paths([f.path for f in scan.fragments])))
    ordered = [f for f in scan.fragments if f.kept] + [f for f in scan.fragments if not f.kept]
    out = [("<table><thead><tr><th>file</th><th>verdict</th><th>row groups</th>"
           "<th>rows read</th><th>bytes read</th><th>why</th></tr></thead><tbody>")]
    for verdict in ordered[start:stop]:
        name = names[id(verdict)]
        groups = verdict.row_groups
        kept_groups = sum(g.kept for g in groups)
        group_text = f"{kept_groups} of {len(groups)}" if groups else "—"
        why = verdict.reason if not verdict.kept else _first_group_reason(groups)
        status = ("<span class='kept'>read</span>" if verdict.data_read
                  else "<span class='footer'>footer only</span>" if verdict.kept
                  else "<span class='skipped'>skipped</span>")
        out.append(
            f"<tr class='{'' if verdict.data_read else 'off'}'>"
            f"<td class='path'>{html_text(name)}</td><td>{status}</td>"
            f"<td class='num'>{group_text}</td><td class='num'>{verdict.rows_kept or 0:,}</td>"
            f"<td class='num'>{human_bytes(verdict.bytes_kept or 0)}</td>"
            f"<td><code>{html_text(why or '')}</code></td></tr>")
        if details:
            out.append(f"<tr><td colspan='6'>{_details(verdict)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _first_group_reason(groups) -> str:
    skipped = [g for g in groups if not g.kept]
    if not skipped:
        return ""
    return (f"{counted(len(skipped), 'group')} skipped, e.g. group {skipped[0].id}: "
            f"{skipped[0].reason}")


def _details(verdict) -> str:
    parts = [(f"<details><summary>partition guarantee <code>{html_text(str(verdict.guarantee))}"
             f"</code> → filter <code>{html_text(str(verdict.simplified))}</code></summary>")]
    if verdict.row_groups and verdict.kept:
        parts.append("<table><thead><tr><th>group</th><th>verdict</th><th>rows</th><th>bytes</th>"
                     "<th>statistics guarantee</th><th>filter under it / why skipped</th></tr>"
                     "</thead><tbody>")
        for g in verdict.row_groups:
            parts.append(
                f"<tr class='{'' if g.kept else 'off'}'><td class='num'>{g.id}</td>"
                f"<td>{'read' if g.kept else 'skipped'}</td><td class='num'>{g.num_rows:,}</td>"
                f"<td class='num'>{human_bytes(g.bytes)}</td>"
                f"<td><code>{html_text(str(g.guarantee))}</code></td>"
                f"<td><code>{html_text(str(g.simplified) if g.kept else g.reason)}</code>"
                + (f"<br><span class='beyond'>beyond Arrow: {html_text(g.beyond_arrow)}</span>"
                   if g.beyond_arrow else "")
                + (f"<br><span class='lost'>⚠ {html_text(g.lost_rows)}</span>"
                   if g.lost_rows else "") + "</td></tr>")
        parts.append("</tbody></table>")
    steps = to_text(verdict.trace, color=False)  # lines of 100 columns at most
    lines = "\n".join(html_text(line).replace("&#x27;", "'") for line in steps.splitlines())
    parts.append(f"<pre>{lines}</pre></details>")
    return "".join(parts)
