"""The symbolic ToM world engine: events, belief tracking, two verifiers, generators, parsers.

Stories are lists of events (:class:`Story`); beliefs of any order are derived under a rule
profile (``default``, or a benchmark's ``tomi`` / ``hitom`` / ``tgtom`` conventions) by two
independent verifiers, the forward tracker (:func:`track`) and the temporal belief graph
(:func:`build_graph`). Generators (:data:`GENERATORS`) write normalized samples whose
``meta.trace`` lets any stage re-derive the answer (:func:`verify_sample`); parsers read the
benchmarks' own stories back into events (:func:`parse_story`), and :func:`check_benchmark`
re-derives their gold answers.
"""

# The built-in generators register themselves on import: this block is their list.
from tomflywheel.world import _gen_hitom, _gen_kosinski, _gen_tgtom, _gen_tomi  # noqa: F401
from tomflywheel.world._answer import Answerer, Verifier, answer_many, derive_answer
from tomflywheel.world._bench_hitom import load_hitom
from tomflywheel.world._bench_tgtom import load_tgtom, tgtom_spec
from tomflywheel.world._bench_tomi import load_tomi
from tomflywheel.world._check import (
    Benchmark,
    CheckReport,
    CheckRow,
    Mismatch,
    check_benchmark,
    check_items,
)
from tomflywheel.world._checkitem import CheckItem
from tomflywheel.world._controls import control_twin, is_false_belief
from tomflywheel.world._edits import (
    DropMove,
    Edit,
    ReplaceClaim,
    SetExits,
    SetMotive,
    describe_edit,
)
from tomflywheel.world._events import (
    CONTENTS,
    LOCATION,
    Claim,
    Distract,
    Enter,
    Event,
    Exit,
    Look,
    Move,
    Noise,
    Place,
    Read,
    SetState,
    Stay,
    Story,
    Witness,
    event_from_dict,
    event_to_dict,
)
from tomflywheel.world._explain import (
    AnswerClass,
    Reason,
    answer_explanations,
    classify_answer,
    explain_answers,
)
from tomflywheel.world._gen_hitom import HitomParams
from tomflywheel.world._gen_kosinski import KosinskiParams
from tomflywheel.world._gen_tgtom import TgtomParams
from tomflywheel.world._gen_tomi import TomiParams
from tomflywheel.world._generators import (
    GENERATORS,
    Generator,
    GeneratorParams,
    generate,
    write_generated,
)
from tomflywheel.world._parse import Grammar, parse_story
from tomflywheel.world._profiles import PROFILES, Profile, get_profile
from tomflywheel.world._qparse import parse_question
from tomflywheel.world._qtext import ANSWER_FORMATS, answer_format, answer_text, question_text
from tomflywheel.world._rationale import rationale
from tomflywheel.world._render import render_event, render_story
from tomflywheel.world._sample_spec import grammar_of, sample_spec
from tomflywheel.world._schema import EventRecord, StoryRecord
from tomflywheel.world._spec import Answer, QuestionSpec
from tomflywheel.world._stats import DatasetStats, dataset_stats
from tomflywheel.world._tbg import BeliefEdge, TemporalBeliefGraph, build_graph
from tomflywheel.world._tbg_score import (
    GraphPrediction,
    TBGScore,
    average_scores,
    gold_graph,
    score_tbg,
)
from tomflywheel.world._tgtom_questions import TGTOM_QUESTION_TYPES, tgtom_questions
from tomflywheel.world._tgtom_story import tgtom_story
from tomflywheel.world._trace import (
    Verification,
    make_trace,
    read_trace,
    verify_sample,
    verify_trace,
)
from tomflywheel.world._tracker import TrackerResult, track

__all__ = [
    "ANSWER_FORMATS",
    "CONTENTS",
    "GENERATORS",
    "LOCATION",
    "PROFILES",
    "TGTOM_QUESTION_TYPES",
    "Answer",
    "AnswerClass",
    "Answerer",
    "BeliefEdge",
    "Benchmark",
    "CheckItem",
    "CheckReport",
    "CheckRow",
    "Claim",
    "DatasetStats",
    "Distract",
    "DropMove",
    "Edit",
    "Enter",
    "Event",
    "EventRecord",
    "Exit",
    "Generator",
    "GeneratorParams",
    "Grammar",
    "GraphPrediction",
    "HitomParams",
    "KosinskiParams",
    "Look",
    "Mismatch",
    "Move",
    "Noise",
    "Place",
    "Profile",
    "QuestionSpec",
    "Read",
    "Reason",
    "ReplaceClaim",
    "SetExits",
    "SetMotive",
    "SetState",
    "Stay",
    "Story",
    "StoryRecord",
    "TBGScore",
    "TemporalBeliefGraph",
    "TgtomParams",
    "TomiParams",
    "TrackerResult",
    "Verification",
    "Verifier",
    "Witness",
    "answer_explanations",
    "answer_format",
    "answer_many",
    "answer_text",
    "average_scores",
    "build_graph",
    "check_benchmark",
    "check_items",
    "classify_answer",
    "control_twin",
    "dataset_stats",
    "derive_answer",
    "describe_edit",
    "event_from_dict",
    "event_to_dict",
    "explain_answers",
    "generate",
    "get_profile",
    "gold_graph",
    "grammar_of",
    "is_false_belief",
    "load_hitom",
    "load_tgtom",
    "load_tomi",
    "make_trace",
    "parse_question",
    "parse_story",
    "question_text",
    "rationale",
    "read_trace",
    "render_event",
    "render_story",
    "sample_spec",
    "score_tbg",
    "tgtom_questions",
    "tgtom_spec",
    "tgtom_story",
    "track",
    "verify_sample",
    "verify_trace",
    "write_generated",
]
