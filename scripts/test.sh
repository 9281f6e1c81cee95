#!/usr/bin/env bash
# `npm test`: everything a fresh machine needs, then format/lint, type check, unit tests, and the
# end-to-end suite against real gateways (started and stopped by the e2e global setup) beside the
# install tests; at the end, the run's time and its slowest files (scripts/test-report.ts).
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
rm -f .test-artifacts/vitest-*.json
started_at=$(date +%s)

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

# OCW_TEST_SEED=<n> (or "random") runs the files in an order shuffled by that seed, printed by vitest:
# every file must pass whatever ran before it.
order=()
if [ -n "${OCW_TEST_SEED:-}" ]; then
  seed=$OCW_TEST_SEED
  [ "$seed" = random ] && seed=$RANDOM$RANDOM
  echo "==> files in a shuffled order, seed $seed (OCW_TEST_SEED=$seed npm test runs it again)"
  order=(--sequence.shuffle.files --sequence.seed="$seed")
fi
lane() { # $1 the report's name, then the projects
  local name=$1
  shift
  vitest run "${order[@]}" "$@" --reporter=default --reporter=json --outputFile.json=".test-artifacts/vitest-$name.json"
}

status=0
echo "==> unit, contract and scenario tests (vitest)"
lane unit --project unit --project contract --project "scenario replay" || status=$?

# Then three lanes side by side; much of each is waiting (a walk, a turn's time limit, a lease's TTL),
# so together they keep both cores busy. Lane 1: the end-to-end files that drive browsers, against one
# gateway (the e2e global setup starts it). Lane 2: the other end-to-end files against a gateway of
# their own (each vitest run of the e2e project starts one), then some install files. Lane 3: the other
# install files, each starting gateways of its own. Every file is in exactly one lane: a new e2e file
# joins lane 2, a new install file lane 3, unless named below. Lane 1's output is shown live; the
# others' follow it (kept in .test-artifacts/lane-*.log).
E2E_BROWSERS=(test/e2e/web*.e2e.test.ts test/e2e/durability.e2e.test.ts test/e2e/replay.e2e.test.ts
  test/e2e/residents.e2e.test.ts)
INSTALL_IN_LANE_2=(test/install/hot-reload.test.ts
  test/install/fanout-process.test.ts test/install/direct-tools.test.ts test/install/cluster.test.ts)
not_in() { # $1 a file, then a list: true when the file is not in the list
  local file=$1
  shift
  [[ " $* " != *" $file "* ]]
}
e2e_others=()
for file in test/e2e/*.test.ts; do not_in "$file" "${E2E_BROWSERS[@]}" && e2e_others+=("$file"); done
install_others=()
for file in test/install/*.test.ts; do not_in "$file" "${INSTALL_IN_LANE_2[@]}" && install_others+=("$file"); done

lane_2() {
  local s=0
  lane e2e-2 --project e2e "${e2e_others[@]}" || s=$?
  lane install-2 --project install "${INSTALL_IN_LANE_2[@]}" || s=$?
  return $s
}
echo "==> three lanes: browser end-to-end files | other end-to-end files, then ${#INSTALL_IN_LANE_2[@]} install files | ${#install_others[@]} install files"
lane_2 >.test-artifacts/lane-2.log 2>&1 &
lane_2_pid=$!
lane install-3 --project install "${install_others[@]}" >.test-artifacts/lane-3.log 2>&1 &
lane_3_pid=$!
lane e2e-1 --project e2e "${E2E_BROWSERS[@]}" || status=$?
for n in 2 3; do
  pid_var=lane_${n}_pid
  lane_status=0
  wait "${!pid_var}" || lane_status=$?
  echo "==> lane $n (ran beside lane 1)"
  cat ".test-artifacts/lane-$n.log"
  [ "$lane_status" -eq 0 ] || status=$lane_status
done

node scripts/test-report.ts "$started_at" .test-artifacts/vitest-unit.json .test-artifacts/vitest-e2e-1.json \
  .test-artifacts/vitest-e2e-2.json .test-artifacts/vitest-install-2.json .test-artifacts/vitest-install-3.json || status=1
exit $status
