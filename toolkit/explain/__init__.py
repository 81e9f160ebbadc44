"""Explaining one row: RowStory for expressions, RowJourney for plans."""

from .journey_records import JoinPartners, RowJourney, Stop, WhyNot
from .records import NodeStory, RowStories, RowStory, TreeChange
from .rows import RowNotFoundError
from . import story_json  # noqa: F401  (provides RowStory.to_json)
from .story import explain_row

__all__ = ["JoinPartners", "NodeStory", "RowJourney", "Stop", "WhyNot", "RowNotFoundError", "RowStories", "RowStory", "TreeChange",
           "explain_row"]
