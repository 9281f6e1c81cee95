#!/usr/bin/env bash
# `npm test`: everything a fresh machine needs, then format/lint, type check, unit tests and the
# end-to-end suite against one real gateway (started and stopped by the e2e global setup), with the
# install tests (gateways of their own) running beside them.
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

echo "==> building the web client"
node scripts/build-client.ts

echo "==> format + lint (biome)"
biome check .

echo "==> type check (tsc)"
tsc -p tsconfig.json

echo "==> unit + end-to-end tests, and beside them the install tests (vitest)"
# Two vitest runs at once. The install files (test/install: each runs gateways of its own) and the e2e
# files (one shared gateway) each go one file at a time, and both spend most of their wall time
# waiting on their gateways, browsers and world ticks, not on the cores (web-town: 75 CPU-s in 296 s),
# so the groups overlap instead of following each other. A separate process also means a failure in
# one group never skips the other. The install run's output is kept and printed after the other's,
# so the two do not interleave.
install_status=0
rm -f .test-artifacts/vitest.json .test-artifacts/vitest-install.json
vitest run --project install --reporter=default --reporter=json \
  --outputFile.json=.test-artifacts/vitest-install.json >.test-artifacts/vitest-install.log 2>&1 &
install_pid=$!
# Stopped with the script (Ctrl-C), not left running on its own.
trap 'kill -TERM "$install_pid" 2>/dev/null || true' INT TERM
status=0
vitest run --project unit --project e2e --reporter=default --reporter=json \
  --outputFile.json=.test-artifacts/vitest.json || status=$?
wait "$install_pid" || install_status=$?
echo "==> install tests (vitest, ran beside the above)"
cat .test-artifacts/vitest-install.log
node -e '
  const fs = require("fs");
  const runs = [".test-artifacts/vitest.json", ".test-artifacts/vitest-install.json"].map((f) =>
    fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")) : { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, missing: f },
  );
  for (const r of runs) if (r.missing) console.log(`${r.missing} is missing: that run did not finish`);
  const sum = (k) => runs.reduce((n, r) => n + (r[k] ?? 0), 0);
  console.log(`${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests") + sum("numTodoTests")} skipped`);
' || true
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit "$install_status"
