"""Explaining one row: RowStory for expressions, RowJourney for plans."""

from . import story_json  # noqa: F401  (provides RowStory.to_json)
from .journey_records import JoinPartners, RowJourney, SourceRead, Stop, WhyNot
from .records import NodeStory, RowStories, RowStory, TreeChange
from .rows import RowNotFoundError
from .story import explain_row

__all__ = [
           "JoinPartners",
           "NodeStory",
           "RowJourney",
           "RowNotFoundError",
           "RowStories",
           "RowStory",
           "SourceRead",
           "Stop",
           "TreeChange",
           "WhyNot",
           "explain_row",
]
