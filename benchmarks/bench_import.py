"""What `import toolkit` costs against `import pyarrow.compute`, its own floor.

    python benchmarks/bench_import.py [--runs N] [--profile-runs N]

Each import runs in a fresh interpreter (the source tree first on its path),
timed inside the child from just before the import statement to just after it,
so interpreter start-up is left out on both sides: wall time, and the CPU time
of the importing thread, which other processes on a shared machine disturb
less. The two imports alternate, each round swapping who goes first, after one
untimed round that writes the bytecode caches (an installed package has them;
without them toolkit's own modules are compiled on every import). Prints the
median of each and the ratio toolkit / pyarrow.compute; the target is <= 1.5.

Then, from `python -X importtime` runs, what toolkit adds: the modules below
`toolkit` that `import pyarrow.compute` does not load (those are the floor,
wherever toolkit first imports them), their count and own time, and the ten
with the largest cumulative time counted over such modules only (median over
the runs), with their own time and the module that imported them: what to
look at when the ratio grows. docs/benchmarks.md (Import time) uses it.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5
PEER = "pyarrow.compute"
SUBJECT = "toolkit"
_TIMED = ("import time\n"
          "wall, cpu = time.perf_counter(), time.thread_time()\n"
          "import {module}\n"
          "print(time.perf_counter() - wall, time.thread_time() - cpu)\n")
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")


def _env() -> dict[str, str]:
    """The child's environment: this tree before any installed copy, bytecode caches on."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed_import(module: str) -> tuple[float, float]:
    """(wall, CPU) seconds `import module` takes in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _TIMED.format(module=module)], cwd=ROOT,
                         env=_env(), capture_output=True, text=True, check=True).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def import_profile(module: str, floor: frozenset[str] = frozenset()
                   ) -> dict[str, tuple[int, int, str]]:
    """{name: (cumulative µs, self µs, importer)} for every module imported below `module`
    and not in `floor`; the cumulative time counts only the modules not in `floor`."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                         cwd=ROOT, env=_env(), capture_output=True, text=True,
                         check=True).stderr
    rows = [(int(m[1]), int(m[2]), len(m[3]) // 2, m[4])
            for m in map(_LINE.match, err.splitlines()) if m]
    # -X importtime prints a module after everything it imported, one level deeper
    root = max(i for i, row in enumerate(rows) if row[3] == module and row[2] == 0)
    start = root
    while start > 0 and rows[start - 1][2] > 0:
        start -= 1
    found: dict[str, tuple[int, int, str]] = {}
    for i in range(start, root):
        own, _, depth, name = rows[i]
        if name in floor:
            continue
        first = i  # the first row of this module's subtree
        while first > start and rows[first - 1][2] > depth:
            first -= 1
        cumulative = sum(r[0] for r in rows[first:i + 1] if r[3] not in floor)
        importer = next(r[3] for r in rows[i + 1:root + 1] if r[2] < depth)
        found[name] = (cumulative, own, importer)
    return found


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed imports of each module")
    parser.add_argument("--profile-runs", type=int, default=5,
                        help="-X importtime runs for the table of modules")
    args = parser.parse_args(argv)

    timed_import(SUBJECT)
    timed_import(PEER)
    times: dict[str, list[tuple[float, float]]] = {PEER: [], SUBJECT: []}
    for round_ in range(args.runs):
        order = (PEER, SUBJECT) if round_ % 2 == 0 else (SUBJECT, PEER)
        for module in order:
            times[module].append(timed_import(module))
    print(f"{args.runs} fresh interpreters each, alternating; median import time")
    print(f"  {'':<24}{'wall ms':>9}{'CPU ms':>9}")
    for module in (PEER, SUBJECT):
        wall, cpu = (statistics.median(t[i] for t in times[module]) for i in (0, 1))
        print(f"  import {module:<17}{wall * 1000:>9.1f}{cpu * 1000:>9.1f}")
    for i, clock in enumerate(("wall", "CPU")):
        peer, subject = (statistics.median(t[i] for t in times[m]) for m in (PEER, SUBJECT))
        ratios = [s[i] / p[i] for p, s in zip(times[PEER], times[SUBJECT])]
        print(f"  ratio {SUBJECT}/{PEER}, {clock + ':':<5} {subject / peer:.2f} "
              f"(target <= {TARGET}); per-round ratios {min(ratios):.2f}-{max(ratios):.2f}, "
              f"median {statistics.median(ratios):.2f}")

    floor = frozenset(import_profile(PEER)) | {PEER}
    profiles = [import_profile(SUBJECT, floor) for _ in range(args.profile_runs)]
    names = set().union(*profiles)
    cumulative = {n: statistics.median(p[n][0] for p in profiles if n in p) for n in names}
    own = {n: statistics.median(p[n][1] for p in profiles if n in p) for n in names}
    importer = {n: next(p[n][2] for p in profiles if n in p) for n in names}
    print(f"\nwhat {SUBJECT} adds to {PEER}: {len(names)} modules, "
          f"{sum(own.values()) / 1000:.1f} ms of their own\n(-X importtime, which adds "
          f"overhead; medians of {args.profile_runs} runs). The ten largest, each counting "
          f"only\nthe modules {PEER} does not load:")
    print(f"  {'module':<40}{'cumulative ms':>14}{'self ms':>9}  imported by")
    for name in sorted(names, key=cumulative.get, reverse=True)[:10]:
        print(f"  {name:<40}{cumulative[name] / 1000:>14.1f}{own[name] / 1000:>9.1f}"
              f"  {importer[name]}")

if __name__ == "__main__":
    main()
