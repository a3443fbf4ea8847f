#!/bin/sh
# Node-profile noop throughput, durable journal vs non-durable, in the SAME run, then offer -> start
# latency; optionally the journal's group-commit limit on this disk (JMH).
#
#   1. One reference control plane, warmed up by an unmeasured round 0 (--cp-warmup). For each
#      round (default 2) and each mode, alternating
#      durable, non-durable, durable, non-durable, ...: a fresh `ql3-worker run --profile node`
#      (16 slots, page 8 unless --pull-page) registers, W warm-up noop runs are submitted at once and awaited (JIT,
#      not measured), then N noop runs are submitted at once (measured):
#        - runs/s = N / (submit -> the Nth completion.delivered line), timestamps from one driver;
#        - CPU per run = user+system time of the agent and of the control plane (/proc/PID/stat)
#          between the submit and the Nth delivery, divided by N; also without the JIT compiler
#          threads (/proc/PID/task/*/stat), which are still busy in a young JVM;
#        - journal forces per run, from the agent's journal.released line at exit: the whole
#          process life (register, warm-up, measured batch, drain) over warm-up + measured runs;
#        - the measured batch's gaps over 100 ms between the agent's log lines, summed
#          (bench/scripts/log-gaps.py): time the agent waited instead of working.
#      durable: the agent's directory (journal, run work dirs) on the ordinary disk (the script's
#      mktemp -d, normally /tmp). non-durable: the same on tmpfs (/dev/shm), where `force` returns
#      at once: the difference is what the journal's fsyncs cost, nothing else changes (the agent's
#      log is on tmpfs in both modes).
#   2. bench/scripts/offer-latency.sh --profile node --runs L --warmup LW (durable, one run at a
#      time answering a parked pull: the offer -> run.started p50/p90/p99).
#   3. without --no-jmh: JMH RawForceBenchmark and JournalAppendBenchmark -t 16 on the same disk.
# Prints the load average before every measured batch and one summary table at the end.
#
# Usage: bench/scripts/node-throughput.sh [--runs N] [--warmup W] [--rounds R] [--latency-runs L]
#          [--latency-warmup LW] [--no-latency] [--no-jmh] [--pull-page P] [--cp-warmup C]
#   defaults: --runs 5000 --warmup 30000 --rounds 2 --latency-runs 500 --latency-warmup 5000
#   --cp-warmup 5000 (round 0: one unmeasured agent batch of W + C runs that warms the control
#   plane up; 0: none): about
#   4 min on a quiet 2-core machine without JMH. The warm-up is what "sustained" needs: C2 is still
#   compiling after 5,000 runs (its threads then cost 400-550 us per run, more than the agent's own
#   code) and done after ~30,000 (docs/perf/node.md, "Warm-up").
# KEEP=1 keeps the work directories (the agents' logs are in the tmpfs one); THREADS=1 also prints CPU per run by thread name. QL3_JAVA_OPTS is passed to the agents (e.g. a JFR
# recording), QL3_CP_JAVA_OPTS to the control plane.
# Needs a build: mvn -B -q -DskipTests package (agent, control plane and bench jars), python3, curl.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
select_jdk
runs=5000; warmup=30000; rounds=2; jmh=1; latency=1; latency_runs=500; latency_warmup=5000; pull_page=
cp_warmup=5000
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --latency-runs) latency_runs=$2; shift 2 ;;
    --latency-warmup) latency_warmup=$2; shift 2 ;;
    --pull-page) pull_page=$2; shift 2 ;;
    --cp-warmup) cp_warmup=$2; shift 2 ;;
    --no-latency) latency=0; shift ;;
    --no-jmh) jmh=0; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
work=$(mktemp -d)
shm=$(mktemp -d -p /dev/shm ql3-thr.XXXXXX)
cp_pid=; agent_pid=
cleanup() {
  [ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null || true
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work $shm"; else rm -rf "$work" "$shm"; fi
}
trap cleanup EXIT

echo "java $("$JAVA_HOME/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2)"
echo "nproc $(nproc)"
echo "durable_dir_fs $(df -T "$work" | awk 'NR==2{print $2" "$1}') non_durable_dir_fs $(df -T "$shm" | awk 'NR==2{print $2}')"
echo "uptime_before $(uptime)"
bin/ql3-control-plane dev-pki --out "$work/pki" --worker thr-0001 --days 2 >/dev/null
QL3_CP_JAVA_OPTS="${QL3_CP_JAVA_OPTS:--XX:+UseSerialGC -Xmx512m}" bin/ql3-control-plane serve --pki "$work/pki" \
  --port 0 --admin-port 0 \
  --heartbeat-interval-ms 30000 --lease-ttl-ms 90000 --draining-lease-ttl-ms 90000 > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"

