"""docker-compose.yml and the Dockerfile, checked as far as this machine can
(no Docker engine here): every command they run is one the tests run too,
and everything they copy exists."""

from __future__ import annotations

import importlib.util
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from sudoku import cells

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def runs(command: list[str]) -> None:
    """The command's program is one of our console scripts or modules."""
    if command[0] in SCRIPTS:
        return
    assert command[:2] == ["python", "-m"], command
    assert importlib.util.find_spec(command[2]) is not None, f"no module {command[2]}"


def test_compose_runs_redis_the_service_and_scalable_workers():
    services = {name: s for name, s in COMPOSE["services"].items() if "profiles" not in s}
    assert set(services) == {"redis", "service", "worker"}
    for name in ("service", "worker"):
        runs(services[name]["command"])
        assert services[name]["environment"]["REDIS_URL"].startswith("redis://redis:")
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "ports" not in services["worker"], "workers must scale: no fixed host port"
    assert "--workers" in services["service"]["command"], "the service leaves the work to the worker containers"


def test_the_two_cells_profile_runs_a_second_cell_and_a_service_on_both():
    services = COMPOSE["services"]
    profiled = {name for name, s in services.items() if s.get("profiles") == ["two-cells"]}
    assert profiled == {"redis-cell1", "worker-cell1", "service-two-cells"}
    both = services["service-two-cells"]["environment"]["REDIS_URL"]
    assert cells.parse(both) == [services["service"]["environment"]["REDIS_URL"],
                                 services["worker-cell1"]["environment"]["REDIS_URL"]]
    assert cells.one(services["worker-cell1"]["environment"]["REDIS_URL"], "a worker")
    for name in ("worker-cell1", "service-two-cells"):
        runs(services[name]["command"])
        assert "SUDOKU_POSITION_KEY" in services[name]["environment"]
    ports = {p for s in services.values() for p in s.get("ports", [])}
    assert len(ports) == sum(len(s.get("ports", [])) for s in services.values()), "two services on one host port"


def test_healthchecks_run_commands_that_exist():
    for name in ("redis", "service"):
        assert COMPOSE["services"][name]["healthcheck"]["test"][0] == "CMD"
    runs(COMPOSE["services"]["service"]["healthcheck"]["test"][1:])


def test_the_dockerfile_copies_what_exists_and_runs_a_console_script():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    for line in lines:
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"Dockerfile copies {source}, which is missing"
    cmd = next(line for line in lines if line.startswith("CMD "))
    runs(shlex.split(cmd[4:].strip().strip("[]").replace('"', "").replace(",", " ")))
    packages = {p.split("*")[0] for p in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                ["packages"]["find"]["include"]}
    copied = {line.split()[1] for line in lines if line.startswith("COPY ")}
    assert packages <= copied, f"the image lacks packages: {packages - copied}"


def test_the_entry_commands_start():
    for script in ("sudoku-server", "sudoku-worker", "sudoku"):
        module, _, func = SCRIPTS[script].partition(":")
        code = f"import sys; sys.argv = [{script!r}, '--help']; import {module}; {module}.{func}()"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "usage" in out.stdout.lower()
