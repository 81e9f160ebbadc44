"""No input makes exprscope hang: calls Arrow's kernels never finish are refused.

Every regex function pyarrow has (and the literal split and replace) with patterns
that match the empty string, and every option that bounds or unbounds them, runs
in a child process under a time and memory limit: exprscope either refuses the
call with EndlessCallError or gives pyarrow's own answer; a regression shows as a
"timeout" answer, never as a hung suite.
"""

import json
import re
import subprocess
import sys

import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from limited_child import CHECKOUT, LimitedChild

from toolkit.functions.endless_calls import can_match_empty

REGEX_FUNCTIONS = sorted(n for n in pc.list_functions() if "regex" in n)
EMPTY_MATCHING = ["", "x*", "a*", "(?:)", "^", "$", "\\b", "\\B", "a?", "(?m)^", "a|", "x{0,2}"]
NOT_EMPTY = ["a", "b+", "\\bab", "[[:alpha:]]+"]

# what each function is asked: its options with every limit that matters
_OPTIONS = {
    "split_pattern_regex": [{"max_splits": m} for m in (None, -2, -1, 0, 2, 1000)],
    "replace_substring_regex": [{"replacement": "-", "max_replacements": m}
                                for m in (-5, -2, -1, 0, 2)],
    "extract_regex": [{}], "extract_regex_span": [{}],
}
_CHILD = r"""
import json, sys
import pyarrow as pa, pyarrow.compute as pc
import toolkit as tk
from toolkit.errors import EndlessCallError, BindError

table = pa.table({"s": pa.array(["abc", "", None, "a b\nc", "aab"], pa.string())})
for line in sys.stdin:
    name, options = json.loads(line)
    cls = pc.get_function(name)._doc.options_class
    opts = getattr(pc, cls)(**options)
    try:
        got = tk.evaluate(tk.call(name, [tk.field("s")], opts), table)
    except EndlessCallError as exc:
        print(json.dumps({"outcome": "refused", "message": str(exc)}), flush=True)
        continue
    except BindError as exc:
        print(json.dumps({"outcome": "bind error", "message": str(exc)}), flush=True)
        continue
    except Exception as exc:
        try:
            getattr(pc, name)(table["s"], options=opts)
        except pa.ArrowException:  # pyarrow fails too (RE2 cannot rewrite around `\b`)
            print(json.dumps({"outcome": "ok", "message": "both fail"}), flush=True)
        else:
            print(json.dumps({"outcome": "raised", "message": repr(exc)}), flush=True)
        continue
    expected = getattr(pc, name)(table["s"], options=opts)
    print(json.dumps({"outcome": "ok" if got.equals(expected) else "differs",
                      "message": str(got)[:300]}), flush=True)
"""


def _cases():
    for name in REGEX_FUNCTIONS + ["replace_substring", "split_pattern"]:
        patterns = EMPTY_MATCHING + NOT_EMPTY
        if name.startswith("extract"):
            patterns = [f"(?P<g>{p})" for p in patterns]
        variants = _OPTIONS.get(name.replace("_regex", "") if name in (
            "replace_substring", "split_pattern") else name, [{}])
        if name == "replace_substring":
            variants = _OPTIONS["replace_substring_regex"]
        if name == "split_pattern":
            variants = _OPTIONS["split_pattern_regex"]
        for pattern in patterns:
            for options in variants:
                yield name, {"pattern": pattern, **options}


def _must_refuse(name, options) -> bool:
    """The loops found by experiment (see toolkit/functions/endless_calls.py)."""
    empty = can_match_empty(options["pattern"])
    if name == "split_pattern_regex":
        return empty and (options.get("max_splits") is None or options["max_splits"] < 0)
    if name == "replace_substring_regex":
        return empty and options["max_replacements"] < -1
    if name == "replace_substring":
        return options["pattern"] == "" and options["max_replacements"] < 0
    return False


def test_every_regex_function_with_empty_matching_patterns_finishes_or_is_refused():
    assert {"split_pattern_regex", "replace_substring_regex", "count_substring_regex",
            "find_substring_regex", "match_substring_regex", "extract_regex"} <= \
        set(REGEX_FUNCTIONS)
    child = LimitedChild(_CHILD, memory_bytes=2 << 30, seconds=20)
    try:
        answers = {(name, json.dumps(options)): child.ask(json.dumps([name, options]))
                   for name, options in _cases()}
    finally:
        child.close()
    stuck = {k: a for k, a in answers.items() if a["outcome"] in ("timeout", "crashed")}
    assert not stuck, stuck
    wrong = {k: a for k, a in answers.items() if a["outcome"] in ("differs", "raised")}
    assert not wrong, wrong
    for (name, options), answer in answers.items():
        refused = answer["outcome"] == "refused"
        assert refused == _must_refuse(name, json.loads(options)), (name, options, answer)
        if refused:
            assert "would never finish" in answer["message"] and "empty" in answer["message"]
    assert sum(a["outcome"] == "refused" for a in answers.values()) > 30


