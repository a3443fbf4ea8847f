#!/bin/sh
# Agent benchmark on loopback: start-up to registered, RSS (steady and peak) through
# register -> N noop runs -> drain -> offline, noop throughput, idle requests per minute and
# SIGTERM-to-exit with no runs. Uses the launchers (bin/), so the JVM flags are the edge
# profile's. Prints one "key value" line per measurement.
#
# Usage: bench/scripts/agent-footprint.sh [--profile edge|node] [--runs N] [--idle-seconds S]
#        [--heartbeat-ms H] [--java-home DIR] [--notify]
#   --notify  run the agent as under Type=notify: NOTIFY_SOCKET (a path nothing listens on: the
#             agent loads Netty's native library and sends every datagram, the kernel refuses it)
#             and WATCHDOG_USEC=2 s (a ping every second). For the RSS cost of sd_notify.
# Needs a build: mvn -B -q -DskipTests package
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
profile=edge; runs=1000; idle=60; hb=10000; java_home=${JAVA_HOME:-}; notify=no
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --idle-seconds) idle=$2; shift 2 ;;
    --heartbeat-ms) hb=$2; shift 2 ;;
    --java-home) java_home=$2; shift 2 ;;
    --notify) notify=yes; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
[ -n "$java_home" ] && export JAVA_HOME="$java_home"
echo "load_average_at_start $(cut -d' ' -f1-3 /proc/loadavg)"
lease=$((hb * 3)); [ "$lease" -lt 15000 ] && lease=15000

work=$(mktemp -d)
cp_pid=; agent_pid=; sampler=
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
  [ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null || true
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

ms() { date +%s%3N; }

bin/ql3-control-plane dev-pki --out "$work/pki" --worker bench-0001 --days 2 >/dev/null
QL3_CP_JAVA_OPTS="-XX:+UseSerialGC -Xmx512m" bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 \
  --heartbeat-interval-ms "$hb" --lease-ttl-ms "$lease" --draining-lease-ttl-ms "$lease" > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"

slots=2; [ "$profile" = node ] && slots=16
write_agent_config "$work/agent/agent.toml" "$work/pki" bench-0001 "$ingress" <<EOF
[execution]
work-dir = "runs"
max-concurrent-runs = $slots
executors = ["noop"]
EOF

if [ "$notify" = yes ]; then
  export NOTIFY_SOCKET="$work/notify.sock" WATCHDOG_USEC=2000000
else
  unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
fi
echo "notify $notify"
t0=$(ms)
bin/ql3-worker run --profile "$profile" --config "$work/agent/agent.toml" > "$work/agent.log" 2>&1 &
agent_pid=$!
# RSS sampler: every 100 ms, the highest VmRSS seen and the kernel's VmHWM.
( while kill -0 "$agent_pid" 2>/dev/null; do
    awk '/^VmRSS:/{print $2}' "/proc/$agent_pid/status" 2>/dev/null >> "$work/rss.samples" || true
    sleep 0.1
  done ) &
sampler=$!
for _ in $(seq 1 1200); do grep -q 'to=ACTIVE' "$work/agent.log" && break; sleep 0.01; done
t_reg=$(ms)
echo "java $("${JAVA_HOME:-/usr}/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2)"
echo "profile $profile"
echo "start_to_registered_ms $((t_reg - t0))"

sleep 2
rss_idle=$(awk '/^VmRSS:/{print $2}' "/proc/$agent_pid/status")
echo "rss_after_register_mib $(awk -v k="$rss_idle" 'BEGIN{printf "%.1f", k/1024}')"

# Idle requests: count what the server answered for this worker over the idle window.
count_requests() {
  bin/ql3-control-plane connections --admin-port "$admin" | tr ',' '\n' | sed -n 's/.*"requests" *: *\([0-9]*\).*/\1/p' \
    | awk '{s+=$1} END{print s+0}'
}
if [ "$idle" -gt 0 ]; then
  r0=$(count_requests); sleep "$idle"; r1=$(count_requests)
  echo "idle_requests_per_minute $(awk -v a="$r0" -v b="$r1" -v s="$idle" 'BEGIN{printf "%.1f", (b-a)*60/s}') (heartbeat ${hb} ms, window ${idle} s)"
fi

# CPU time of the agent process (utime + stime, clock ticks): load-independent, unlike wall time.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$agent_pid/stat"; }
c1=$(cpu_ticks)
t1=$(ms)
bin/ql3-control-plane runs submit --admin-port "$admin" --count "$runs" --executor noop --worker bench-0001 >/dev/null
for _ in $(seq 1 100000); do
  n=$(grep -c 'event=completion.delivered' "$work/agent.log" || true)
  [ "$n" -ge "$runs" ] && break
  sleep 0.05
done
t2=$(ms)
c2=$(cpu_ticks)
echo "agent_cpu_ms_per_run $(awk -v a="$c1" -v b="$c2" -v n="$runs" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", (b-a)*1000/hz/n}')"
echo "noop_runs $runs in $((t2 - t1)) ms: $(awk -v n="$runs" -v t="$((t2 - t1))" 'BEGIN{printf "%.0f", n*1000/t}') runs/s (submit included)"
rss_busy=$(awk '/^VmRSS:/{print $2}' "/proc/$agent_pid/status")
echo "rss_after_runs_mib $(awk -v k="$rss_busy" 'BEGIN{printf "%.1f", k/1024}')"

sleep 1
hwm=$(awk '/^VmHWM:/{print $2}' "/proc/$agent_pid/status")
echo "rss_peak_vmhwm_before_drain_mib $(awk -v k="$hwm" 'BEGIN{printf "%.1f", k/1024}')"
t3=$(ms)
kill -TERM "$agent_pid"
wait "$agent_pid" || true
t4=$(ms)
agent_pid=
echo "sigterm_to_exit_ms $((t4 - t3)) (no runs in flight)"
hwm_samples=$(sort -n "$work/rss.samples" | tail -1)
echo "rss_peak_sampled_mib $(awk -v k="$hwm_samples" 'BEGIN{printf "%.1f", k/1024}')"
grep -q 'to=OFFLINE' "$work/agent.log" && echo "offline yes" || echo "offline NO"
echo "violations $(bin/ql3-control-plane violations --admin-port "$admin" | sed -n 's/.*"total" *: *\([0-9]*\).*/\1/p')"
