"""`make stubs`: buf.gen.yaml with the plugins this machine has.

buf generate stops at the first plugin it cannot run, and few machines have
every language's toolchain. This runs the plugins that can run here and says
of each other one why not, then generates with those (buf generate
--template, the same file less the missing plugins).

    python tools/gen_stubs.py BUF
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent


def found(program: str) -> bool:
    return (ROOT / program).exists() if "/" in program else shutil.which(program) is not None


def why_not(plugin: dict[str, Any]) -> str | None:
    """None when the plugin can run here, else the reason it cannot."""
    command = plugin.get("local") or plugin.get("protoc_path") or "protoc"
    argv = [command] if isinstance(command, str) else list(command)
    if not found(argv[0]):
        return f"{argv[0]} is not here"
    if argv[:2] == ["go", "run"]:  # fetches and builds it: the version pinned, or nothing
        done = subprocess.run([*argv, "--version"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["failed"])[-1]
            return f"go cannot fetch {argv[2]} ({last.strip()})"
    if argv[:2] == ["java", "-jar"] and not found(argv[2]):
        return f"{argv[2]} is not here"
    return None


def name(plugin: dict[str, Any]) -> str:
    if "protoc_builtin" in plugin:
        return f"protoc --{plugin['protoc_builtin']}_out"
    command = plugin["local"]
    return command if isinstance(command, str) else " ".join(command[-1:] if command[0] != "go" else command[2:])


def main(buf: str) -> int:
    template = yaml.safe_load((ROOT / "buf.gen.yaml").read_text())
    usable = []
    for plugin in template["plugins"]:
        reason = why_not(plugin)
        print(f"stubs: {plugin['out']}: {name(plugin)}: {'generating' if reason is None else 'skipped, ' + reason}")
        if reason is None:
            usable.append(plugin)
    if not usable:
        print("stubs: no plugin can run here")
        return 1
    template["plugins"] = usable
    return subprocess.run([buf, "generate", "--template", json.dumps(template)], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
