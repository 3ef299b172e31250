"""Small benchmark files in the benchmarks' own formats, for tests of mechanics (no shared data)."""

from __future__ import annotations

import json
from pathlib import Path

SOCIALIQA_RECORDS = 120


def socialiqa_files(records: int = SOCIALIQA_RECORDS) -> dict[str, bytes]:
    """A Social IQa split: ``dev.jsonl`` and its labels file ``dev-labels.lst`` (name -> bytes)."""
    rows = [
        {
            "context": f"Jordan lent Riley bike number {i} for the weekend.",
            "question": "How would Riley feel afterwards?",
            "answerA": "grateful",
            "answerB": "annoyed",
            "answerC": "bored",
        }
        for i in range(records)
    ]
    dev = "".join(json.dumps(row) + "\n" for row in rows)
    labels = "".join(f"{i % 3 + 1}\n" for i in range(records))
    return {"dev.jsonl": dev.encode("utf-8"), "dev-labels.lst": labels.encode("utf-8")}


def write_socialiqa(folder: Path, records: int = SOCIALIQA_RECORDS) -> Path:
    """Write ``socialiqa_files`` into ``folder`` (created); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in socialiqa_files(records).items():
        (folder / name).write_bytes(data)
    return folder
