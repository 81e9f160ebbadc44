"""Explaining one row: RowStory for expressions, RowJourney for plans."""

from .records import NodeStory, RowStories, RowStory, TreeChange
from .rows import RowNotFoundError
from . import story_json  # noqa: F401  (provides RowStory.to_json)
from .story import explain_row

__all__ = ["NodeStory", "RowNotFoundError", "RowStories", "RowStory", "TreeChange",
           "explain_row"]
