"""Finds the HIP headers (ROCM_PATH; default /opt/rocm, then /usr where
Debian's libamdhip64-dev puts them). Nothing is linked: the ROCm platform
loads libamdhip64, hiprtc and hipBLAS at run time, so binaries start on
machines without ROCm and report the platform unavailable."""

_BUILD_FOUND = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "hip_headers",
    hdrs = glob(["include/hip/**"]),
    defines = ["__HIP_PLATFORM_AMD__=1"],
    includes = ["include"],
)
"""

_BUILD_MISSING = """
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing",
    outs = ["missing.h"],
    cmd = "echo 'HIP headers not found under %s: install libamdhip64-dev or set ROCM_PATH' >&2; exit 1",
)

cc_library(name = "hip_headers", hdrs = [":missing"])
"""

def _rocm_configure_impl(ctx):
    candidates = [ctx.os.environ["ROCM_PATH"]] if "ROCM_PATH" in ctx.os.environ else ["/opt/rocm", "/usr"]
    for path in candidates:
        hip = ctx.path(path).get_child("include").get_child("hip")
        if hip.get_child("hip_runtime_api.h").exists:
            ctx.symlink(hip, "include/hip")
            ctx.file("BUILD", _BUILD_FOUND)
            return
    ctx.file("BUILD", _BUILD_MISSING % " or ".join(candidates))

rocm_configure = repository_rule(
    implementation = _rocm_configure_impl,
    environ = ["ROCM_PATH"],
    local = True,
)
