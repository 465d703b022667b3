"""Server reflection in both its versions: grpc.reflection.v1 and v1alpha.

grpcio-reflection serves only v1alpha, and tools that speak only v1 get
UNIMPLEMENTED. The two protocols are the same messages under another
package name, so v1 here is the same servicer registered under v1's name,
and v1's file (v1alpha's, renamed) is added to the descriptor pool so
that a client can describe the reflection service itself in either.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE = f"{V1_PACKAGE}.ServerReflection"


def _add_v1_file(pool: descriptor_pool.DescriptorPool) -> None:
    try:
        pool.FindServiceByName(V1_SERVICE)
        return
    except KeyError:
        pass
    v1 = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(v1)
    v1.name = "grpc/reflection/v1/reflection.proto"
    v1.package = V1_PACKAGE
    prefix = "." + reflection_pb2.DESCRIPTOR.package + "."
    for message in v1.message_type:
        for field in message.field:
            if field.type_name.startswith(prefix):
                field.type_name = f".{V1_PACKAGE}." + field.type_name[len(prefix):]
    for method in v1.service[0].method:
        method.input_type = f".{V1_PACKAGE}." + method.input_type[len(prefix):]
        method.output_type = f".{V1_PACKAGE}." + method.output_type[len(prefix):]
    v1.options.Clear()
    pool.Add(v1)


def enable(server: grpc.aio.Server, service_names: Iterable[str]) -> None:
    """Serves reflection v1 and v1alpha, listing `service_names` and both."""
    pool = descriptor_pool.Default()
    _add_v1_file(pool)
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE)
    reflection.enable_server_reflection(names, server)
    servicer = ReflectionServicer(names, pool=pool)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1_SERVICE, {"ServerReflectionInfo": handler}),))