# One batch: a fresh agent in directory $2 (mode $1), W warm-up runs, then N measured runs.
# Appends one result line to $3 (default $work/results.txt).
batch() {
  mode=$1; dir=$2; results=${3:-$work/results.txt}
  # The agent's log is on tmpfs in both modes: on the disk it would be written back beside the
  # durable journal's forces (docs/perf/node.md, "The agent's log off the measured disk").
  agent_log=$shm/$(basename "$dir").log
  write_agent_config "$dir/agent.toml" "$work/pki" thr-0001 "$ingress" <<CONF
[execution]
work-dir = "runs"
max-concurrent-runs = 16
executors = ["noop"]
${pull_page:+pull-page = $pull_page}
CONF
  bin/ql3-worker run --profile node --config "$dir/agent.toml" > "$agent_log" 2>&1 &
  agent_pid=$!
  for _ in $(seq 1 1200); do grep -q 'to=ACTIVE' "$agent_log" && break; sleep 0.05; done
  grep -q 'to=ACTIVE' "$agent_log" || { cat "$agent_log" >&2; die "the agent did not register"; }
  sleep 1
  # One driver submits (admin API) and follows the agent log without forking anything while a
  # batch runs; it reads both processes' CPU at the submit and at the Nth delivery.
  python3 - "$admin" "$agent_log" "$warmup" "$runs" "$agent_pid" "$cp_pid" "$mode" \
      >> "$results" <<'PY'
import http.client, json, os, sys, time
admin, log, warmup, runs, apid, cpid, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
hz = os.sysconf('SC_CLK_TCK')
def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz  # utime + stime, seconds
def submit(n):
    c = http.client.HTTPConnection('127.0.0.1', int(admin), timeout=30)
    c.request('POST', '/runs', json.dumps({"count": n, "executor": "noop", "spec": {}, "timeoutMs": 60000,
                                           "workerId": "thr-0001"}), {'content-type': 'application/json'})
    r = c.getresponse(); r.read(); c.close()
    if r.status // 100 != 2:
        sys.exit(f'submit answered {r.status}')
f = open(log)
seen = 0; pending = ''
def await_delivered(target, limit_s):
    global seen, pending
    deadline = time.monotonic() + limit_s
    while seen < target:
        line = f.readline()
        if not line:
            if time.monotonic() > deadline:
                sys.exit(f'only {seen} of {target} completions delivered')
            time.sleep(0.005)
            continue
        pending += line
        if pending.endswith('\n'):
            if ' event=completion.delivered ' in pending:
                seen += 1
            pending = ''
if warmup:
    submit(warmup); await_delivered(warmup, max(120, warmup // 100))
    time.sleep(0.3)
load = open('/proc/loadavg').read().split()[0]
def threads(pid):
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            st = open(f'/proc/{pid}/task/{tid}/stat').read()
        except OSError:
            continue
        name = st[st.index('(') + 1:st.rindex(')')]
        f = st.rsplit(')', 1)[1].split()
        out[(tid, name)] = (int(f[11]) + int(f[12])) / hz
    return out
per_thread = os.environ.get('THREADS') == '1'
th0 = {p: threads(p) for p in (apid, cpid)}
a0, c0, t0 = cpu(apid), cpu(cpid), time.monotonic()
submit(runs); await_delivered(warmup + runs, 300)
t1, a1, c1 = time.monotonic(), cpu(apid), cpu(cpid)
jit = {}
for p, who in ((apid, 'agent'), (cpid, 'control plane')):
    th1 = threads(p); agg = {}
    for k, v in th1.items():
        name = ''.join(ch for ch in k[1] if not ch.isdigit()).rstrip('-#')
        agg[name] = agg.get(name, 0) + v - th0[p].get(k, 0)
    # the JIT's own threads (C1/C2 compiler threads, code sweeper): warm-up, not per-run work
    jit[p] = sum(v for n, v in agg.items() if 'Compiler' in n or n.startswith('Sweeper'))
    if per_thread:
        top = sorted(agg.items(), key=lambda kv: -kv[1])[:8]
        print(f'# {mode} {who} CPU per run by thread: ' + ', '.join(f'{n} {v * 1e6 / runs:.0f} us' for n, v in top),
              file=sys.stderr)
print(f'{mode} {runs / (t1 - t0):.0f} {(a1 - a0) * 1e6 / runs:.0f} {(c1 - c0) * 1e6 / runs:.0f} {1000 * (t1 - t0):.0f} {load}'
      f' {(a1 - a0 - jit[apid]) * 1e6 / runs:.0f} {(c1 - c0 - jit[cpid]) * 1e6 / runs:.0f}')
PY
  kill -TERM "$agent_pid"; wait "$agent_pid" || true; agent_pid=
  fr=$(sed -n 's/.*event=journal.released.* forces=\([0-9]*\).*/\1/p' "$agent_log" | head -1)
  echo "$fr" | awk -v n="$((runs + warmup))" '{printf "forces_per_run_whole_life %.3f\n", $1/n}' >> "$results"
  echo "gaps_over_100ms_s $(python3 bench/scripts/log-gaps.py "$agent_log" --last "$runs" --over 100 --sum-only)" \
    >> "$results"
  [ -n "${KEEP:-}" ] || rm -f "$agent_log" # tmpfs is memory
  tail -3 "$results" | sed "s/^/round $round: /"
}

# Round 0, not measured: the control plane is a fresh JVM too, and while its JIT compiles (the
# first ~30,000 runs it serves) it takes CPU from the agent on these two cores; without this the
# first measured batch, always a durable one, paid for it (its control plane CPU per run 2-3x
# that of later rounds).
if [ "$cp_warmup" -gt 0 ]; then
  round=0
  runs_measured=$runs; runs=$cp_warmup
  batch non-durable "$shm/w0" "$work/warmup.txt"
  runs=$runs_measured
fi

round=1
while [ "$round" -le "$rounds" ]; do
  batch durable "$work/d$round"
  batch non-durable "$shm/n$round"
  round=$((round + 1))
done
echo "uptime_after_throughput $(uptime)"

python3 - "$work/results.txt" "$runs" "$warmup" <<'PY'
import sys
rows = []; fpr = []; gaps = []
for line in open(sys.argv[1]):
    p = line.split()
    if p[0] == 'forces_per_run_whole_life':
        fpr.append(float(p[1])); continue
    if p[0] == 'gaps_over_100ms_s':
        gaps.append(float(p[1])); continue
    rows.append(dict(mode=p[0], rps=int(p[1]), a=int(p[2]), c=int(p[3]), ms=int(p[4]), load=p[5], aj=int(p[6]), cj=int(p[7])))
for r, f, g in zip(rows, fpr, gaps):
    r['fpr'] = f; r['gaps'] = g
print(f"\nnoop runs per batch {sys.argv[2]} (after {sys.argv[3]} warm-up runs on the same agent)")
print(f"{'batch':<6}{'mode':<13}{'runs/s':>8}{'agent CPU/run':>15}{'excl. JIT':>11}{'CP CPU/run':>12}{'excl. JIT':>11}{'wall ms':>9}{'forces/run':>12}{'gaps>100ms':>12}{'load':>7}")
for i, r in enumerate(rows, 1):
    print(f"{i:<6}{r['mode']:<13}{r['rps']:>8}{r['a']:>12} us{r['aj']:>8} us{r['c']:>9} us{r['cj']:>8} us{r['ms']:>9}{r.get('fpr', 0):>12.3f}{r.get('gaps', 0):>10.3f} s{r['load']:>7}")
d = [r for r in rows if r['mode'] == 'durable']; n = [r for r in rows if r['mode'] == 'non-durable']
def rng(xs, k): v = [x[k] for x in xs]; return f"{min(v)}-{max(v)}" if len(v) > 1 else f"{v[0]}"
print(f"durable     runs/s {rng(d, 'rps')}  agent CPU/run {rng(d, 'a')} us (excl. JIT {rng(d, 'aj')})  CP CPU/run {rng(d, 'c')} us (excl. JIT {rng(d, 'cj')})")
print(f"non-durable runs/s {rng(n, 'rps')}  agent CPU/run {rng(n, 'a')} us (excl. JIT {rng(n, 'aj')})  CP CPU/run {rng(n, 'c')} us (excl. JIT {rng(n, 'cj')})")
ratios = [f"{a['rps'] / b['rps']:.2f}" for a, b in zip(d, n)]
print(f"durable/non-durable runs/s ratio per round: {' '.join(ratios)}")
print("(forces/run counts the agent's whole life: register, warm-up, measured batch, drain;")
print(" excl. JIT: minus the C1/C2 compiler and sweeper threads, still compiling in a young JVM;")
print(" gaps>100ms: the measured batch's gaps over 100 ms between agent log lines, summed: waits, not work;")
print(" bench/scripts/log-gaps.py AGENT_LOG shows them, KEEP=1 keeps the logs)")
PY

if [ "$latency" = 1 ]; then
  echo
  echo "offer -> start (bench/scripts/offer-latency.sh --profile node --runs $latency_runs --warmup $latency_warmup)"
  bench/scripts/offer-latency.sh --profile node --runs "$latency_runs" --warmup "$latency_warmup"
fi

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
grep -E '^(Benchmark|RawForce|JournalAppend)' "$work/raw.txt" "$work/append.txt" | sed 's/^[^:]*://'
echo "raw_force_per_s $raw"
echo "journal_append_t16_records_per_s $app (run-cycle limit $(awk -v a="$app" 'BEGIN{printf "%.0f", a/4}') runs/s at 4 records per run)"
