"""Feedback: mine bad cases, diagnose them, plan and synthesize targeted training candidates."""

from tomflywheel.feedback._diagnose import read_diagnoses
from tomflywheel.feedback._exports import chat_messages, export_chat_jsonl, export_sharegpt
from tomflywheel.feedback._llm_diagnosis import CATEGORY_LINES, LLMDiagnosis, diagnosis_messages
from tomflywheel.feedback._mining import BadCase, mine_bad_cases
from tomflywheel.feedback._naturalize import rename_agents
from tomflywheel.feedback._plan import PlanItem, SynthesisPlan, build_plan
from tomflywheel.feedback._profile import diagnoser_calibration, error_profile
from tomflywheel.feedback._roles import sample_role
from tomflywheel.feedback._stage import FeedbackSummary, feedback_dir, run_feedback
from tomflywheel.feedback._symbolic import symbolic_diagnosis
from tomflywheel.feedback._synthesize import fresh_samples, synthesize

__all__ = [
    "CATEGORY_LINES",
    "BadCase",
    "FeedbackSummary",
    "LLMDiagnosis",
    "PlanItem",
    "SynthesisPlan",
    "build_plan",
    "chat_messages",
    "diagnoser_calibration",
    "diagnosis_messages",
    "error_profile",
    "export_chat_jsonl",
    "export_sharegpt",
    "feedback_dir",
    "fresh_samples",
    "mine_bad_cases",
    "read_diagnoses",
    "rename_agents",
    "run_feedback",
    "sample_role",
    "symbolic_diagnosis",
    "synthesize",
]
