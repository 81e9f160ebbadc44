"""`%%explain_scan` and `ScanView`: a dataset scan explained in the notebook."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from widgets import Explorer, ScanView


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("scan-view")
    table = pa.table({"k": list(range(120)), "v": list(range(120))})
    part = ds.partitioning(pa.schema([("k", pa.int64())]), flavor="hive")
    ds.write_dataset(table, root, format="parquet", partitioning=part)
    return ds.dataset(root, format="parquet", partitioning=part), root


def test_magic_shows_the_paged_table_and_opens_a_files_trace(ip, dataset):
    ip.user_ns["flights_ds"] = dataset[0]
    view = ip.run_cell_magic("explain_scan", "--data flights_ds", "k < 3 AND v >= 0")
    assert isinstance(view, ScanView)
    assert "reads <b>3</b> of 120 files" in view.table.value
    assert view.pages == 3 and view.previous_button.disabled
    view.next_button.click()
    assert view.page == 1 and "files 51–100 of 120" in view.table.value
    explorer = view.open_fragment(0)
    assert isinstance(explorer, Explorer) and len(explorer.cursor) >= 1
    view.picker.value = 5
    assert isinstance(view.explorer_box.children[0], Explorer)
    assert "text/html" in view._repr_mimebundle_()


def test_magic_takes_a_folder_path(ip, dataset):
    view = ip.run_cell_magic("explain_scan", f"--data {dataset[1]}", "k = 7")
    assert view.scan.files == (1, 120)


def test_mistakes_are_one_message(ip, dataset, capsys):
    ip.user_ns["t"] = pa.table({"x": [1]})
    assert ip.run_cell_magic("explain_scan", "--data t", "x > 1") is None
    assert ip.run_cell_magic("explain_scan", "--data nowhere", "x > 1") is None
    ip.user_ns["flights_ds"] = dataset[0]
    assert ip.run_cell_magic("explain_scan", "--data flights_ds", "kk < 3") is None
    err = capsys.readouterr().err
    assert "needs a pyarrow.dataset.Dataset" in err
    assert "no variable or folder" in err
    assert "kk" in err and "Traceback" not in err
