"""Every command, given a bad path, says which path and why in a line, and exits 2.

Each path option or argument of every command gets each way a path can be wrong: missing, a
file where a folder belongs, a folder where a file belongs, and no permission. The config names
an external server on a closed port, so nothing here starts or reaches a model: every command
must fail on its paths first.
"""

from __future__ import annotations

import json
import os
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_commands import walk
from tomflywheel.cli import main

Kind = str
"""What a path is for: ``in-file``, ``in-dir``, ``in-any`` (read), ``out-file``, ``out-dir``."""


@dataclass(frozen=True)
class PathParam:
    """One path a command takes, with what the rest of its command line needs."""

    command: tuple[str, ...]
    flag: str | None
    """The option (``--out``), or ``None`` for a positional argument."""
    kind: Kind
    rest: Callable[[Path], list[str]] = lambda _: []
    """Other arguments, built in the test's folder (the good files it needs)."""


def _config(root: Path) -> list[str]:
    return ["--config", str(root / "good" / "config.yaml")]


def _jsonl(root: Path) -> str:
    return str(root / "good" / "samples.jsonl")


def _exp(root: Path) -> list[str]:
    return ["--exp", str(root / "good" / "exp")]


PARAMS = [
    PathParam(("serve",), "--config", "in-file"),
    PathParam(("serve",), "--model", "in-dir", _config),
    PathParam(("eval",), "--config", "in-file"),
    PathParam(("eval",), "--dataset", "in-file", _config),
    PathParam(("eval",), "--exp-dir", "out-dir", _config),
    PathParam(("example",), "--config", "in-file", lambda _: ["--story", "S.", "--question", "Q?"]),
    PathParam(("example",), "--dataset", "in-file", _config),
    PathParam(("flywheel",), "--config", "in-file"),
    PathParam(("flywheel",), "--run-dir", "out-dir", _config),
    PathParam(("train",), "--data", "in-file", lambda r: ["--out", str(r / "model"), *_config(r)]),
    PathParam(("train",), "--out", "out-dir", lambda r: ["--data", _jsonl(r), *_config(r)]),
    PathParam(
        ("train",),
        "--base",
        "in-dir",
        lambda r: ["--data", _jsonl(r), "--out", str(r / "m"), *_config(r)],
    ),
    PathParam(("train",), "--config", "in-file", lambda r: ["--data", _jsonl(r), "--out", "m"]),
    PathParam(
        ("train",),
        "--grpo-data",
        "in-file",
        lambda r: ["--data", _jsonl(r), "--out", str(r / "m"), *_config(r)],
    ),
    PathParam(("filter",), "--input", "in-file", lambda r: ["--no-llm", *_config(r)]),
    PathParam(("filter",), "--config", "in-file", lambda r: ["--input", _jsonl(r), "--no-llm"]),
    PathParam(
        ("filter",),
        "--train-dir",
        "out-dir",
        lambda r: ["--input", _jsonl(r), "--no-llm", *_config(r)],
    ),
    # A missing evaluation folder is no error: the guard has nothing to protect yet.
    PathParam(
        ("filter",),
        "--eval-dir",
        "opt-dir",
        lambda r: ["--input", _jsonl(r), "--no-llm", *_config(r)],
    ),
    PathParam(("report", "summary"), None, "in-dir"),
    PathParam(("report", "summary"), "--html", "out-file", lambda r: [str(r / "good" / "exp")]),
    PathParam(("report", "build"), None, "in-dir"),
    PathParam(("feedback",), "--exp", "in-dir", _config),
    PathParam(("feedback",), "--config", "in-file", _exp),
    PathParam(("feedback", "diagnose"), "--exp", "in-dir", _config),
    PathParam(("feedback", "diagnose"), "--config", "in-file", _exp),
    PathParam(("feedback", "synthesize"), "--exp", "in-dir", _config),
    PathParam(("feedback", "synthesize"), "--config", "in-file", _exp),
    # Nothing fetched yet is no error either.
    PathParam(("datasets", "list"), "--to", "opt-dir"),
    PathParam(("datasets", "import", "tgtom"), None, "in-any"),
    PathParam(
        ("datasets", "import", "mapping"),
        "--mapping",
        "in-file",
        lambda r: [_jsonl(r)],
    ),
    PathParam(
        ("datasets", "import", "mapping"),
        "--out",
        "out-file",
        lambda r: [_jsonl(r), "--mapping", str(r / "good" / "mapping.yaml")],
    ),
    PathParam(("datasets", "fetch", "hitom"), "--to", "out-dir", lambda _: ["--base-url", "x"]),
    # The import's folder is checked before any download (other ways need a download first).
    PathParam(("datasets", "fetch", "hitom"), "--datasets-dir", "not-a-file", lambda _: []),
    PathParam(("datasets", "generate", "tomi"), "--out", "out-file", lambda _: ["--n", "1"]),
    PathParam(("datasets", "generate", "tomi"), "--params", "in-file", lambda _: ["--n", "1"]),
    PathParam(("datasets", "stats"), None, "in-file"),
    PathParam(("datasets", "verify"), None, "in-file"),
    PathParam(("datasets", "export"), None, "in-file", lambda r: ["--to", str(r / "out")]),
    PathParam(("datasets", "export"), "--to", "out-dir", lambda r: [_jsonl(r)]),
    PathParam(("datasets", "audit"), None, "in-file", lambda _: ["--no-probe"]),
    PathParam(("datasets", "audit"), "--against", "in-file", lambda r: [_jsonl(r), "--no-probe"]),
    PathParam(("world", "check", "tgtom"), None, "in-any"),
]

