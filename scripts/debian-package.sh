#!/usr/bin/env bash
# Makes sure a program a script runs for real is installed: `bash scripts/debian-package.sh PACKAGE
# COMMAND WHAT-FOR`. Present (on PATH or in /usr/sbin, which is not on every user's PATH): nothing to
# do. Missing: root installs Debian's PACKAGE; anyone else is told in one line how, and it exits 1.
# `npm test` (scripts/test.sh) and the cluster scripts (package.json) share it.
set -euo pipefail
package="$1" command="$2" purpose="$3"

if command -v "$command" >/dev/null 2>&1 || [ -x "/usr/sbin/$command" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "$command is missing ($purpose): install the Debian '$package' package (sudo apt-get install $package)" >&2
  exit 1
fi
echo "==> installing Debian $package for $purpose"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "$package" >/dev/null
