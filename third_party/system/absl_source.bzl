"""Abseil compiled from Debian's source package (for ThreadSanitizer builds).

tools/install_deps.sh --absl-source downloads the tarball with
`apt-get source --download-only abseil` into ABSL_SOURCE_DIR
(default /var/cache/xla_lite); this rule extracts it. Only builds that select
it (--config=tsan) fetch it."""

_BUILD = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "absl",
    srcs = glob(
        ["absl/**/*.cc"],
        exclude = [
            "**/*test*",
            "**/*benchmark*",
            "**/*mock*",
            "absl/hash/internal/print_hash_of.cc",
            "absl/random/internal/gaussian_distribution_gentables.cc",
        ],
    ),
    hdrs = glob(["absl/**/*.h"]),
    textual_hdrs = glob(["absl/**/*.inc"]),
    copts = ["-maes", "-msse4.1", "-w"],
    includes = ["."],
    linkopts = ["-lpthread"],
)
"""

_MISSING = """
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing",
    outs = ["missing.h"],
    cmd = "echo 'Abseil source not found in %s: run tools/install_deps.sh --absl-source' >&2; exit 1",
)

cc_library(name = "absl", hdrs = [":missing"])
"""

def _absl_source_impl(ctx):
    src_dir = ctx.os.environ.get("ABSL_SOURCE_DIR", "/var/cache/xla_lite")
    found = ctx.execute(["sh", "-c", "ls %s/abseil_*.orig.tar.gz 2>/dev/null | tail -1" % src_dir])
    tarball = found.stdout.strip()
    if not tarball:
        ctx.file("BUILD", _MISSING % src_dir)
        return
    ctx.extract(tarball, stripPrefix = "abseil-" + tarball.split("abseil_")[-1].split(".orig")[0])
    # Abseil's own Bazel packages would split the tree; one library is enough.
    ctx.execute(["find", ".", "-name", "BUILD.bazel", "-delete"])
    ctx.execute(["rm", "-f", "WORKSPACE", "WORKSPACE.bazel"])
    ctx.file("BUILD.bazel", _BUILD)
    ctx.file("WORKSPACE", "")

absl_source = repository_rule(
    implementation = _absl_source_impl,
    environ = ["ABSL_SOURCE_DIR"],
    local = True,
)