BAD = {
    "in-file": ("missing", "folder", "no-permission"),
    "in-dir": ("missing", "file", "no-permission"),
    "in-any": ("missing", "no-permission"),
    "opt-dir": ("file", "no-permission"),
    "not-a-file": ("file",),
    "out-file": ("under-a-file", "folder", "no-permission"),
    "out-dir": ("under-a-file", "file", "no-permission"),
}
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _good_files(root: Path) -> None:
    good = root / "good"
    good.mkdir()
    # Nothing listens on port 9: a command that got past its paths would fail on the server.
    (good / "config.yaml").write_text(
        "server: external\nllm:\n  base_urls: [http://127.0.0.1:9/v1]\n  model: m\n"
        "  max_retries: 0\n  timeout_s: 1\n",
        encoding="utf-8",
    )
    sample = (
        '{"id": "s1", "story": "Sally puts the ball in the basket.", "question": "Where is the '
        'ball?", "answer": {"correct_answers": ["basket"], "wrong_answers": []}, '
        '"meta": {"dataset": "tomi", "question_type": "reality", "story_type": "true_belief"}}\n'
    )
    (good / "samples.jsonl").write_text(sample, encoding="utf-8")
    (good / "mapping.yaml").write_text(
        "name: toy\nfields: {story: story, question: question, correct: answer.correct_answers}\n",
        encoding="utf-8",
    )
    exp = good / "exp"
    (exp / "tomi").mkdir(parents=True)
    (exp / "config.yaml").write_text("llm: {model: m}\n", encoding="utf-8")
    metrics = {
        "dataset": "tomi",
        "overall": {"n": 1, "accuracy": 1.0, "ci95": [0.2, 1.0]},
        "counts": {},
    }
    (exp / "tomi" / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")


def _bad_path(root: Path, kind: Kind, how: str) -> Path:
    """A path that is wrong for ``kind`` in the way ``how`` says."""
    a_file = root / "a_file.txt"
    a_file.write_text("not a folder\n", encoding="utf-8")
    a_folder = root / "a_folder"
    a_folder.mkdir()
    if how == "missing":
        return root / "missing" / ("x.jsonl" if kind == "in-file" else "x")
    if how == "folder":
        return a_folder
    if how == "file":
        return a_file
    if how == "under-a-file":
        return a_file / ("out.jsonl" if kind == "out-file" else "out")
    assert how == "no-permission"
    if kind.startswith(("in-", "opt-")):
        locked = a_folder / ("data.jsonl" if kind == "in-file" else "data")
        if kind == "in-file":
            locked.write_text("{}\n", encoding="utf-8")
        else:
            locked.mkdir()
        locked.chmod(0)
        return locked
    a_folder.chmod(0o555)
    return a_folder / ("out.jsonl" if kind == "out-file" else "out")


def _cases():
    for param in PARAMS:
        for how in BAD[param.kind]:
            name = " ".join(param.command) + f" {param.flag or 'PATH'} {how}"
            marks = []
            if how == "no-permission" and AS_ROOT:
                marks.append(
                    pytest.mark.skip(reason="running as root: permission bits do not stop root")
                )
            yield pytest.param(param, how, id=name, marks=marks)


@pytest.mark.parametrize(("param", "how"), list(_cases()))
def test_a_bad_path_is_one_line_and_exit_2(param, how, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setenv("TOMFLYWHEEL_FETCH_BASE_URL", "http://127.0.0.1:9")
    for variable in ("TOMFLYWHEEL_BASE_URL", "TOMFLYWHEEL_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    _good_files(tmp_path)
    bad = _bad_path(tmp_path, param.kind, how)
    given = [param.flag, str(bad)] if param.flag else [str(bad)]
    argv = [*param.command, *given, *param.rest(tmp_path)]
    try:
        with pytest.raises(SystemExit) as info:
            main(argv)
    finally:
        for path in (tmp_path / "a_folder", bad):
            if path.exists() and not path.is_symlink():
                path.chmod(0o755)
    stderr = capsys.readouterr().err
    assert info.value.code == 2, stderr
    assert "Traceback" not in stderr
    # The line names the path (or, for a path under a file, the file in the way) or the flag.
    named = " ".join(stderr.replace("│", " ").split())
    assert any(str(p) in named for p in (bad, bad.parent)) or f"{param.flag}:" in named, stderr


def test_the_sweep_covers_every_path_of_every_command():
    wanted = set()
    for path, command in walk():
        hints = typing.get_type_hints(command.callback) if command.callback else {}
        for param in command.params:
            if "Path" in str(hints.get(param.name)):
                wanted.add((path, param.opts[0] if param.opts[0].startswith("-") else None))
    covered = {(p.command[: len(p.command)], p.flag) for p in PARAMS}
    # The sweep names an importer, generator or benchmark after the group path; drop it.
    covered = {(cmd[:2] if cmd[0] in ("datasets", "world") else cmd, flag) for cmd, flag in covered}
    assert wanted - covered == set()


def test_verbose_shows_the_traceback_before_the_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "400")
    (tmp_path / "a_file.txt").write_text("x\n", encoding="utf-8")
    out = tmp_path / "a_file.txt" / "out.jsonl"
    for verbose in ([], ["-v"]):
        with pytest.raises(SystemExit) as info:
            main([*verbose, "datasets", "generate", "tomi", "--n", "1", "--out", str(out)])
        stderr = capsys.readouterr().err
        assert info.value.code == 2
        assert ("Traceback" in stderr) == bool(verbose)
        assert stderr.strip().splitlines()[-1].startswith(f"error: {tmp_path / 'a_file.txt'}: ")
