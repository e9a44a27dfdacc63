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
  clang-14 libclang-rt-14-dev
  libamdhip64-dev
  python3-numpy
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# apt and dpkg print several lines per package (hundreds on a fresh
# machine): they go to a log, shown only when the install fails.
apt_log=${TMPDIR:-/tmp}/xla_lite_install_deps.log
quiet_apt() {
  if ! "$@" >>"$apt_log" 2>&1; then
    echo "failed: $* (log: $apt_log)" >&2
    tail -n 40 "$apt_log" >&2
    return 1
  fi
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${#missing[@]} packages and their dependencies: ${missing[*]} (log: $apt_log)"
  export DEBIAN_FRONTEND=noninteractive
  quiet_apt apt-get update -qq
  quiet_apt apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "installed"
fi

# Source entries for the mirrors this machine already uses: every deb822
# stanza and one-line entry of type deb, repeated as deb-src. The repository
# names no package host of its own.
add_deb_src_entries() {
  local dir=/etc/apt/sources.list.d
  grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list "$dir" && return 0
  local f tmp
  tmp=$(mktemp)
  for f in "$dir"/*.sources; do
    [ -e "$f" ] && { sed -E 's/^Types:.*$/Types: deb-src/' "$f"; echo; }
  done >"$tmp"
  [ -s "$tmp" ] && cp "$tmp" "$dir/xla-lite-deb-src.sources"
  [ -e /etc/apt/sources.list ] &&
    sed -nE 's/^deb[[:space:]]/deb-src /p' /etc/apt/sources.list >"$tmp" &&
    [ -s "$tmp" ] && cp "$tmp" "$dir/xla-lite-deb-src.list"
  rm -f "$tmp"
  quiet_apt apt-get update -qq
}

if $absl_source; then
  dir=${ABSL_SOURCE_DIR:-/var/cache/xla_lite}
  if ! ls "$dir"/abseil_*.orig.tar.gz >/dev/null 2>&1; then
    add_deb_src_entries
    mkdir -p "$dir"
    echo "fetching Abseil's source package into $dir (for --config=tsan)"
    (cd "$dir" && quiet_apt apt-get source --download-only -qq abseil)
  fi
fi
