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

# Debian packages the tests run for real.
bash scripts/debian-package.sh chromium chromium "the browser tests"
bash scripts/debian-package.sh nats-server nats-server "the cluster tests (JetStream on loopback)"

export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .test-artifacts

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
