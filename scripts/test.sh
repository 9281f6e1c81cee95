#!/usr/bin/env bash
# `npm test`: everything a fresh machine needs, then format/lint, type check, unit tests and the
# end-to-end suite against one real gateway (started and stopped by the e2e global setup).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/node ] || [ ! -d node_modules/openclaw ]; then
  # What a user runs. The lock lists every platform's optional binaries (scripts/lockfile.test.ts),
  # so this follows it exactly and leaves it unchanged.
  echo "==> installing dependencies (npm install)"
  npm install --no-audit --no-fund
fi

# Debian packages the tests run for real: $1 the package, $2 what it is for.
apt_install() {
  echo "==> installing Debian $1 for $2"
  if [ "$(id -u)" -ne 0 ]; then
    echo "$1 is missing and this user cannot apt-get install it; install the Debian '$1' package" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$1" >/dev/null
}

if ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium "the browser tests"
fi
# /usr/sbin is not on every user's PATH.
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  apt_install nats-server "the cluster tests (JetStream on loopback)"
fi


export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .test-artifacts

# The documents and the manifest's tool list are generated from the code (npm run build writes them);
# a contributor who forgot learns it here, first, by name.
echo "==> generated documents are current (gen:schemas --check)"
node scripts/gen-schemas.ts --check

echo "==> building the web client"
node scripts/build-client.ts

echo "==> format + lint (biome)"
biome check .

echo "==> type check (tsc)"
tsc -p tsconfig.json

echo "==> unit + end-to-end tests (vitest)"
status=0
vitest run --reporter=default --reporter=json --outputFile.json=.test-artifacts/vitest.json || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(".test-artifacts/vitest.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + (r.numTodoTests ?? 0)} skipped`);
' || true
exit $status
