"""Explain a pyarrow dataset scan: which files and row groups it reads, and why."""

from .scan_explanation import FragmentVerdict, RowGroupVerdict, ScanExplanation, explain_scan

__all__ = ["FragmentVerdict", "RowGroupVerdict", "ScanExplanation", "explain_scan"]
