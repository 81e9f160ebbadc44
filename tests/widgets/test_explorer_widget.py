"""The explorer is driven from Python: next, previous, the slider and "jump to next change"."""

import pytest

import toolkit as tk
from widgets import Explorer, SelectionView


@pytest.fixture(scope="module")
def recorded(penguins):
    """A real trace: the default passes on a predicate, then a lazy evaluation of the result."""
    length, year = tk.field("bill_length_mm"), tk.field("year")
    predicate = (tk.literal(40.0) < length) & ((year == 2008) | (tk.literal(1) + 1 == 3))
    with tk.trace() as t:
        optimized = tk.optimize(predicate, penguins.schema)
        tk.evaluate(tk.if_else(optimized, length, 0.0), penguins)
    return t


def _changed(trace) -> list[int]:
    return [i for i, s in enumerate(trace.steps) if getattr(s, "changed", False)]


def test_opens_on_the_first_step_with_its_tree_and_rules(recorded):
    explorer = Explorer(recorded)
    first = recorded.steps[0]
    # one numbering: the slider, the header and the invariants panel count from 1
    assert explorer.index == 0 and explorer.slider.value == 1
    assert explorer.slider.min == 1 and explorer.slider.max == len(recorded.steps)
    assert f"Step 1 of {len(recorded.steps)}" in explorer.header.value
    assert first.name in explorer.header.value
    assert "<svg" in explorer.tree.value
    # the changed node is marked in the drawing with the rule that changed it
    assert first.changed
    assert first.rewrites[0].rule.replace("-", "&#45;") in explorer.tree.value
    assert explorer.previous_button.disabled and not explorer.next_button.disabled
    for rewrite in first.rewrites:
        assert rewrite.rule in explorer.rules.value
    assert first.after.to_string().replace(">", "&gt;") in explorer.before_after.value


def test_next_and_previous_move_one_step_and_redraw_the_tree(recorded):
    explorer = Explorer(recorded)
    first_tree = explorer.tree.value
    assert explorer.next() == 1
    assert explorer.slider.value == 2 and "Step 2 of" in explorer.header.value
    assert recorded.steps[1].name in explorer.header.value
    assert explorer.tree.value != first_tree
    explorer.previous_button.click()  # the button does what .previous() does
    assert explorer.index == 0 and explorer.tree.value == first_tree
    assert explorer.previous() == 0  # stays inside the trace


def test_the_slider_moves_the_explorer(recorded):
    explorer = Explorer(recorded)
    last = len(recorded.steps) - 1
    explorer.slider.value = last + 1
    assert explorer.index == last
    assert f"Step {last + 1} of {last + 1}" in explorer.header.value
    assert explorer.next_button.disabled
    assert explorer.next() == last


def test_jump_to_next_change_skips_steps_that_changed_nothing(recorded):
    changed = _changed(recorded)
    assert len(changed) >= 2, "the predicate must make several passes change it"
    explorer = Explorer(recorded)
    explorer.go(changed[0])
    assert explorer.jump_to_next_change()
    assert explorer.index == changed[1]
    assert "(changed)" in explorer.header.value
    explorer.go(changed[-1])
    assert not explorer.jump_to_next_change()  # nothing changes after the last change
    assert explorer.index == changed[-1] and explorer.change_button.disabled


def test_an_unchanged_pass_says_so(recorded):
    unchanged = [i for i, s in enumerate(recorded.steps)
                 if hasattr(s, "rewrites") and not s.changed]
    explorer = Explorer(recorded)
    explorer.go(unchanged[0])
    assert "no change" in explorer.header.value
    assert "No rule fired" in explorer.rules.value
    assert "(unchanged)" in explorer.before_after.value


def test_an_evaluation_step_opens_the_selection_view(recorded):
    explorer = Explorer(recorded)
    explorer.go(len(recorded.steps) - 1)
    assert "evaluate (lazy) on 344 rows" in explorer.header.value
    view = explorer.selection_view
    assert isinstance(view, SelectionView) and view in explorer.detail.children
    rows = view.visible_rows()
    assert {r["if_else@root"] for r in rows} <= {"then", "else", "null"}
    explorer.previous()
    assert explorer.selection_view is None and explorer.detail.children == ()


def test_without_invariant_checks_the_panel_says_where_they_come_from(recorded):
    explorer = Explorer(recorded)
    assert "No invariant checks" in explorer.invariants.value


