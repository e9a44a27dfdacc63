"""Offline stand-in for @rules_proto. xla_lite compiles its protos with the
system protoc (see //third_party/system:proto.bzl), not with these rules."""

proto_lang_toolchain = native.proto_lang_toolchain
proto_library = native.proto_library
