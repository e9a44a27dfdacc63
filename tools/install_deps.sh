#!/usr/bin/env bash
# Installs the Debian packages the build needs (idempotent). The CUDA 13
# toolkit is not a Debian package: it is expected at $CUDA_PATH
# (/usr/local/cuda) and only --config=cuda needs it.
#   --absl-source   also fetch Abseil's Debian source package, which
#                   --config=tsan compiles with instrumentation.
set -euo pipefail
absl_source=false
[ "${1:-}" = "--absl-source" ] && absl_source=true
pkgs=(
  bazel-bootstrap
  libabsl-dev libprotobuf-dev protobuf-compiler
  libgoogle-glog-dev libgflags-dev libunwind-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libeigen3-dev
  libamdhip64-dev
  python3-numpy
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if $absl_source; then
  dir=${ABSL_SOURCE_DIR:-/var/cache/xla_lite}
  if ! ls "$dir"/abseil_*.orig.tar.gz >/dev/null 2>&1; then
    src=/etc/apt/sources.list.d/xla-lite-deb-src.sources
    if [ ! -e "$src" ]; then
      printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >"$src"
      apt-get update -qq
    fi
    mkdir -p "$dir"
    (cd "$dir" && apt-get source --download-only -qq abseil)
  fi
fi
