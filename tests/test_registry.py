import pytest

from tomflywheel._registry import Registry
from tomflywheel.errors import ConfigError


def test_registered_factory_is_returned_by_name():
    registry: Registry = Registry("judge method")

    @registry.register("exact")
    def exact() -> str:
        return "made"

    assert registry.get("exact")() == "made"
    assert registry.names() == ["exact"]
    assert "exact" in registry


def test_unknown_name_lists_the_known_ones():
    registry: Registry = Registry("importer")
    registry.register("tomi")(lambda: None)
    registry.register("hitom")(lambda: None)
    with pytest.raises(ConfigError, match=r"unknown importer 'bigtm' \(known: hitom, tomi\)"):
        registry.get("bigtm")


def test_registering_a_name_twice_fails():
    registry: Registry = Registry("check")
    registry.register("schema")(lambda: None)
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("schema")(lambda: None)
