"""Settings come from the environment and flags, and docs/operations.md's
"Configuration" table documents each."""

import os
from dataclasses import fields
from pathlib import Path

import pytest

from sudoku.config import Settings

OPERATIONS = (Path(__file__).resolve().parent.parent / "docs" / "operations.md").read_text()


def test_every_setting_is_in_the_configuration_table():
    missing = [f.metadata["env"] for f in fields(Settings) if f"| `{f.metadata['env']}` |" not in OPERATIONS]
    assert missing == []


def test_environment_then_overrides():
    settings = Settings.from_env({"SUDOKU_MAX_STEPS": "5", "SUDOKU_LISTEN": "0.0.0.0:1"}, max_steps=7)
    assert settings.max_steps == 7
    assert settings.listen == "0.0.0.0:1"
    assert settings.stream_maxlen == settings.max_frames + 2


def test_a_bad_number_in_the_environment_is_a_clear_error():
    try:
        Settings.from_env({"SUDOKU_WORKERS": "lots"})
    except SystemExit as exc:
        assert "SUDOKU_WORKERS='lots'" in str(exc)
    else:
        raise AssertionError("expected SystemExit")


def test_workers_default_to_the_cpus_the_process_may_use(tmp_path):
    """Not the host's CPU count: the affinity (taskset), and a container's
    CPU quota rounded up (cgroup v2 cpu.max, v1 cfs_quota_us)."""
    import subprocess
    import sys

    from sudoku.config import usable_cpus

    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert usable_cpus(str(tmp_path)) == min(2, usable_cpus("/nonexistent"))
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert usable_cpus(str(tmp_path)) == usable_cpus("/nonexistent")
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert usable_cpus(str(v1)) == 1
    if hasattr(os, "sched_setaffinity"):
        one_cpu = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); " \
                  "from sudoku.config import Settings; print(Settings.from_env({}).workers)"
        assert subprocess.run([sys.executable, "-c", one_cpu], capture_output=True, text=True,
                              check=True).stdout.strip() == "1"


def test_the_step_ceiling_keeps_counters_exact_in_javascript():
    with pytest.raises(SystemExit, match=r"SUDOKU_MAX_STEPS=9007199254740992: must be 1 to 9007199254740991"):
        Settings.from_env({"SUDOKU_MAX_STEPS": str(2**53)})
    assert Settings.from_env({"SUDOKU_MAX_STEPS": str(2**53 - 1)}).max_steps == 2**53 - 1
