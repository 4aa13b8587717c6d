"""Config providers: placeholders resolved by file, env and directory providers, errors that name the
placeholder and never the secret, reverse transform for stored task configs, redaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect_worker.api import ConfigError
from connect_worker.runtime.config_providers import (
    ConfigTransformer,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    SecretRedactor,
    placeholders,
    reverse_transform,
)
from connect_worker.runtime.worker_config import WorkerConfig

PROVIDERS = {
    "config.providers": "file,env,dir",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.dir.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
}


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    (tmp_path / "db.properties").write_text("user=cdc\npassword=s3cr3t-pw\n")
    d = tmp_path / "dir"
    d.mkdir()
    (d / "token").write_text("tok-123456")
    return tmp_path


def transformer(env: dict[str, str] | None = None, **extra: str) -> ConfigTransformer:
    return ConfigTransformer.from_worker_properties({**PROVIDERS, **extra}, environ=env or {})


def test_placeholder_syntax_is_kafkas() -> None:
    (a, b) = placeholders("x ${file:/a/b.properties:k} ${env:HOME} y")
    assert (a.provider, a.path, a.key) == ("file", "/a/b.properties", "k")
    assert (b.provider, b.path, b.key) == ("env", "", "HOME")


def test_file_env_and_directory_providers_resolve(secrets: Path) -> None:
    t = transformer({"PGPASS": "from-env-1"})
    result = t.transform(
        {
            "database.user": f"${{file:{secrets}/db.properties:user}}",
            "database.password": f"${{file:{secrets}/db.properties:password}}",
            "other": "pre-${env:PGPASS}-post",
            "token": f"${{dir:{secrets}/dir:token}}",
            "plain": "no placeholder",
            "unknown.provider": "${vault:secret/x:y}",
        }
    )
    assert result.errors == {}
    assert result.data == {
        "database.user": "cdc",
        "database.password": "s3cr3t-pw",
        "other": "pre-from-env-1-post",
        "token": "tok-123456",
        "plain": "no placeholder",
        "unknown.provider": "${vault:secret/x:y}",  # no such provider: left as text, as Kafka does
    }


def test_unresolvable_placeholders_are_errors_naming_the_placeholder(secrets: Path) -> None:
    t = transformer({"SET": "value-1"})
    missing_file = "${file:/nonexistent/x.properties:password}"
    missing_key = f"${{file:{secrets}/db.properties:nokey}}"
    result = t.transform({"a": missing_file, "b": missing_key, "c": "${env:UNSET}", "d": f"${{dir:{secrets}:nofile}}"})
    assert result.errors == {
        "a": [f"Could not resolve {missing_file}: could not read properties from file /nonexistent/x.properties: "
              "No such file or directory"],
        "b": [f"Could not resolve {missing_key}: no key nokey in {secrets}/db.properties"],
        "c": ["Could not resolve ${env:UNSET}: no value for UNSET"],
        "d": [f"Could not resolve ${{dir:{secrets}:nofile}}: no key nofile in {secrets}"],
    }  # fmt: skip
    assert result.data["a"] == missing_file
    with pytest.raises(ConfigError, match=r"Could not resolve \$\{env:UNSET\}"):
        t.resolve({"c": "${env:UNSET}"})


def test_allowed_paths_and_allowlist(secrets: Path) -> None:
    t = transformer(
        {"OK_1": "yes", "NOPE": "no"},
        **{
            "config.providers.file.param.allowed.paths": str(secrets / "dir"),
            "config.providers.env.param.allowlist.pattern": "OK_.*",
        },
    )
    result = t.transform({"a": f"${{file:{secrets}/db.properties:password}}", "b": "${env:OK_1}", "c": "${env:NOPE}"})
    assert result.data["b"] == "yes"
    assert "is not allowed by allowed.paths" in result.errors["a"][0]
    assert result.errors["c"] == ["Could not resolve ${env:NOPE}: no value for NOPE"]


def test_the_allowlist_is_a_java_regex(secrets: Path) -> None:
    """allowlist.pattern is compiled as java.util.regex.Pattern (a class intersection Python's re has not)."""
    t = transformer({"OK_1": "yes", "OK_Q": "no"}, **{"config.providers.env.param.allowlist.pattern": "OK_[\\w&&[^Q]]"})
    result = t.transform({"a": "${env:OK_1}", "b": "${env:OK_Q}"})
    assert result.data["a"] == "yes" and "b" in result.errors


def test_provider_configuration_errors() -> None:
    with pytest.raises(ConfigError, match=r"config\.providers\.x\.class"):
        ConfigTransformer.from_worker_properties({"config.providers": "x"})
    with pytest.raises(ConfigError, match=r"Class com\.example\.Vault could not be found"):
        ConfigTransformer.from_worker_properties(
            {"config.providers": "v", "config.providers.v.class": "com.example.Vault"}
        )
    simple = ConfigTransformer.from_worker_properties(
        {"config.providers": "f", "config.providers.f.class": "FileConfigProvider"}
    )
    assert isinstance(simple.providers["f"], FileConfigProvider)


def test_providers_directly(secrets: Path) -> None:
    assert EnvVarConfigProvider({"A": "1"}).get("", {"A", "B"}) == {"A": "1"}
    assert DirectoryConfigProvider().get(str(secrets / "dir"), {"token", "../db.properties"}) == {"token": "tok-123456"}
    assert FileConfigProvider().get(str(secrets / "db.properties"), {"user"}) == {"user": "cdc"}


def test_reverse_transform_puts_placeholders_back() -> None:
    raw = {"database.password": "${file:/s.properties:pw}", "topic": "t", "mixed": "a-${env:X}"}
    tasks = [{"database.password": "secret", "topic": "t", "mixed": "a-b", "task.class": "T"}]
    assert reverse_transform(raw, tasks) == [
        {"database.password": "${file:/s.properties:pw}", "topic": "t", "mixed": "a-${env:X}", "task.class": "T"}
    ]


def test_redactor_replaces_resolved_secrets(secrets: Path) -> None:
    t = transformer()
    placeholder = f"${{file:{secrets}/db.properties:password}}"
    t.transform({"p": placeholder})
    assert t.redactor.redact("login failed with s3cr3t-pw!") == f"login failed with {placeholder}!"
    short = SecretRedactor()
    short.add("ab", "${env:X}")  # too short to hunt for: would mangle unrelated text
    assert short.redact("abc") == "abc"


def test_worker_config_resolves_its_own_placeholders(secrets: Path) -> None:
    config = WorkerConfig.from_properties(
        {
            **PROVIDERS,
            "bootstrap.servers": f"${{file:{secrets}/db.properties:user}}:9092",
            "producer.sasl.password": f"${{file:{secrets}/db.properties:password}}",
        }
    )
    assert config.bootstrap_servers == "cdc:9092"
    assert config.prefixed("producer.") == {"sasl.password": "s3cr3t-pw"}
    assert config.raw["config.providers.file.class"].endswith("FileConfigProvider")
    with pytest.raises(ConfigError) as e:
        WorkerConfig.from_properties(
            {**PROVIDERS, "offset.flush.interval.ms": f"${{file:{secrets}/db.properties:password}}"}
        )
    assert "s3cr3t-pw" not in str(e.value) and "db.properties:password}" in str(e.value)
