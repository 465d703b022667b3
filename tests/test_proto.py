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
    config = "sudoku_grpc_service_config.json"  # copied, not generated
    assert (ROOT / "sudoku/v1" / config).read_text() == (ROOT / "proto/sudoku/v1" / config).read_text(), (
        f"sudoku/v1/{config} is stale: run `make proto` and commit the result")


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



# ---- enum names: prefixed for code, bare still on the JSON wire ------------------

def _released_pool(tmp_path):
    """The proto of the last release (api/released) in a pool of its own:
    what a client generated from it knows."""
    from google.protobuf import descriptor_pb2, descriptor_pool

    out = tmp_path / "released.binpb"
    assert protoc.main(["protoc", f"-I{ROOT / 'api' / 'released'}", f"--descriptor_set_out={out}",
                        "sudoku/v1/sudoku.proto"]) == 0
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(file)
    return pool


def _messages(descriptor):
    for message in descriptor.message_types_by_name.values() if hasattr(descriptor, "message_types_by_name") \
            else descriptor.nested_types:
        yield message
        yield from _messages(message)


def _enum_fields():
    """(message descriptor, field, every number of its enum) for each enum field."""
    from sudoku.v1 import sudoku_pb2

    for message in _messages(sudoku_pb2.DESCRIPTOR):
        for field in message.fields:
            if field.enum_type is not None:
                numbers = sorted({v.number for v in field.enum_type.values})
                yield message, field, numbers


def _upper_snake(name: str) -> str:
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(name)).upper()


def test_every_enum_value_has_a_prefixed_name_and_the_bare_ones_stay_first(tmp_path):
    """AIP-126 names for code; each number's first name (what JSON writes
    and Name() returns) is the one the last release had."""
    from sudoku.v1 import sudoku_pb2

    pool = _released_pool(tmp_path)
    enums = list(sudoku_pb2.DESCRIPTOR.enum_types_by_name.values())
    enums += [e for m in _messages(sudoku_pb2.DESCRIPTOR) for e in m.enum_types]
    assert len(enums) >= 11
    for enum in enums:
        prefix = _upper_snake(enum.name) + "_"
        released = pool.FindEnumTypeByName(enum.full_name)
        for number in {v.number for v in enum.values}:
            names = [v.name for v in enum.values if v.number == number]
            assert any(n.startswith(prefix) for n in names), f"{enum.full_name} {number}: no {prefix}* name"
            if number in released.values_by_number:  # the release's name stays first
                assert names[0] == released.values_by_number[number].name, (enum.full_name, names)
            assert len(names) <= 2, names
            if len(names) == 2:  # a bare name kept: first, deprecated, the prefixed one after it
                bare, prefixed = names
                assert prefixed == prefix + bare, names
                assert enum.values_by_name[bare].GetOptions().deprecated
            assert enum.values_by_number[number].name == names[0]


def test_replies_in_json_read_the_same_with_the_released_proto(tmp_path):
    """A JSON client generated before the prefixed names (Connect JSON is
    written by this Python runtime on the HTTP port) reads every enum value
    the service writes that its proto has (a value added since is new to
    it, as any added value is: the reason numbers are never reused); and the
    service reads both names."""
    from google.protobuf import json_format, message_factory

    pool = _released_pool(tmp_path)
    checked = 0
    for message, field, numbers in _enum_fields():
        try:
            old_message = pool.FindMessageTypeByName(message.full_name)
        except KeyError:
            continue  # a message added since the release (StepReply): no client of the release reads it
        old_class = message_factory.GetMessageClass(old_message)
        new_class = message_factory.GetMessageClass(message)
        old_field = old_class.DESCRIPTOR.fields_by_name.get(field.name)
        if old_field is None:
            continue  # a field added since the release (GradeReply.hodoku_level): its clients skip it unread
        released = {v.number for v in old_field.enum_type.values}
        for number in (n for n in numbers if n in released):
            msg = new_class()
            if field.is_repeated:
                getattr(msg, field.name).append(number)
            else:
                setattr(msg, field.name, number)
            text = json_format.MessageToJson(msg)
            old = json_format.Parse(text, old_class())
            assert old.SerializeToString() == msg.SerializeToString(), (message.name, field.name, text)
            if number:
                names = [v.name for v in field.enum_type.values if v.number == number]
                assert json_format.MessageToDict(msg)[field.json_name] in (names[0], [names[0]])
                for name in names:  # either name in a request
                    value = [name] if field.is_repeated else name
                    assert json_format.ParseDict({field.json_name: value}, new_class()) == msg
            checked += 1
    assert checked > 100
