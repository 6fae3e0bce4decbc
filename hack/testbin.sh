#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver, etcd, kubectl) from source through the
# Go module proxy into a cache folder outside the work tree, named by the versions, and
# prints that folder (the value for KUBEBUILDER_ASSETS). What is already there is kept,
# so a reused machine or a second run costs nothing; a version change builds a new folder.
#
# The versions must match hack/k8s-tools/go.mod and hack/etcd-tools/go.mod, and
# internal/testenv (which finds the folder the same way).
# Progress goes to stderr; stdout is only the folder. `hack/testbin.sh --dir` only prints
# the folder, building nothing.
set -euo pipefail

KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.16

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="${GO:-go}"
cache="${XDG_CACHE_HOME:-${HOME:-${TMPDIR:-/tmp}}/.cache}"  # as internal/testenv.AssetsDir
out="${BUTLER_TESTBIN_DIR:-$cache/butler-test-bin/kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}}"
if [ "${1:-}" = "--dir" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"

major="${KUBE_VERSION#v}"; major="${major%%.*}"
minor="${KUBE_VERSION#v*.}"; minor="${minor%%.*}"
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
  kube_ldflags+=" -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor}"
  kube_ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
done
etcd_ldflags="-s -w"

# build NAME MODULE_DIR PACKAGE LDFLAGS: builds into a temporary name and renames, so an
# interrupted build never leaves a half-written binary that later runs would skip.
# With the flags `make test` compiles the project with (no -trimpath, cgo as the host has
# it), so the packages the control plane shares with the project (the standard library and
# a few hundred k8s.io ones at the same versions) are compiled once per cache, not once per
# key; only -ldflags differ, and they do not enter a package's compile key.
build() {
  local name="$1" dir="$2" pkg="$3" ldflags="$4"
  if [ -x "$out/$name" ]; then
    echo "testbin: $name already built" >&2
    return
  fi
  echo "testbin: building $name ($pkg)" >&2
  local start=$SECONDS
  (cd "$root/$dir" && GOWORK=off GOFLAGS=-mod=readonly \
    "$GO" build -ldflags "$ldflags" -o "$out/$name.tmp" "$pkg")
  mv -f "$out/$name.tmp" "$out/$name"
  echo "testbin: built $name in $((SECONDS - start))s" >&2
}

build kube-apiserver hack/k8s-tools k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
build etcd hack/etcd-tools go.etcd.io/etcd/server/v3 "$etcd_ldflags"
build kubectl hack/k8s-tools k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"

echo "$out"