def test_an_empty_trace_shows_a_message_and_disables_the_controls():
    with tk.trace() as t:
        pass
    explorer = Explorer(t)
    assert "no steps" in explorer.header.value
    assert explorer.next_button.disabled and explorer.previous_button.disabled
    assert explorer.next() == 0 and not explorer.jump_to_next_change()


def test_a_trace_read_back_from_json_explores_the_same(recorded):
    loaded = tk.Trace.from_json(recorded.to_json())
    live, again = Explorer(recorded), Explorer(loaded)
    for _ in range(len(recorded.steps)):
        assert again.header.value == live.header.value
        assert again.rules.value == live.rules.value
        live.next()
        again.next()


def test_jump_to_previous_change_goes_back_over_unchanged_steps(recorded):
    changed = _changed(recorded)
    explorer = Explorer(recorded)
    explorer.go(len(recorded.steps) - 1)
    assert explorer.jump_to_previous_change()
    assert explorer.index == changed[-1]
    explorer.go(changed[0])
    assert explorer.previous_change_button.disabled
    assert not explorer.jump_to_previous_change() and explorer.index == changed[0]


def test_only_steps_that_changed_makes_next_and_previous_skip_the_rest(recorded):
    changed = _changed(recorded)
    explorer = Explorer(recorded)
    explorer.go(changed[0])
    explorer.changes_only.value = True
    visited = [explorer.next() for _ in changed[1:]]
    assert visited == changed[1:]
    assert explorer.next_button.disabled  # no change is left after the last one
    assert explorer.previous() == changed[-2]
    explorer.changes_only.value = False
    assert explorer.next() == changed[-2] + 1


def test_a_saved_notebook_keeps_the_current_step_as_a_picture(recorded):
    explorer = Explorer(recorded)
    explorer.go(1)
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    static = bundle["text/html"]
    assert "Step 2 of" in static and "<svg" in static
    assert "Explorer(children" not in static


def test_keys_step_and_jump_as_the_buttons_do(recorded):
    changed = _changed(recorded)
    explorer = Explorer(recorded)
    assert explorer.press("ArrowRight") and explorer.index == 1
    assert explorer.press("ArrowLeft") and explorer.index == 0
    assert explorer.press("n") and explorer.index == next(i for i in changed if i > 0)
    assert explorer.press("End") and explorer.index == len(recorded.steps) - 1
    assert explorer.press("p") and explorer.index == max(
        i for i in changed if i < len(recorded.steps) - 1)
    assert explorer.press("Home") and explorer.index == 0
    assert not explorer.press("x") and explorer.index == 0
    assert explorer.slider.value == 1  # the slider follows, counted from 1


def test_unfitted_pictures_zoom_and_scroll(recorded):
    import re

    explorer = Explorer(recorded)
    assert explorer.zoom.disabled  # fitted to the width: nothing to zoom
    explorer.fit.value = False
    assert not explorer.zoom.disabled
    frame = r'class="exprscope-picture" style="position:relative;width:([\d.]+)pt'
    natural = float(re.search(frame, explorer.tree.value).group(1))
    assert f'data-natural-width="{natural:.0f}pt"' in explorer.tree.value
    explorer.zoom.value = 2.0
    doubled = float(re.search(frame, explorer.tree.value).group(1))
    assert abs(doubled - 2 * natural) <= 1 and "overflow:auto" in explorer.tree.value


def _step_named(html: str) -> int:
    import re

    return int(re.search(r"Step (\d+) of", html).group(1))


def test_while_a_step_is_drawn_the_explorer_still_shows_the_previous_one_everywhere(recorded):
    import re

    explorer = Explorer(recorded)
    seen = []
    draw = explorer._tree

    def slow_draw(index):  # what a person sees while the picture of `index` is made
        seen.append((index, _step_named(explorer.header.value), explorer.slider.value,
                     re.search(r'data-step="(\d+)"', explorer.tree.value).group(1)))
        return draw(index)

    explorer._tree = slow_draw
    explorer.next()
    explorer.press("End")
    last = len(recorded.steps)
    assert seen == [(1, 1, 1, "1"), (last - 1, 2, 2, "2")]
    # once drawn, the header, the slider and the picture name the same step
    assert _step_named(explorer.header.value) == explorer.slider.value == last
    assert f'data-step="{last}"' in explorer.tree.value
    explorer.slider.value = 3  # a person dragging the slider
    assert _step_named(explorer.header.value) == 3 and 'data-step="3"' in explorer.tree.value
