"""Settings come from the environment and flags, and README documents each."""

from dataclasses import fields
from pathlib import Path

import pytest

from service.config import Settings

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_every_setting_is_in_the_readme_table():
    missing = [f.metadata["env"] for f in fields(Settings) if f"| `{f.metadata['env']}` |" not in README]
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


def test_the_step_ceiling_keeps_counters_exact_in_javascript():
    with pytest.raises(SystemExit, match=r"SUDOKU_MAX_STEPS=9007199254740992: must be 1 to 9007199254740991"):
        Settings.from_env({"SUDOKU_MAX_STEPS": str(2**53)})
    assert Settings.from_env({"SUDOKU_MAX_STEPS": str(2**53 - 1)}).max_steps == 2**53 - 1
