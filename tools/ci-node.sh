#!/usr/bin/env bash
# Runs part of the jest suite under another Node.js major, installed from the npm registry (the
# `node` package) into a folder under the temp dir, never into this project's dependencies.
#   bash tools/ci-node.sh 24 test/package test/runtime ...
# Every process the tests start (the CLI, npm, npx) runs on that Node: its bin folder goes first
# on PATH. Exit code: jest's, or 2 when that Node cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
major="$1"
shift
prefix="${TMPDIR:-/tmp}/perpkit-node-$major"
bin="$prefix/node_modules/.bin"
if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  rm -rf "$prefix"
  mkdir -p "$prefix"
  echo "installing node@$major from the npm registry into $prefix" >&2
  if ! npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node@$major" >"$prefix.log" 2>&1; then
    echo "CI: could not install node@$major from the npm registry (log: $prefix.log)" >&2
    tail -20 "$prefix.log" >&2
    exit 2
  fi
fi
echo "== jest under Node $("$bin/node" --version): $*" >&2
PATH="$bin:$PATH" node node_modules/jest/bin/jest.js "$@"
