"""A persistent request cache: the same request body is never sent twice."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def request_key(path: str, body: dict[str, Any]) -> str:
    """Cache key of a request: a hash of its API path and full body (the body names the model)."""
    canonical = json.dumps(
        {"path": path, "body": body}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class RequestCache:
    """Responses keyed by request, in SQLite; each put is one transaction (a kill loses nothing).

    Args:
        path: The database file; created with its parent folders.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            " key TEXT PRIMARY KEY, response TEXT NOT NULL, latency_s REAL NOT NULL)"
        )
        self._db.commit()

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """The stored response and its original latency, or ``None``."""
        with self._lock:
            row = self._db.execute(
                "SELECT response, latency_s FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), float(row[1])

    def put(self, key: str, response: dict[str, Any], latency_s: float) -> None:
        """Store a response (a later put of the same key keeps the first)."""
        text = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO responses (key, response, latency_s) VALUES (?, ?, ?)",
                (key, text, latency_s),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
