#!/usr/bin/env bash
# Tools the test suite uses besides Python packages: Debian's chromium, for opening the HTML
# report headless. Idempotent; without root or apt the browser test skips with its reason.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium for the HTML report test" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "setup: chromium missing and cannot be installed here; the browser test will skip" >&2
fi
