from pathlib import Path

from tomflywheel.world import GENERATORS, PROFILES

DOC = Path(__file__).resolve().parents[2] / "docs" / "world.md"


def test_every_generator_and_profile_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for name in GENERATORS.names():
        assert f"| `{name}` | `{GENERATORS.get(name).dataset}` |" in text
    for name in PROFILES:
        assert f"`{name}`" in text
