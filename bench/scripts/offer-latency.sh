#!/bin/sh
# Offer-to-start latency on loopback: the reference control plane logs when it answers a parked
# pull with an offer; the agent logs run.started once the offer is durably accepted, the start is
# durably journaled and the run launched. Both log wall-clock timestamps on the same machine.
# Runs are submitted one at a time (curl to the admin API), each after the previous one started,
# so every offer answers an already parked long poll (h2).
#
# Usage: bench/scripts/offer-latency.sh [--profile edge|node] [--runs N] [--executor noop|process]
# Needs a build (mvn -B -q -DskipTests package), curl and python3.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
profile=node; runs=200; executor=noop
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --executor) executor=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
spec='{}'
[ "$executor" = process ] && spec='{"argv":["/bin/true"],"cwd":null,"env":{}}'
work=$(mktemp -d)
cp_pid=; agent_pid=
cleanup() {
  [ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null || true
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

bin/ql3-control-plane dev-pki --out "$work/pki" --worker lat-0001 --days 2 >/dev/null
bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 --verbose \
  --heartbeat-interval-ms 30000 --lease-ttl-ms 90000 --draining-lease-ttl-ms 90000 > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"
write_agent_config "$work/agent/agent.toml" "$work/pki" lat-0001 "$ingress" <<EOF
[execution]
work-dir = "runs"
executors = ["$executor"]
EOF
bin/ql3-worker run --profile "$profile" --config "$work/agent/agent.toml" > "$work/agent.log" 2>&1 &
agent_pid=$!
for _ in $(seq 1 1200); do grep -q 'to=ACTIVE' "$work/agent.log" && break; sleep 0.05; done
sleep 1
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  curl -s -X POST "http://127.0.0.1:$admin/runs" -H 'content-type: application/json' \
    -d "{\"count\":1,\"executor\":\"$executor\",\"spec\":$spec,\"timeoutMs\":60000,\"workerId\":\"lat-0001\"}" >/dev/null
  for _ in $(seq 1 400); do
    [ "$(grep -c 'event=run.started' "$work/agent.log")" -ge "$i" ] && break
    sleep 0.01
  done
  sleep 0.05 # let the next pull park
done
kill -TERM "$agent_pid"; wait "$agent_pid" || true; agent_pid=
python3 - "$work/cp.log" "$work/agent.log" <<'PY'
import re, sys, datetime
def ts(s):
    s = s.rstrip('Z')
    base, _, frac = s.partition('.')
    t = datetime.datetime.fromisoformat(base).replace(tzinfo=datetime.timezone.utc).timestamp()
    return t + float('0.' + (frac or '0'))
offers = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) offer .* runs=(\S+)', line)
    if m:
        for run in m.group(2).split(','):
            offers[run.split('#')[0]] = ts(m.group(1))
lat = []
for line in open(sys.argv[2]):
    m = re.match(r'ts=(\S+) level=info event=run.started run=(\S+)', line)
    if m and m.group(2) in offers:
        lat.append((ts(m.group(1)) - offers[m.group(2)]) * 1000)
lat.sort()
if not lat:
    sys.exit("no matched offers")
def pct(p): return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]
print(f"offer_to_start_ms n={len(lat)} p50={pct(50):.2f} p90={pct(90):.2f} p99={pct(99):.2f} max={lat[-1]:.2f}")
PY
