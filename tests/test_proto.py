"""The generated code in sudoku/v1 is what proto/ generates (`make proto`)."""

from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("sudoku_pb2.py", "sudoku_pb2.pyi", "sudoku_pb2_grpc.py")


def test_generated_code_matches_the_proto(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = [
        "protoc",
        "-Iproto",
        f"--python_out={tmp_path}",
        f"--pyi_out={tmp_path}",
        f"--grpc_python_out={tmp_path}",
        "proto/sudoku/v1/sudoku.proto",
    ]
    assert protoc.main(args) == 0
    for name in GENERATED:
        fresh = (tmp_path / "sudoku" / "v1" / name).read_text()
        committed = (ROOT / "sudoku" / "v1" / name).read_text()
        assert committed == fresh, f"sudoku/v1/{name} is stale: run `make proto` and commit the result"


def test_every_message_and_field_is_documented():
    """The proto is the API's documentation: no field without a comment."""
    from sudoku.v1 import sudoku_pb2

    source = (ROOT / "proto" / "sudoku" / "v1" / "sudoku.proto").read_text().splitlines()
    undocumented = []
    for i, line in enumerate(source):
        stripped = line.strip()
        is_field = stripped.endswith(";") and "=" in stripped and not stripped.startswith(("option", "//"))
        is_decl = stripped.startswith(("message ", "rpc ", "enum "))
        if not (is_field or is_decl):
            continue
        above = source[i - 1].strip() if i else ""
        if not above.startswith("//") and "_UNSPECIFIED = 0" not in stripped:
            undocumented.append(stripped)
    assert sudoku_pb2.DESCRIPTOR.package == "sudoku.v1"
    assert undocumented == [], "add a comment above each of these"

