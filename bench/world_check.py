"""The timed check process of ``bench/world.py``: verify a generated file, as a user's script would.

Only what the check needs is imported (the bench's own modules are not timed). Exit status 1
when a sample disagrees with a verifier.

    python bench/world_check.py FILE [WORKERS]     # WORKERS: 0 (default) = one per core
"""

from __future__ import annotations

import sys

from tomflywheel._cpus import available_cpus
from tomflywheel.world import verify_file


def main() -> None:
    path = sys.argv[1]
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    outcomes = verify_file(path, workers=workers or available_cpus())
    failures = sum(not line.verification.ok for line in outcomes)
    if failures:
        raise SystemExit(f"{failures} samples disagree with a verifier")


if __name__ == "__main__":
    main()
