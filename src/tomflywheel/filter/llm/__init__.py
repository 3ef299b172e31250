"""The LLM phase: the rubric judge, repair by rewrite, and the work runner that asks for both.

:class:`LLMWork` asks the judge model every question the applicable LLM-phase checks declare
(concurrently, through one ``ContentClient``) and the rewrites repair needs; the rubric is the
built-in LLM-phase check, and ``_repair`` writes a rewrite request and applies its reply.

May import: ``records``, ``dedup``, ``checks`` (the order is in ``filter/__init__.py``).
"""

# Built-in LLM-phase checks: each module registers its checks on import (llm: ... rubric).
from tomflywheel.filter.llm import _rubric  # noqa: F401
from tomflywheel.filter.llm._repair import apply_rewrite, repair_messages, rewrite_model
from tomflywheel.filter.llm._rubric import RUBRIC, is_control, item_text, rubric_messages
from tomflywheel.filter.llm._work import LLMWork

__all__ = [
    "RUBRIC",
    "LLMWork",
    "apply_rewrite",
    "is_control",
    "item_text",
    "repair_messages",
    "rewrite_model",
    "rubric_messages",
]
