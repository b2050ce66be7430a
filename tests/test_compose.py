"""Static checks of the demo stack: docker-compose.yml, Dockerfile and collector-config/.

No Docker engine is needed: every file is parsed and cross-checked against the others, so a
renamed service, a moved port or a component missing from a pipeline fails here rather than on
`docker compose up`. Only `docker compose config` needs the compose CLI plugin, and that one test
is skipped where the plugin is absent.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import tomllib
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = ROOT / "collector-config"
COMPOSE_FILE = ROOT / "docker-compose.yml"

DEFAULT_COLLECTOR_CONFIG = "otel-collector.yaml"
TEMPO_COLLECTOR_CONFIG = "otel-collector-tempo.yaml"
COLLECTOR_CONFIGS = (DEFAULT_COLLECTOR_CONFIG, TEMPO_COLLECTOR_CONFIG)

# Component types that exist in otel/opentelemetry-collector-contrib:0.159.0 and that these
# configs may use. `otlp` as an exporter is only a deprecated alias of `otlp_grpc` there, and
# `logging` (replaced by `debug`) and `jaeger` (Jaeger takes OTLP) exporters are gone.
KNOWN_TYPES = {
    "receivers": {"otlp"},
    "processors": {"memory_limiter", "batch", "tail_sampling"},
    "exporters": {"otlp_grpc", "debug"},
}
COMPONENT_KINDS = tuple(KNOWN_TYPES)

# Jaeger v2's all-in-one configuration receives OTLP/gRPC on this port (the image sets
# JAEGER_LISTEN_HOST=0.0.0.0 so other containers can reach it).
JAEGER_OTLP_GRPC_PORT = 4317

# OTEL_EXPORTER_OTLP_PROTOCOL value -> the otlp receiver protocol that serves it.
RECEIVER_PROTOCOL_FOR = {"http/protobuf": "http", "http/json": "http", "grpc": "grpc"}

TAIL_SAMPLING_BEGIN = "# BEGIN tail_sampling example"
TAIL_SAMPLING_END = "# END tail_sampling example"
END_REASON_ATTRIBUTE = "a2a.progress.end_reason"
KEPT_END_REASONS = {"aborted", "turn_failed", "turn_canceled"}

_INTERPOLATION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::?-(?P<default>[^}]*))?\}")


# --- loading -------------------------------------------------------------------------------------


@cache
def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def compose() -> dict[str, Any]:
    return load_yaml(COMPOSE_FILE)


def services() -> dict[str, dict[str, Any]]:
    return compose()["services"]


def collector_config(name: str) -> dict[str, Any]:
    return load_yaml(CONFIG_DIR / name)


def tempo_config() -> dict[str, Any]:
    return load_yaml(CONFIG_DIR / "tempo.yaml")


def interpolate(text: str) -> str:
    """Resolve ${VAR:-default} the way compose does with VAR unset."""
    return _INTERPOLATION.sub(lambda m: m.group("default") or "", text)


def service_by_image(repository: str) -> str:
    """The one compose service that runs `repository` (image name without tag)."""
    names = [
        name
        for name, svc in services().items()
        if svc.get("image", "").rsplit(":", 1)[0] == repository
    ]
    assert len(names) == 1, f"expected exactly one service running {repository}, got {names}"
    return names[0]


def collector_service() -> str:
    return service_by_image("otel/opentelemetry-collector-contrib")


def command_args(service: str) -> list[str]:
    command = services()[service]["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def flag_value(args: list[str], flag: str) -> str:
    for i, arg in enumerate(args):
        if arg == flag:
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    raise AssertionError(f"{flag} not in {args}")


def environment(service: str) -> dict[str, str]:
    env = services()[service].get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def depends_on(service: str) -> dict[str, dict[str, Any]]:
    deps = services()[service].get("depends_on", {})
    if isinstance(deps, list):
        return {name: {"condition": "service_started"} for name in deps}
    return deps


def published_ports(service: str) -> dict[int, int]:
    """container port -> host port, from short-syntax `ports` entries."""
    mapping = {}
    for entry in services()[service].get("ports", []):
        *host, container = str(entry).split("/")[0].split(":")
        mapping[int(container)] = int(host[-1]) if host else int(container)
    return mapping


def bind_mounts(service: str) -> dict[str, Path]:
    """container path -> host path of every ./relative bind mount, defaults interpolated."""
    mounts = {}
    for entry in services()[service].get("volumes", []):
        source, target, *_ = interpolate(entry).split(":")
        if source.startswith("."):
            mounts[target] = (ROOT / source).resolve()
    return mounts


def host_port(endpoint: str) -> tuple[str, int]:
    parts = urlsplit(endpoint if "://" in endpoint else f"//{endpoint}")
    assert parts.hostname is not None
    assert parts.port is not None, f"{endpoint} has no port"
    return parts.hostname, parts.port


def otlp_receiver_port(config: dict[str, Any], protocol: str) -> int:
    return host_port(config["receivers"]["otlp"]["protocols"][protocol]["endpoint"])[1]


def tempo_otlp_grpc_port() -> int:
    receiver = tempo_config()["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]
    return host_port(receiver["endpoint"])[1]


def component_type(component_id: str) -> str:
    return component_id.split("/", 1)[0]


def pipelines(name: str) -> list[tuple[str, str, dict[str, list[str]]]]:
    return [
        (name, pipeline, spec)
        for pipeline, spec in collector_config(name)["service"]["pipelines"].items()
    ]


ALL_PIPELINES = [entry for name in COLLECTOR_CONFIGS for entry in pipelines(name)]
PIPELINE_IDS = [f"{name}:{pipeline}" for name, pipeline, _ in ALL_PIPELINES]


# --- collector configs ---------------------------------------------------------------------------


@pytest.mark.parametrize(("config", "pipeline", "spec"), ALL_PIPELINES, ids=PIPELINE_IDS)
@pytest.mark.parametrize("kind", COMPONENT_KINDS)
def test_pipeline_names_only_defined_components(
    config: str, pipeline: str, spec: dict[str, list[str]], kind: str
) -> None:
    used = spec.get(kind, [])
    defined = collector_config(config).get(kind) or {}
    if kind != "processors":
        assert used, f"{pipeline} pipeline has no {kind}"
    missing = [component for component in used if component not in defined]
    assert not missing, f"{config}: {pipeline} uses undefined {kind} {missing}"


@pytest.mark.parametrize(("config", "pipeline", "spec"), ALL_PIPELINES, ids=PIPELINE_IDS)
def test_memory_limiter_first_then_batch(
    config: str, pipeline: str, spec: dict[str, list[str]]
) -> None:
    processors = spec["processors"]
    assert processors[0] == "memory_limiter", f"{config}:{pipeline} {processors}"
    assert "batch" in processors[1:], f"{config}:{pipeline} {processors}"


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
def test_traces_and_metrics_pipelines(config: str) -> None:
    found = collector_config(config)["service"]["pipelines"]
    assert {"traces", "metrics"} <= set(found)
    assert found["metrics"]["exporters"] == ["debug"]


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
@pytest.mark.parametrize("kind", COMPONENT_KINDS)
def test_component_types_exist_in_pinned_collector(config: str, kind: str) -> None:
    defined = collector_config(config).get(kind) or {}
    unknown = {component_type(c) for c in defined} - KNOWN_TYPES[kind]
    assert not unknown, f"{config}: {kind} {unknown} not in collector 0.159.0 as written"


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
@pytest.mark.parametrize(("protocol", "port"), [("grpc", 4317), ("http", 4318)])
def test_otlp_receiver_listens_on_all_interfaces(config: str, protocol: str, port: int) -> None:
    endpoint = collector_config(config)["receivers"]["otlp"]["protocols"][protocol]["endpoint"]
    assert endpoint == f"0.0.0.0:{port}"


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
def test_debug_exporter_is_basic(config: str) -> None:
    assert collector_config(config)["exporters"]["debug"] == {"verbosity": "basic"}


def _exporter_target(config: str, exporter: str) -> tuple[str, int]:
    spec = collector_config(config)["exporters"][exporter]
    assert spec["tls"]["insecure"] is True, f"{exporter}: plaintext gRPC inside the compose network"
    assert exporter in collector_config(config)["service"]["pipelines"]["traces"]["exporters"]
    return host_port(spec["endpoint"])


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
def test_jaeger_exporter_targets_jaeger_service(config: str) -> None:
    jaeger = service_by_image("jaegertracing/jaeger")
    assert _exporter_target(config, "otlp_grpc/jaeger") == (jaeger, JAEGER_OTLP_GRPC_PORT)
    assert str(JAEGER_OTLP_GRPC_PORT) in [str(p) for p in services()[jaeger]["expose"]]


def test_tempo_exporter_targets_tempo_receiver() -> None:
    tempo = service_by_image("grafana/tempo")
    target = _exporter_target(TEMPO_COLLECTOR_CONFIG, "otlp_grpc/tempo")
    assert target == (tempo, tempo_otlp_grpc_port())


def test_default_collector_config_does_not_need_tempo() -> None:
    """Without the `tempo` profile there is no tempo service to export to."""
    exporters = collector_config(DEFAULT_COLLECTOR_CONFIG)["exporters"]
    assert not [e for e in exporters if e.endswith("/tempo")]


def _uncomment_tail_sampling(config: str) -> str:
    text = (CONFIG_DIR / config).read_text(encoding="utf-8")
    lines = text.splitlines()
    begin = next(i for i, line in enumerate(lines) if line.strip() == TAIL_SAMPLING_BEGIN)
    end = next(i for i, line in enumerate(lines) if line.strip() == TAIL_SAMPLING_END)
    assert begin < end
    for i in range(begin + 1, end):
        assert lines[i].lstrip().startswith("#"), f"line {i + 1} of the example is live config"
        lines[i] = re.sub(r"^(\s*)# ?", r"\1", lines[i], count=1)
    return "\n".join(lines)


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
def test_tail_sampling_example_is_commented_out(config: str) -> None:
    assert "tail_sampling" not in collector_config(config)["processors"]


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
def test_tail_sampling_example_once_uncommented(config: str) -> None:
    uncommented = yaml.safe_load(_uncomment_tail_sampling(config))
    tail = uncommented["processors"]["tail_sampling"]
    policies = {policy["type"]: policy for policy in tail["policies"]}
    for policy in tail["policies"]:
        assert policy["name"]
        assert policy["type"] in policy, f"{policy['name']}: settings go under its type key"

    by_reason = policies["string_attribute"]["string_attribute"]
    assert by_reason["key"] == END_REASON_ATTRIBUTE
    assert set(by_reason["values"]) == KEPT_END_REASONS
    assert policies["status_code"]["status_code"]["status_codes"] == ["ERROR"]
    assert 0 < policies["probabilistic"]["probabilistic"]["sampling_percentage"] < 100

    # Switched on as the how-to comment says, the traces pipeline keeps the ordering rules and
    # names only defined processors.
    text = (CONFIG_DIR / config).read_text(encoding="utf-8")
    (advice,) = re.findall(r"^\s*#\s+(processors: \[.*tail_sampling.*\])$", text, re.MULTILINE)
    processors = yaml.safe_load(advice)["processors"]
    assert processors[0] == "memory_limiter"
    assert processors.index("tail_sampling") < processors.index("batch")
    assert set(processors) <= set(uncommented["processors"])


def test_tail_sampling_matches_what_the_instrumentor_records() -> None:
    consumer = pytest.importorskip("a2a_progress.consumer")
    conventions = pytest.importorskip("a2a_progress.otel.conventions")
    assert conventions.END_REASON == END_REASON_ATTRIBUTE
    assert {str(reason) for reason in consumer.EndReason} >= KEPT_END_REASONS


# --- tempo / grafana -----------------------------------------------------------------------------


def test_tempo_receiver_and_local_storage() -> None:
    config = tempo_config()
    grpc = config["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]
    # Tempo's receivers default to localhost, unreachable from the collector's container.
    assert host_port(grpc["endpoint"])[0] == "0.0.0.0"
    trace = config["storage"]["trace"]
    assert trace["backend"] == "local"
    for path in (trace["wal"]["path"], trace["local"]["path"]):
        assert Path(path).is_relative_to("/var/tempo")
    tempo = services()[service_by_image("grafana/tempo")]
    assert "tempo-data:/var/tempo" in tempo["volumes"]


def test_grafana_datasource_points_at_tempo_http_port() -> None:
    provisioning = load_yaml(CONFIG_DIR / "grafana-datasources.yaml")
    (datasource,) = [d for d in provisioning["datasources"] if d["type"] == "tempo"]
    expected = (service_by_image("grafana/tempo"), tempo_config()["server"]["http_listen_port"])
    assert urlsplit(datasource["url"]).scheme == "http"
    assert host_port(datasource["url"]) == expected


# --- compose -------------------------------------------------------------------------------------


def test_compose_spec_has_no_version_key() -> None:
    assert "version" not in compose()


IMAGE_SERVICES = [name for name, svc in services().items() if "image" in svc]


@pytest.mark.parametrize("service", IMAGE_SERVICES)
def test_image_is_pinned(service: str) -> None:
    image = services()[service]["image"]
    _, sep, tag = image.rpartition(":")
    assert sep, f"{service}: {image} has no tag"
    assert "/" not in tag, f"{service}: {image} has no tag (that colon is a registry port)"
    assert tag != "latest"
    assert re.search(r"\d", tag), f"{service}: {image} is not a version tag"


@pytest.mark.parametrize("service", list(services()))
def test_depends_on_existing_services(service: str) -> None:
    unknown = set(depends_on(service)) - set(services())
    assert not unknown, f"{service} depends on unknown services {unknown}"


@pytest.mark.parametrize("service", list(services()))
def test_bind_mounts_exist(service: str) -> None:
    for target, source in bind_mounts(service).items():
        assert source.is_file(), f"{service}: {source} (for {target}) does not exist"


OTLP_ENV_SERVICES = [
    name for name in services() if "OTEL_EXPORTER_OTLP_ENDPOINT" in environment(name)
]


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
@pytest.mark.parametrize("service", OTLP_ENV_SERVICES)
def test_otlp_endpoint_reaches_collector_receiver(service: str, config: str) -> None:
    env = environment(service)
    protocol = env.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")  # the SDK's default
    expected_port = otlp_receiver_port(collector_config(config), RECEIVER_PROTOCOL_FOR[protocol])
    endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"]
    assert urlsplit(endpoint).scheme == "http", "the collector's receivers are plaintext"
    assert host_port(endpoint) == (collector_service(), expected_port)


def test_demo_services_export_through_collector() -> None:
    assert {"auditor", "callee", "caller"} <= set(OTLP_ENV_SERVICES)


@pytest.mark.parametrize("service", ["auditor", "callee", "caller"])
def test_demo_service_otel_environment(service: str) -> None:
    env = environment(service)
    expected = {
        "OTEL_SERVICE_NAME": f"demo-{service}",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "none",
        "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED": "false",
    }
    assert {key: env.get(key) for key in expected} == expected
    assert services()[service]["build"] == "."
    assert command_args(service)[:2] == ["opentelemetry-instrument", "a2a-progress"]


@pytest.mark.parametrize("config", COLLECTOR_CONFIGS)
@pytest.mark.parametrize("protocol", ["grpc", "http"])
def test_collector_publishes_receiver_ports(config: str, protocol: str) -> None:
    port = otlp_receiver_port(collector_config(config), protocol)
    assert published_ports(collector_service()).get(port) == port


def test_collector_mounts_the_config_it_is_told_to_load() -> None:
    service = collector_service()
    config_path = flag_value(command_args(service), "--config")
    mounts = bind_mounts(service)
    assert mounts[config_path] == CONFIG_DIR / DEFAULT_COLLECTOR_CONFIG
    assert "${COLLECTOR_CONFIG:-otel-collector.yaml}" in services()[service]["volumes"][0]
    header = COMPOSE_FILE.read_text(encoding="utf-8").split("services:", 1)[0]
    assert f"COLLECTOR_CONFIG={TEMPO_COLLECTOR_CONFIG}" in header
    assert "--profile tempo" in header
    assert "jaeger" in depends_on(service)


def test_tempo_mounts_the_config_it_is_told_to_load() -> None:
    service = service_by_image("grafana/tempo")
    config_path = flag_value(command_args(service), "-config.file")
    assert bind_mounts(service)[config_path] == CONFIG_DIR / "tempo.yaml"


def test_grafana_provisions_the_datasource_file() -> None:
    mounts = bind_mounts(service_by_image("grafana/grafana"))
    targets = [t for t, s in mounts.items() if s == CONFIG_DIR / "grafana-datasources.yaml"]
    assert [Path(t).parent for t in targets] == [Path("/etc/grafana/provisioning/datasources")]
    env = environment(service_by_image("grafana/grafana"))
    assert env["GF_AUTH_ANONYMOUS_ENABLED"] == "true"
    assert env["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Admin"


@pytest.mark.parametrize("service", list(services()))
def test_only_tempo_and_grafana_are_in_the_tempo_profile(service: str) -> None:
    in_profile = "tempo" in services()[service].get("profiles", [])
    image = services()[service].get("image", "")
    assert in_profile == image.startswith(("grafana/tempo:", "grafana/grafana:"))


def test_callee_publishes_its_port_and_health_checks_it() -> None:
    args = command_args("callee")
    assert args[2] == "serve-demo"
    port = int(flag_value(args, "--port"))
    assert flag_value(args, "--host") == "0.0.0.0"
    assert flag_value(args, "--public-host") == "callee"
    assert int(flag_value(args, "--grpc-port")) != port
    assert published_ports("callee") == {port: port}

    test = services()["callee"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "python"], "slim images have no curl"
    assert f"http://localhost:{port}/.well-known/agent-card.json" in " ".join(test)


def test_callee_consults_the_auditor_it_waits_for() -> None:
    auditor = command_args("auditor")
    assert auditor[2] == "serve-demo"
    assert flag_value(auditor, "--agent") == "auditor"
    assert flag_value(auditor, "--host") == "0.0.0.0"
    assert flag_value(auditor, "--public-host") == "auditor"
    auditor_port = int(flag_value(auditor, "--port"))
    callee = command_args("callee")
    # Both serve gRPC too: in one network namespace each container has its own ports, but a
    # distinct number keeps the stack runnable with host networking as well.
    assert int(flag_value(auditor, "--grpc-port")) != int(flag_value(callee, "--grpc-port"))
    consult = flag_value(callee, "--consult")
    assert urlsplit(consult).scheme == "http"
    assert host_port(consult) == ("auditor", auditor_port)
    assert depends_on("callee")["auditor"]["condition"] == "service_healthy"
    test = services()["auditor"]["healthcheck"]["test"]
    assert f"http://localhost:{auditor_port}/.well-known/agent-card.json" in " ".join(test)
    assert published_ports("auditor") == {}, "the auditor is reached inside the network only"


def test_caller_targets_callee() -> None:
    args = command_args("caller")
    assert args[2] == "demo"
    remote = flag_value(args, "--remote")
    assert urlsplit(remote).scheme == "http"
    assert host_port(remote) == ("callee", int(flag_value(command_args("callee"), "--port")))
    assert float(flag_value(args, "--every")) > 0

    deps = depends_on("caller")
    assert deps["callee"]["condition"] == "service_healthy"
    assert collector_service() in deps


def compose_cli() -> list[str]:
    """The compose CLI here: the docker plugin (v2), else Debian's docker-compose (v1.29).

    Both check the file against the compose specification's schema; `.ci/run` installs the
    Debian package where neither is present, so this check always runs.
    """
    if shutil.which("docker") is not None:
        probe = subprocess.run(
            ["docker", "compose", "version"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            return ["docker", "compose"]
    standalone = shutil.which("docker-compose")
    assert standalone is not None, (
        "no compose CLI: install the docker compose plugin or docker-compose"
    )
    return [standalone]


def test_docker_compose_config_validates() -> None:
    result = subprocess.run(
        [*compose_cli(), "-f", str(COMPOSE_FILE), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr


def test_compose_cli_rejects_a_broken_file(tmp_path: Path) -> None:
    # The validation above proves something only if the CLI really checks the schema.
    broken = COMPOSE_FILE.read_text(encoding="utf-8").replace(
        "condition: service_healthy", "condition: when_it_feels_like_it", 1
    )
    target = tmp_path / "docker-compose.yml"
    target.write_text(broken, encoding="utf-8")
    (tmp_path / "collector-config").symlink_to(CONFIG_DIR)
    result = subprocess.run(
        [*compose_cli(), "-f", str(target), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode != 0
    assert "when_it_feels_like_it" in result.stderr + result.stdout


# --- Dockerfile ----------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    instructions = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, rest = stripped.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def dockerfile(keyword: str) -> list[str]:
    return [rest for kw, rest in dockerfile_instructions() if kw == keyword]


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_dockerfile_base_image_is_pinned_and_supported() -> None:
    (base,) = dockerfile("FROM")
    repository, _, tag = base.partition(":")
    assert repository == "python"
    match = re.match(r"(\d+\.\d+)(\.\d+)?-slim", tag)
    assert match, f"base image {base} is not a pinned python X.Y[-.Z]-slim tag"
    requires_python = pyproject()["project"]["requires-python"]
    assert Requirement(f"python{requires_python}").specifier.contains(match.group(1))


def test_dockerfile_installs_project_and_compatible_distro() -> None:
    installs = [shlex.split(run) for run in dockerfile("RUN") if "pip install" in run]
    assert len(installs) == 1
    args = installs[0]
    assert "--no-cache-dir" in args
    # The project itself, with the extra that brings its command line.
    assert ".[cli]" in args, "the project itself must be installed, with its [cli] extra"

    (distro,) = [Requirement(a) for a in args if a.startswith("opentelemetry-distro")]
    (pin,) = distro.specifier
    assert pin.operator == "==", "pin opentelemetry-distro exactly"
    # The distro requires opentelemetry-instrumentation == its own version, so that version must
    # satisfy the project's own requirement or pip cannot resolve the image's install.
    (instrumentation,) = [
        Requirement(r)
        for r in pyproject()["project"]["dependencies"]
        if Requirement(r).name == "opentelemetry-instrumentation"
    ]
    assert instrumentation.specifier.contains(Version(pin.version), prereleases=True)


def test_dockerfile_runs_under_an_init() -> None:
    # As PID 1 a Python process ignores SIGTERM's default action: tini (Debian's) is PID 1.
    assert any("apt-get install" in run and "tini" in run.split() for run in dockerfile("RUN"))
    (entrypoint,) = dockerfile("ENTRYPOINT")
    assert json.loads(entrypoint)[0] == "/usr/bin/tini"


def test_dockerfile_runs_as_non_root_without_secrets() -> None:
    users = dockerfile("USER")
    assert users, "no USER instruction: the image would run as root"
    assert users[-1].split(":")[0] not in {"root", "0"}
    secretish = re.compile(r"(TOKEN|SECRET|PASSWORD|API_KEY)", re.IGNORECASE)
    for keyword in ("ENV", "ARG", "CMD", "ENTRYPOINT"):
        for rest in dockerfile(keyword):
            assert not secretish.search(rest), f"{keyword} {rest}"


def test_dockerignore_excludes_local_state() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv"} <= ignored
    assert any("__pycache__" in entry for entry in ignored)
