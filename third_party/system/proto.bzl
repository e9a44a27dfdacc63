"""C++ code from .proto files with the system protoc (Debian's
protobuf-compiler), so the offline build needs no protobuf source tree."""

def cc_proto(name, src, deps = [], visibility = None):
    """Generates <src>.pb.{h,cc} and a cc_library `name` that builds them."""
    base = src[:-len(".proto")]
    pkg = native.package_name()
    native.genrule(
        name = name + "_gen",
        srcs = [src],
        outs = [base + ".pb.h", base + ".pb.cc"],
        cmd = "protoc --proto_path=. --cpp_out=$(GENDIR) %s/%s" % (pkg, src),
    )
    native.cc_library(
        name = name,
        srcs = [base + ".pb.cc"],
        hdrs = [base + ".pb.h"],
        deps = deps + ["@com_google_protobuf//:protobuf"],
        visibility = visibility,
    )
