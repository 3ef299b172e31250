"""Allow ``python -m tomflywheel``."""

from tomflywheel.cli import main

main()
