from pathlib import Path

import pytest

from tomflywheel.config import load_settings, parse_settings
from tomflywheel.errors import ConfigError
from tomflywheel.llm import ContentClient

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in (
        "TOMFLYWHEEL_BASE_URL",
        "TOMFLYWHEEL_MODEL",
        "TOMFLYWHEEL_API_KEY",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("name", ["default.yaml", "vllm.yaml", "openai.yaml"])
def test_shipped_configs_load(name):
    settings = load_settings(ROOT / "configs" / name)
    assert settings.server == ("embedded" if name == "default.yaml" else "external")


def test_unknown_key_names_file_line_and_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("server: embedded\nllm:\n  concurrency: 4\n  concurency: 8\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(caught.value) == f"{path}:4: llm.concurency: Extra inputs are not permitted"


def test_bad_value_names_its_line_and_reason(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("server: embedded\nllm:\n  concurrency: 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"c\.yaml:3: llm\.concurrency: Input should be greater"):
        load_settings(path)


def test_bad_literal_is_rejected(tmp_path):
    with pytest.raises(ConfigError, match=r":1: server: Input should be 'embedded' or 'external'"):
        parse_settings("server: local\n", tmp_path / "c.yaml")


def test_invalid_yaml_names_the_line(tmp_path):
    with pytest.raises(ConfigError, match=r"c\.yaml:2: invalid YAML"):
        parse_settings("server: embedded\n  llm: x\n", tmp_path / "c.yaml")


def test_a_key_given_twice_is_refused_naming_both_lines(tmp_path):
    # YAML itself lets the last one win: the first value would be ignored without a word.
    path = tmp_path / "c.yaml"
    path.write_text(
        "server: external\nllm:\n  model: a\n  concurrency: 4\n  model: b\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(caught.value) == f"{path}:5: invalid YAML: duplicate key 'model' on lines 3 and 5"


def test_equal_keys_in_different_sections_are_not_duplicates(tmp_path):
    settings = parse_settings("llm:\n  model: a\njudge:\n  llm:\n    model: b\n", "c.yaml")
    assert (settings.llm.model, settings.judge.llm.model) == ("a", "b")


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_settings(tmp_path / "nope.yaml")


def test_environment_overrides_base_url_model_and_key(monkeypatch):
    monkeypatch.setenv("TOMFLYWHEEL_BASE_URL", "http://h1:8000/v1, http://h2:8000/v1/")
    monkeypatch.setenv("TOMFLYWHEEL_MODEL", "m")
    monkeypatch.setenv("TOMFLYWHEEL_API_KEY", "sk-secret-123")
    settings = parse_settings("server: embedded\n")
    assert settings.server == "external"
    assert settings.llm.base_urls == ["http://h1:8000/v1", "http://h2:8000/v1"]
    assert settings.llm.model == "m"
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-secret-123"


def test_api_key_env_names_the_variable(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    settings = load_settings(ROOT / "configs" / "openai.yaml")
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-openai"


def test_api_key_never_reaches_the_snapshot(monkeypatch):
    monkeypatch.setenv("TOMFLYWHEEL_API_KEY", "sk-secret-123")
    settings = parse_settings("server: embedded\n")
    assert "sk-secret-123" not in repr(settings)
    assert "sk-secret-123" not in str(settings.snapshot())
    assert "api_key" not in settings.snapshot()["llm"]


def test_api_key_in_a_file_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r":2: llm\.api_key: keys are never read from files"):
        parse_settings("llm:\n  api_key: sk-x\n", tmp_path / "c.yaml")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("judge:\n  llm:\n    model: j\n    api_key: sk-x\n", r":4: judge\.llm\.api_key:"),
        ("eval:\n  trials: 1\nfilter:\n  api_key: sk-x\n", r":4: filter\.api_key:"),
        ("embedded:\n  extra_args: [--port-x, --api-key=sk-x]\n", r":2: embedded\.extra_args:"),
    ],
)
def test_a_key_in_any_section_of_a_file_is_refused(tmp_path, text, where):
    with pytest.raises(ConfigError, match=where + ".*never read from files"):
        parse_settings(text, tmp_path / "c.yaml")


def test_the_judge_endpoint_reads_its_own_key_variable_never_the_models(monkeypatch):
    monkeypatch.setenv("TOMFLYWHEEL_API_KEY", "sk-model")
    text = "judge:\n  llm:\n    base_urls: [http://judge:8000/v1]\n    model: j\n"
    alone = parse_settings(text)
    assert alone.judge.llm is not None and alone.judge.llm.api_key is None
    monkeypatch.setenv("TOMFLYWHEEL_JUDGE_API_KEY", "sk-judge")
    settings = parse_settings(text)
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-model"
    assert settings.judge.llm is not None and settings.judge.llm.api_key is not None
    assert settings.judge.llm.api_key.get_secret_value() == "sk-judge"
    # What the judge's HTTP client sends as its bearer token.
    client = ContentClient(settings.judge.llm.model_copy(update={"cache": False}))
    assert client._pool.endpoints[0].client.api_key == "sk-judge"
    assert "sk-judge" not in str(settings.snapshot()) and "sk-model" not in str(settings.snapshot())


def test_judge_api_key_env_names_another_variable(monkeypatch):
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-other")
    settings = parse_settings("judge:\n  llm:\n    model: j\n    api_key_env: MY_JUDGE_KEY\n")
    assert settings.judge.llm is not None and settings.judge.llm.api_key is not None
    assert settings.judge.llm.api_key.get_secret_value() == "sk-other"


def test_default_config_is_the_packaged_one():
    from tomflywheel.config import BUILTIN_CONFIG

    assert (ROOT / "configs" / "default.yaml").resolve() == BUILTIN_CONFIG.resolve()


def test_a_folder_without_configs_reads_the_built_in_defaults(tmp_path, monkeypatch, capsys):
    from tomflywheel.cli._common import load

    monkeypatch.chdir(tmp_path)
    settings = load(None)
    assert settings == load_settings(ROOT / "configs" / "default.yaml")
    assert "built-in defaults" in capsys.readouterr().err


def test_a_config_named_explicitly_must_exist(tmp_path, monkeypatch):
    from tomflywheel.cli._common import load

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"other\.yaml: cannot read config"):
        load(Path("other.yaml"))


def test_a_default_config_in_the_working_folder_wins(tmp_path, monkeypatch):
    from tomflywheel.cli._common import load

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "default.yaml").write_text("server: external\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert load(None).server == "external"