_RAW = r"""
import json, sys
import pyarrow as pa, pyarrow.compute as pc
for line in sys.stdin:
    name, options = json.loads(line)
    getattr(pc, name)(pa.array(["abc"]), **options)
    print(json.dumps({"outcome": "finished", "message": ""}), flush=True)
"""


@pytest.mark.parametrize("name, options", [
    ("split_pattern_regex", {"pattern": "x*"}),
    ("replace_substring_regex", {"pattern": "", "replacement": "", "max_replacements": -5}),
])
def test_what_is_refused_is_what_arrow_never_finishes(name, options):
    """The refusal is not caution: Arrow's own kernel runs past any limit on these."""
    child = LimitedChild(_RAW, memory_bytes=1 << 30, seconds=4)
    try:
        assert child.ask(json.dumps([name, options]))["outcome"] in ("timeout", "crashed")
    finally:
        child.close()


def test_optimize_and_the_cli_refuse_the_issues_calls_at_bind_time():
    script = r"""
import json, pyarrow as pa, pyarrow.compute as pc, toolkit as tk
from toolkit.errors import EndlessCallError
out = []
for call in [tk.call("split_pattern_regex", [tk.literal("abc")], pc.SplitPatternOptions("x*")),
             tk.call("replace_substring_regex", [tk.literal("abc")],
                     pc.ReplaceSubstringOptions("", "", max_replacements=-5))]:
    try:
        tk.optimize(call, pa.schema([("a", pa.int64())]))
        out.append("optimized")
    except EndlessCallError as exc:
        out.append(str(exc))
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=CHECKOUT, env={"PYTHONPATH": str(CHECKOUT)})
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout)
    assert said[0].startswith("split_pattern_regex would never finish: the pattern 'x*' "
                              "matches the empty string")
    assert said[1].startswith("replace_substring_regex would never finish")
    cli = subprocess.run([sys.executable, "-m", "toolkit.cli", "explain",
                          "split_pattern_regex('abc', pattern => 'x*')", "--schema", "a:int64"],
                         capture_output=True, text=True, timeout=120, cwd=CHECKOUT,
                         env={"PYTHONPATH": str(CHECKOUT), "COLUMNS": "80"})
    assert cli.returncode == 2 and "would never finish" in " ".join(cli.stderr.split())


def test_folding_leaves_a_value_beyond_its_budget_unfolded():
    """A constant a billion bytes long stays a call (under a memory cap, in a child);
    a small one folds."""
    script = r"""
import json, pyarrow as pa, toolkit as tk
schema = pa.schema([("a", pa.int64())])
big = tk.optimize(tk.parse("binary_repeat('abc', 400000000)"), schema)
small = tk.optimize(tk.parse("binary_repeat('abc', 3)"), schema)
pad = tk.optimize(tk.parse("utf8_lpad('x', width => 3000000)"), schema)
print(json.dumps([big.is_call, str(small), pad.is_call]))
"""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=CHECKOUT, env={"PYTHONPATH": str(CHECKOUT)},
                         preexec_fn=cap)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout) == [True, '"abcabcabc"', True]


_ATOMS = st.sampled_from(["a", "b", "[ab]", "(?:ab)", ".", "^", "$"])


def _regex():
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map(lambda t: f"(?:{t[0]}|{t[1]})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "{0,2}", "{1,2}"])).map(
                lambda t: f"(?:{t[0]}){t[1]}"))
    return st.recursive(_ATOMS, extend, max_leaves=6)


_PROBES = ["", "a", "b", "ab", "ba", "aab", "a\nb", "\n"]


@settings(max_examples=200, deadline=None)
@given(_regex())
def test_the_empty_match_check_agrees_with_pythons_regex_engine(pattern):
    """Oracle: Python's `re` on the same plain syntax, every match over texts of every
    context these patterns read (start, end, characters either side)."""
    empty = any(m.start() == m.end() for text in _PROBES for m in re.finditer(pattern, text))
    assert can_match_empty(pattern) == empty
