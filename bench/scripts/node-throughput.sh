#!/bin/sh
# Node-profile noop throughput with the durable journal, and in the SAME run the journal's
# group-commit limit on this disk, so the two can be compared:
#   1. the reference control plane + `ql3-worker run --profile node` (16 slots, page 8), N noop runs
#      submitted at once; throughput = N / (submit -> last completion.delivered, log timestamps);
#      forces per run from the agent's `journal.released` line (whole process life, so it
#      includes register/drain/offline: a slight overestimate);
#   2. JMH on the same disk: RawForceBenchmark (write+force of 256 B, the physical limit) and
#      JournalAppendBenchmark with 16 producers (the journal's own group commit, one run cycle =
#      4 records: accepted, started, result, acknowledged).
# Prints one "key value" line per figure.
#
# Usage: bench/scripts/node-throughput.sh [--runs N] [--no-jmh]
# Needs a build: mvn -B -q -DskipTests package (agent, control plane and bench jars).
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
select_jdk
runs=1000; jmh=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --no-jmh) jmh=0; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
work=$(mktemp -d)
cp_pid=; agent_pid=
cleanup() {
  [ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null || true
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

echo "java $("$JAVA_HOME/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2)"
echo "nproc $(nproc)"
echo "uptime_before $(uptime)"
bin/ql3-control-plane dev-pki --out "$work/pki" --worker thr-0001 --days 2 >/dev/null
QL3_CP_JAVA_OPTS="-XX:+UseSerialGC -Xmx512m" bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 \
  --heartbeat-interval-ms 30000 --lease-ttl-ms 90000 --draining-lease-ttl-ms 90000 > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"
write_agent_config "$work/agent/agent.toml" "$work/pki" thr-0001 "$ingress" <<CONF
[execution]
work-dir = "runs"
max-concurrent-runs = 16
executors = ["noop"]
CONF
bin/ql3-worker run --profile node --config "$work/agent/agent.toml" > "$work/agent.log" 2>&1 &
agent_pid=$!
for _ in $(seq 1 1200); do grep -q 'to=ACTIVE' "$work/agent.log" && break; sleep 0.05; done
sleep 1
# CPU time (user+system, clock ticks) of the agent and the control plane over the batch.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
a_cpu0=$(cpu "$agent_pid"); c_cpu0=$(cpu "$cp_pid")
t_submit=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
curl -s -X POST "http://127.0.0.1:$admin/runs" -H 'content-type: application/json' \
  -d "{\"count\":$runs,\"executor\":\"noop\",\"spec\":{},\"timeoutMs\":60000,\"workerId\":\"thr-0001\"}" >/dev/null
for _ in $(seq 1 6000); do
  [ "$(grep -c 'event=completion.delivered' "$work/agent.log" || true)" -ge "$runs" ] && break
  sleep 0.2
done
a_cpu1=$(cpu "$agent_pid"); c_cpu1=$(cpu "$cp_pid"); hz=$(getconf CLK_TCK)
kill -TERM "$agent_pid"; wait "$agent_pid" || true; agent_pid=
echo "uptime_after_agent $(uptime)"
python3 - "$t_submit" "$work/agent.log" "$runs" > "$work/thr.txt" <<'PY'
import re, sys, datetime
def ts(s):
    s = s.rstrip('Z'); base, _, frac = s.partition('.')
    return datetime.datetime.fromisoformat(base).replace(tzinfo=datetime.timezone.utc).timestamp() + float('0.' + (frac or '0'))
t0 = ts(sys.argv[1]); runs = int(sys.argv[3])
first = last = None; delivered = 0; forces = records = None
for line in open(sys.argv[2]):
    m = re.match(r'ts=(\S+) level=\S+ event=(\S+)', line)
    if not m:
        continue
    if m.group(2) == 'run.started' and first is None:
        first = ts(m.group(1))
    if m.group(2) == 'completion.delivered':
        delivered += 1; last = ts(m.group(1))
    if m.group(2) == 'journal.released':
        forces = int(re.search(r' forces=(\d+)', line).group(1)); records = int(re.search(r' records=(\d+)', line).group(1))
if delivered < runs:
    sys.exit(f"only {delivered} of {runs} completions delivered")
print(f"noop_runs {runs}")
print(f"runs_per_s {runs / (last - t0):.0f} (submit -> last completion delivered, {1000 * (last - t0):.0f} ms)")
print(f"runs_per_s_first_start_to_last_delivery {runs / (last - first):.0f}")
if forces:
    print(f"agent_journal_forces {forces} records {records} forces_per_run {forces / runs:.3f} records_per_run {records / runs:.2f} (whole process life)")
    print(f"agent_forces_per_s {forces / (last - t0):.0f}")
PY
cat "$work/thr.txt"
echo "cpu_ms_per_run agent $(awk -v a="$a_cpu0" -v b="$a_cpu1" -v hz="$hz" -v n="$runs" 'BEGIN{printf "%.2f", (b-a)*1000/hz/n}') control_plane $(awk -v a="$c_cpu0" -v b="$c_cpu1" -v hz="$hz" -v n="$runs" 'BEGIN{printf "%.2f", (b-a)*1000/hz/n}') (includes the polling tail: up to 0.2 s after the last delivery)"
[ "$jmh" = 1 ] || exit 0
cp="bench/target/bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*"
# JMH allows one instance per machine (/tmp/jmh.lock); other helpers benchmark too: wait our turn.
run_jmh() {
  tries=0
  while :; do
    log=$(mktemp)
    "$JAVA_HOME/bin/java" -cp "$cp" org.openjdk.jmh.Main "$@" >"$log" 2>&1 || true
    if grep -q 'Unable to acquire the JMH lock' "$log" && [ "$tries" -lt 120 ]; then
      tries=$((tries + 1)); rm -f "$log"; sleep 10; continue
    fi
    cat "$log"; rm -f "$log"; return 0
  done
}
run_jmh 'journal.RawForceBenchmark' -f 1 -wi 1 -w 2 -i 3 -r 3 > "$work/raw.txt"
run_jmh 'journal.JournalAppendBenchmark' -t 16 -bm thrpt -tu s -f 1 -wi 1 -w 2 -i 3 -r 3 > "$work/append.txt"
echo "uptime_after_jmh $(uptime)"
raw=$(awk '/^RawForceBenchmark.*thrpt/{print $(NF-3)}' "$work/raw.txt" | head -1)
app=$(awk '/^JournalAppendBenchmark.*thrpt/{print $(NF-3)}' "$work/append.txt" | head -1)
fpr=$(sed -n 's/.*event=journal.released.* forces=\([0-9]*\).*/\1/p' "$work/agent.log" | awk -v n="$runs" '{printf "%.6f", $1/n}')
grep -E '^(Benchmark|RawForce|JournalAppend)' "$work/raw.txt" "$work/append.txt" | sed 's/^[^:]*://'
echo "raw_force_per_s $raw"
echo "journal_append_t16_records_per_s $app (run-cycle limit $(awk -v a="$app" 'BEGIN{printf "%.0f", a/4}') runs/s at 4 records per run)"
rps=$(awk '/^runs_per_s /{print $2}' "$work/thr.txt")
echo "force_bound_runs_per_s $(awk -v r="$raw" -v f="$fpr" 'BEGIN{printf "%.0f", r/f}') (raw forces/s / agent forces per run)"
echo "fraction_of_force_bound $(awk -v x="$rps" -v r="$raw" -v f="$fpr" 'BEGIN{printf "%.2f", x/(r/f)}')"
echo "fraction_of_journal_t16_run_limit $(awk -v x="$rps" -v a="$app" 'BEGIN{printf "%.2f", x/(a/4)}')"
