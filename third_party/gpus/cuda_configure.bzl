"""Finds the CUDA toolkit (CUDA_PATH, default /usr/local/cuda) and exposes the
headers and the static CUDA runtime. NVRTC and cuBLAS are not linked: the
CUDA platform loads them at run time, so binaries start on machines without
them and say clearly what is missing."""

_BUILD_FOUND = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/*.h", "include/crt/**", "include/cuda/std/**"], allow_empty = True),
    includes = ["include"],
)

cc_library(
    name = "cudart_static",
    srcs = ["lib/libcudart_static.a"],
    linkopts = ["-ldl", "-lrt", "-lpthread"],
    deps = [":cuda_headers"],
)
"""

_BUILD_MISSING = """
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing",
    outs = ["missing.h"],
    cmd = "echo 'CUDA toolkit not found at %s: set CUDA_PATH or build without --config=cuda' >&2; exit 1",
)

cc_library(name = "cuda_headers", hdrs = [":missing"])
cc_library(name = "cudart_static", deps = [":cuda_headers"])
"""

def _cuda_configure_impl(ctx):
    path = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    root = ctx.path(path)
    if not root.get_child("include").get_child("cuda_runtime_api.h").exists:
        ctx.file("BUILD", _BUILD_MISSING % path)
        return
    ctx.symlink(root.get_child("include"), "include")
    for libdir in ["lib64", "lib", "targets/x86_64-linux/lib"]:
        lib = root.get_child(libdir).get_child("libcudart_static.a")
        if lib.exists:
            ctx.symlink(lib, "lib/libcudart_static.a")
            break
    ctx.file("BUILD", _BUILD_FOUND)

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
