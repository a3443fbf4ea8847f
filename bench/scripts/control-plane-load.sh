#!/bin/sh
# Heartbeats per second that one reference control plane serves over TLS 1.3 + h2 (issue 5).
#
# The server (bin/ql3-control-plane serve, the launcher's JVM flags) and the load client
# (io.ql3.worker.bench.controlplane.ControlPlaneLoad, from the bench module) run on this machine.
# The client opens one TLS 1.3 h2 connection per simulated worker (own certificate and token),
# registers, then heartbeats back to back, one request at a time per session, versions in order.
# A heartbeat counts only if it is a 200 that the strict contract parser accepts with the next
# version. After the warm-up it prints one block per window: heartbeats/s, server and client CPU
# per heartbeat (server split by thread), load average, and a speed probe (the thread-CPU time of
# a fixed loop, once a second) that shows whether the cores ran at their usual speed: on these
# shared machines the same loop was seen to take up to 1.7x longer from one minute to the next.
#
# --mode longpoll instead: every worker (default 1,000) parks one pull (waitMs 60000); the client checks
# that the server holds them all (admin API parkedPulls), submits one run per worker, and reports when
# every parked pull has been answered with its offer.
#
# Usage: bench/scripts/control-plane-load.sh [--mode heartbeat|longpoll] [--workers 200] [--seconds 20] [--windows 3]
#   [--warmup 60] [--io-threads 2] [--client-threads 1] [--transport auto|epoll|nio]
#   [--pin] (server on CPU 0, client on CPU 1: the server gets exactly one core)
# JAVA_HOME selects the JDK for both processes (scripts/lib.sh). KEEP=1 keeps the work directory.
# Needs a build: mvn -B -q -DskipTests package.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
mode=heartbeat; workers=; seconds=20; windows=3; warmup=60; io=2; client=1; transport=auto; pin=
while [ $# -gt 0 ]; do
  case "$1" in
    --mode) mode=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --windows) windows=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --io-threads) io=$2; shift 2 ;;
    --client-threads) client=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --pin) pin=1; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
case "$mode" in
  heartbeat) workers=${workers:-200}; heap=1g ;;
  longpoll) workers=${workers:-1000}; heap=1500m ;;
  *) die "--mode must be heartbeat or longpoll, not '$mode'" ;;
esac
select_jdk
[ -f bench/target/bench-0.1.0-SNAPSHOT.jar ] || die "no bench build: run mvn -B -q -DskipTests package"
spin=; cpin=
if [ -n "$pin" ]; then
  command -v taskset >/dev/null 2>&1 || die "--pin needs taskset (util-linux)"
  spin="taskset -c 0"; cpin="taskset -c 1"
fi
work=$(mktemp -d)
cp_pid=
cleanup() {
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

bin/ql3-control-plane dev-pki --out "$work/pki" --worker load-0000 --days 2 >/dev/null
# Back-to-back heartbeats: the early-heartbeat audit is relaxed and leases outlive the run.
$spin bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 --io-threads "$io" \
  --transport "$transport" --heartbeat-interval-ms 60000 --lease-ttl-ms 900000 \
  --draining-lease-ttl-ms 900000 --early-tolerance-ms 60000 > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"
echo "java $("$JAVA_HOME/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2) ($JAVA_HOME); $(nproc) cores;" \
  "$mode, workers $workers, io-threads $io, client threads $client, ${pin:+pinned, }$(grep -o 'transport=[a-z]*' "$work/cp.log")"
echo "uptime_before $(uptime)"
$cpin "$JAVA_HOME/bin/java" -Xmx$heap --enable-native-access=ALL-UNNAMED -Dql3.load.transport="$transport" \
  -cp "bench/target/bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" io.ql3.worker.bench.controlplane.ControlPlaneLoad \
  "$mode" "$work/pki" "${ingress##*:}" "$admin" "$workers" "$seconds" "$warmup" "$client" "$cp_pid" "$windows"
grep -c ' violation ' "$work/cp.log" | sed 's/^/server violations logged: /'
echo "server RSS at the end: $(awk '/^VmRSS/ {print $2 " kB"}' "/proc/$cp_pid/status" 2>/dev/null || echo unknown)"
