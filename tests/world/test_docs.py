from pathlib import Path

from tomflywheel.world._layers import LAYERS
from tomflywheel.world.generators import GENERATORS
from tomflywheel.world.physics import PROFILES

DOC = Path(__file__).resolve().parents[2] / "docs" / "world.md"


def test_every_generator_and_profile_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for name in GENERATORS.names():
        assert f"| `{name}` | `{GENERATORS.get(name).dataset}` |" in text
    for name in PROFILES:
        assert f"`{name}`" in text


def test_every_sub_package_and_generator_declaration_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for layer in LAYERS:
        assert f"| `{layer}` |" in text
    for name in GENERATORS.names():
        generator = GENERATORS.get(name)
        for item in (*generator.serves, *(c.value for c in generator.fallback_for)):
            assert f"`{item}`" in text
