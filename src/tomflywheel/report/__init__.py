"""Rendering: terminal tables and progress (rich), markdown/CSV tables, HTML reports."""

from tomflywheel.report._progress import progress_bar

__all__ = ["progress_bar"]
