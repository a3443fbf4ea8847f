#!/bin/sh
# Offer-to-start latency on loopback: the reference control plane logs when it answers a parked
# pull with an offer; the agent logs run.started once the offer is durably accepted, the start is
# durably journaled and the run launched. Both log wall-clock timestamps on the same machine.
# Runs are submitted one at a time (admin API, from one Python driver), each 50 ms after the
# previous one started, so every offer answers an already parked long poll (h2).
#
# Only offers that answered a parked pull (the control plane logs them "(woken)") are counted;
# the others (the run was queued before the pull arrived) are reported apart.
#
# --warmup W submits W runs first, the same way, and reports them apart (cold JIT: the agent's and
# the control plane's TLS/HTTP/2 and offer paths are interpreted or C1-compiled for the first few
# hundred offers); the main figures are for the N runs after them.
#
# --isolation none|auto|required sets execution.isolation (process runs; required switches runs to
# uids of their own from --run-user, default 70000, which needs root); the agent's own CPU and its reaped children's CPU
# (the run processes and their helpers) per run are printed from /proc/PID/stat.
#
# Usage: bench/scripts/offer-latency.sh [--profile edge|node] [--runs N] [--warmup W] [--executor noop|process]
#          [--isolation none|auto|required] [--run-user UID]
# KEEP=1 keeps the work directory (logs) and prints its path.
# Needs a build (mvn -B -q -DskipTests package) and python3.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
profile=node; runs=200; warmup=0; executor=noop; isolation=none; run_user=70000
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --executor) executor=$2; shift 2 ;;
    --isolation) isolation=$2; shift 2 ;;
    --run-user) run_user=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
spec='{}'
[ "$executor" = process ] && spec='{"argv":["/bin/true"],"cwd":null,"env":{}}'
work=$(mktemp -d)
chmod 0711 "$work"  # the run account must reach its work directory (required/auto)
cp_pid=; agent_pid=
cleanup() {
  [ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null || true
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

bin/ql3-control-plane dev-pki --out "$work/pki" --worker lat-0001 --days 2 >/dev/null
bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 --verbose \
  --heartbeat-interval-ms 30000 --lease-ttl-ms 90000 --draining-lease-ttl-ms 90000 > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"
echo "java $("${JAVA_HOME:-/usr}/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2) profile $profile runs $runs warmup $warmup executor $executor isolation $isolation"
echo "uptime_before $(uptime)"
write_agent_config "$work/agent/agent.toml" "$work/pki" lat-0001 "$ingress" <<EOF
[execution]
work-dir = "runs"
executors = ["$executor"]
isolation = "$isolation"
run-user = $run_user
EOF
chmod 0711 "$work/agent"
bin/ql3-worker run --profile "$profile" --config "$work/agent/agent.toml" > "$work/agent.log" 2>&1 &
agent_pid=$!
for _ in $(seq 1 1200); do grep -q 'to=ACTIVE' "$work/agent.log" && break; sleep 0.05; done
sleep 1
grep 'event=isolation.active' "$work/agent.log" | sed 's/^ts=[^ ]* //' || true
cpu_ticks() { awk '{print $14+$15, $16+$17}' "/proc/$agent_pid/stat"; }  # self, reaped children
cpu0=$(cpu_ticks)
# One driver process submits each run (admin API) and waits for its run.started line by reading
# the agent log incrementally: no process is forked while an offer is in flight (a shell loop of
# curl/grep/sleep forks would compete for the same 2 cores as the measured path).
python3 - "$admin" "$executor" "$spec" "$((runs + warmup))" "$work/agent.log" <<'PY'
import http.client, json, sys, time
admin, executor, spec, runs, log = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
body = json.dumps({"count": 1, "executor": executor, "spec": spec, "timeoutMs": 60000, "workerId": "lat-0001"})
f = open(log)
started = 0
pending = ""
for i in range(runs):
    c = http.client.HTTPConnection("127.0.0.1", admin, timeout=10)
    c.request("POST", "/runs", body, {"content-type": "application/json"})
    c.getresponse().read()
    c.close()
    deadline = time.monotonic() + 10
    while started <= i and time.monotonic() < deadline:
        line = f.readline()
        if not line:
            time.sleep(0.002)
            continue
        pending += line
        if pending.endswith("\n"):
            if "event=run.started" in pending:
                started += 1
            pending = ""
    time.sleep(0.05)  # let the completion go and the next pull park
PY
cpu1=$(cpu_ticks)
hz=$(getconf CLK_TCK)
echo "$cpu0 $cpu1" | awk -v n="$((runs + warmup))" -v hz="$hz" \
  '{printf "agent_cpu_ms_per_run=%.2f children_cpu_ms_per_run=%.2f (over %d runs incl. warm-up)\n", ($3-$1)*1000/hz/n, ($4-$2)*1000/hz/n, n}'
kill -TERM "$agent_pid"; wait "$agent_pid" || true; agent_pid=
echo "uptime_after $(uptime)"
python3 - "$work/cp.log" "$work/agent.log" "$warmup" <<'PY'
import re, sys, datetime
def ts(s):
    s = s.rstrip('Z')
    base, _, frac = s.partition('.')
    t = datetime.datetime.fromisoformat(base).replace(tzinfo=datetime.timezone.utc).timestamp()
    return t + float('0.' + (frac or '0'))
offers = {}
not_woken = 0
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) offer .* runs=(\S+)', line)
    if m:
        if '(woken)' not in line:
            not_woken += 1
            continue
        for run in m.group(2).split(','):
            offers[run.split('#')[0]] = ts(m.group(1))
lat = []
for line in open(sys.argv[2]):
    m = re.match(r'ts=(\S+) level=info event=run.started run=(\S+)', line)
    if m and m.group(2) in offers:
        lat.append((ts(m.group(1)) - offers[m.group(2)]) * 1000)
warmup = int(sys.argv[3])
cold, lat = lat[:warmup], lat[warmup:]
def pct(xs, p): return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
def show(name, xs):
    xs = sorted(xs)
    print(f"{name} n={len(xs)} p50={pct(xs, 50):.2f} p90={pct(xs, 90):.2f} p99={pct(xs, 99):.2f} max={xs[-1]:.2f}")
if not lat:
    sys.exit("no matched offers")
print(f"offers not answering a parked pull (left out): {not_woken}")
if cold:
    show("warmup_offer_to_start_ms", cold)
show("offer_to_start_ms", lat)
PY
