#!/bin/sh
# Every edge figure of issue 15 in one run, each beside the JVM floor with the same flags:
#   the reference control plane on loopback, the agent through the launcher (bin/ql3-worker, so the
#   profile's JVM flags and, when the launcher uses one, its class-data archive), isolation on
#   (execution.isolation = "required": runs as uids of their own from --run-user in their own cgroup; needs root), N
#   `process` runs of /bin/true, an idle window, then SIGTERM (drain -> offline). The agent writes a
#   status file and no metrics file, as the shipped packaging/src/conf/agent.toml configures it.
# Printed: start -> registered (wall ms, load-sensitive; agent CPU ms to get there, not), agent
# CPU per run (utime+stime from /proc/PID/stat), wall for the N runs (load-sensitive), peak RSS
# (VmHWM, the kernel's high-water mark, read until the process exits), RSS after register / after
# the runs / idle, PSS and private dirty (/proc/PID/smaps_rollup) at the same points, idle requests
# per minute, the load average before and after, and the timed start's steps as the agent logged
# them (ms after its first line, agent.start, to the session's ACTIVE). The floor is a hello-world
# JVM with the same flags (the profile's flags + QL3_JAVA_OPTS; the default JDK archive, since an
# application archive only fits the agent's class path).
#
# Usage: bench/scripts/edge-figures.sh [--runs N] [--idle-seconds S] [--heartbeat-ms H]
#          [--profile edge|node] [--isolation required|none] [--run-user UID] [--java-home DIR]
#          [--agent-opts FLAGS] [--first-agent-opts FLAGS] [--cold-server] [--first-start] [--label TEXT]
#          [--runtime DIR]
#   defaults: 1000 runs, 60 s idle window, heartbeat 60 s (the control plane's default), edge,
#   required, run uids from 70000. The launcher's class-data archive is created first if missing (QL3_CDS_DIR,
#   default agent-cli/target/cds), outside the timed start; QL3_CDS=off: none (the flags before
#   it). Extra JVM flags for the agent and the floor: QL3_JAVA_OPTS; for the agent
#   only (e.g. an application class-data archive, which fits its class path only): --agent-opts.
#   Takes ~1.5-2.5 min (plus ~5 s for the untimed first start).
# The timed start is a restart, as on an installed host: an untimed start before it (start,
# registered, SIGTERM) leaves what an agent keeps in its systemd StateDirectory (the credential
# check record; STATE_DIRECTORY points the agent at $work/state) and a journal with one session.
# --first-start times the very first start instead (no record: the credentials' signatures are
# verified). --first-agent-opts: flags for the untimed first start only, after --agent-opts (none
# with --first-start).
# The control plane is a fresh JVM whose own first TLS handshakes are slow (interpreted); before the
# agent starts it is warmed up with 40 mTLS handshakes (Python's ssl, the worker's certificate), so
# start -> registered measures the agent, not a cold server. --cold-server skips that.
# FIGURES_HOOK='sh command' runs after the figures of each point are read, with $1 the point
# (registered, runs-done, idle) and $2 the agent's pid (its output goes before the report), e.g.
# FIGURES_HOOK='cp /proc/$2/smaps /tmp/smaps.$1', or 'jcmd "$2" VM.native_memory summary' with
# --agent-opts -XX:NativeMemoryTracking=summary.
# --runtime DIR: the agent and the floor run on the bundled runtime at DIR (a jlink image, as the
# installed launcher uses from runtime/), made first with scripts/jlink-runtime when DIR does not
# exist (e.g. --runtime agent-cli/target/runtime); the agent through bin/ql3-worker's QL3_RUNTIME.
# KEEP=1 keeps the work directory (logs). Needs a build (mvn -B -q -DskipTests package) and python3.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
runs=1000; idle=60; hb=60000; profile=edge; isolation=required; run_user=70000
java_home=${JAVA_HOME:-}; label=; agent_opts=; first_opts=; warm=40; first_start=0; runtime=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --idle-seconds) idle=$2; shift 2 ;;
    --heartbeat-ms) hb=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --isolation) isolation=$2; shift 2 ;;
    --run-user) run_user=$2; shift 2 ;;
    --java-home) java_home=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --agent-opts) agent_opts=$2; shift 2 ;;
    --first-agent-opts) first_opts=$2; shift 2 ;;
    --cold-server) warm=0; shift ;;
    --first-start) first_start=1; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
[ -n "$java_home" ] && export JAVA_HOME="$java_home"
select_jdk
command -v python3 >/dev/null 2>&1 || die "python3 is needed"
if [ "$isolation" = required ] && [ "$(id -u)" != 0 ]; then
  die "isolation required needs root (or pass --isolation none and say so)"
fi
lease=$((hb * 3)); [ "$lease" -lt 15000 ] && lease=15000
run_java=$JAVA_HOME/bin/java
if [ -n "$runtime" ]; then
  runtime=${runtime%/}
  if [ ! -e "$runtime" ]; then
    jars=$(mktemp -d)
    if ! cp agent-cli/target/lib/*.jar agent-cli/target/agent-cli-*.jar "$jars/" \
       || ! scripts/jlink-runtime "$jars" "$runtime" >&2; then
      rm -rf "$jars"
      die "could not make the runtime $runtime"
    fi
    rm -rf "$jars"
    # Its files as a host reads them after a reboot: written back, then dropped from the page
    # cache, since a file mapped as it was just written can have more of it resident
    # (docs/perf/edge.md, "Seventeenth pass").
    sync
    find "$runtime" -type f -exec dd if={} iflag=nocache count=0 status=none \;
  fi
  [ -x "$runtime/bin/java" ] || die "$runtime is not a runtime (no bin/java): remove it and it is made again"
  runtime=$(cd "$runtime" && pwd -P)
  export QL3_RUNTIME="$runtime"
  run_java=$runtime/bin/java
fi

work=$(mktemp -d)
chmod 0711 "$work"  # the run account must reach its work directory
cp_pid=
cleanup() {
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

bin/ql3-control-plane dev-pki --out "$work/pki" --worker edge-0001 --days 2 >/dev/null
QL3_CP_JAVA_OPTS="-XX:+UseSerialGC -Xmx512m" bin/ql3-control-plane serve --pki "$work/pki" --port 0 --admin-port 0 \
  --heartbeat-interval-ms "$hb" --lease-ttl-ms "$lease" --draining-lease-ttl-ms "$lease" > "$work/cp.log" 2>&1 &
cp_pid=$!
await_control_plane "$cp_pid" "$work/cp.log"
write_agent_config "$work/agent/agent.toml" "$work/pki" edge-0001 "$ingress" <<EOF
[execution]
work-dir = "runs"
max-concurrent-runs = 2
executors = ["process"]
isolation = "$isolation"
run-user = $run_user
[status]
file = "status.json"
EOF
chmod 0711 "$work/agent"

# The agent's class-data archive (the launcher's, scripts/jvm-flags.sh): made ready before anything
# is timed, as on a host where it was created at the first start (QL3_CDS=off: none).
export QL3_CDS_DIR="${QL3_CDS_DIR:-$PWD/agent-cli/target/cds}"
cds_t0=$(date +%s%3N)
bin/ql3-worker run --profile "$profile" --config "$work/none.toml" > "$work/cds.log" 2>&1 || true
cds_note="$(grep -q 'creating the class-data archive' "$work/cds.log" && echo "created now in $(($(date +%s%3N) - cds_t0)) ms" || echo "existing")"
export CDS_NOTE="$cds_note"

# The floor: hello world, same java, same flags.
mkdir -p "$work/hello"
cat > "$work/hello/Hello.java" <<'JAVA'
public class Hello {
  public static void main(String[] a) throws Exception {
    System.out.println("hello");
    System.out.flush();
    Thread.sleep(Long.parseLong(a[0]));
  }
}
JAVA
"$JAVA_HOME/bin/javac" --release 17 -d "$work/hello" "$work/hello/Hello.java"
floor_flags="$(ql3_jvm_flags "$profile") ${QL3_JAVA_OPTS:-}"
ql3_jvm_env "$profile"  # the floor's environment as the launcher gives the agent's (after the control plane started)

mkdir -p -m 0700 "$work/state"
export STATE_DIRECTORY="$work/state"
export FIRST_START="$first_start" FIRST_OPTS="$first_opts"
export FLOOR_JAVA="$run_java" FLOOR_FLAGS="$floor_flags" FLOOR_CP="$work/hello" AGENT_OPTS="$agent_opts"
python3 - "$work" "$admin" "$runs" "$idle" "$profile" "$hb" "$isolation" "$label" "$ingress" "$warm" <<'PY'
import datetime, http.client, json, os, re, signal, socket, ssl, subprocess, sys, time
work, admin, runs, idle, profile, hb, isolation, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), sys.argv[7], sys.argv[8]
ingress, warm = sys.argv[9], int(sys.argv[10])
HZ = os.sysconf("SC_CLK_TCK")

def load(): return open("/proc/loadavg").read().split()[:3]
def status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"): return int(line.split()[1]) / 1024.0
def hook(point, pid):
    # FIGURES_HOOK: a sh command run at "registered", "runs-done" and "idle" with $1 the point and
    # $2 the agent's pid (after that point's figures were read)
    if os.environ.get("FIGURES_HOOK"):
        subprocess.run(["sh", "-c", os.environ["FIGURES_HOOK"], "figures-hook", point, str(pid)], check=False)
def rollup(pid):
    r = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        p = line.split()
        if len(p) >= 3 and p[2] == "kB": r[p[0].rstrip(":")] = int(p[1]) / 1024.0
    return {"rss": r["Rss"], "pss": r["Pss"], "dirty": r["Private_Dirty"]}
def cpu_ms(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / HZ, (int(f[13]) + int(f[14])) * 1000.0 / HZ
def admin_call(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", admin, timeout=30)
    c.request(method, path, json.dumps(body) if body is not None else None, {"content-type": "application/json"})
    d = c.getresponse().read(); c.close(); return d
def requests():
    d = json.loads(admin_call("GET", "/connections"))
    tot = 0
    def walk(x):
        nonlocal tot
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "requests" and isinstance(v, int): tot += v
                else: walk(v)
        elif isinstance(x, list):
            for v in x: walk(v)
    walk(d); return tot

out = {}
# --- warm the control plane's TLS stack (its first handshakes are interpreted) ---
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.load_verify_locations(f"{work}/pki/ca.crt")
ctx.load_cert_chain(f"{work}/pki/workers/edge-0001/client.crt", f"{work}/pki/workers/edge-0001/client.key")
ctx.check_hostname = False
ctx.set_alpn_protocols(["h2"])
host, port = ingress.rsplit(":", 1)
warm_ms = []
for i in range(warm):
    t = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=30) as raw:
        with ctx.wrap_socket(raw) as tls:
            tls.do_handshake()
    warm_ms.append((time.monotonic() - t) * 1000)
load_start = load()

# --- floor: hello world with the same flags (3 runs, the last reported; all printed raw) ---
floor = []
for i in range(3):
    t0 = time.monotonic()
    p = subprocess.Popen([os.environ["FLOOR_JAVA"]] + os.environ["FLOOR_FLAGS"].split() + ["-cp", os.environ["FLOOR_CP"], "Hello", "1500"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.readline(); t_hello = (time.monotonic() - t0) * 1000
    c_hello = cpu_ms(p.pid)[0]
    time.sleep(1.0)
    m = rollup(p.pid); hwm = status(p.pid, "VmHWM")
    p.wait()
    floor.append({"start": t_hello, "cpu": c_hello, "hwm": hwm, **m})

# --- the agent ---
env = dict(os.environ)
if os.environ["AGENT_OPTS"]:
    env["QL3_JAVA_OPTS"] = (env.get("QL3_JAVA_OPTS", "") + " " + os.environ["AGENT_OPTS"]).strip()
agent_cmd = ["bin/ql3-worker", "run", "--profile", profile, "--config", f"{work}/agent/agent.toml"]
if os.environ["FIRST_START"] != "1":
    # Untimed first start: registered, then SIGTERM (drain -> offline); the timed start is a restart.
    first_env = dict(env)
    if os.environ["FIRST_OPTS"]:
        first_env["QL3_JAVA_OPTS"] = (env.get("QL3_JAVA_OPTS", "") + " " + os.environ["FIRST_OPTS"]).strip()
    with open(f"{work}/agent-first.log", "w") as flog:
        first = subprocess.Popen(agent_cmd, stdout=flog, stderr=subprocess.STDOUT, env=first_env)
        deadline = time.monotonic() + 120; registered = False
        while time.monotonic() < deadline and first.poll() is None and not registered:
            registered = any("to=ACTIVE" in l for l in open(f"{work}/agent-first.log"))
            time.sleep(0.05)
        first.send_signal(signal.SIGTERM)
        try:
            rc = first.wait(60)
        except subprocess.TimeoutExpired:
            first.kill(); first.wait(); rc = None
        if not registered or rc != 0:
            sys.exit(f"the untimed first start failed (registered: {registered}, exit: {rc}; see agent-first.log; KEEP=1)")
alog = open(f"{work}/agent.log", "w")
t0 = time.monotonic()
agent = subprocess.Popen(agent_cmd, stdout=alog, stderr=subprocess.STDOUT, env=env)
pid = agent.pid
f = open(f"{work}/agent.log")
hwm = [0.0]; rss_max = [0.0]
def sample():
    try:
        hwm[0] = max(hwm[0], status(pid, "VmHWM")); rss_max[0] = max(rss_max[0], status(pid, "VmRSS"))
    except Exception: pass
def wait_for(pred, timeout, tick=0.005, every=None):
    deadline = time.monotonic() + timeout; buf = ""; last = time.monotonic()
    while time.monotonic() < deadline:
        line = f.readline()
        if line:
            buf += line
            if buf.endswith("\n"):
                if pred(buf): return True
                buf = ""
            continue
        if agent.poll() is not None: return False
        if time.monotonic() - last > 0.1: sample(); last = time.monotonic()
        time.sleep(tick)
    return False
if not wait_for(lambda l: "to=ACTIVE" in l, 120):
    sys.exit("the agent did not register (see agent.log; KEEP=1)")
out["start"] = (time.monotonic() - t0) * 1000
out["start_cpu"] = cpu_ms(pid)[0]
argv = open(f"/proc/{pid}/cmdline").read().split("\0")
jvm_flags = " ".join(argv[1:argv.index("-cp")] if "-cp" in argv else argv[1:])
time.sleep(2); sample()
out["reg"] = rollup(pid)
hook("registered", pid)
iso = [l.strip() for l in open(f"{work}/agent.log") if "isolation" in l][:1]
# The timed start's steps from the agent's own log, in ms after its first line (agent.start).
def start_timeline():
    marks = []; t_start = None
    for l in open(f"{work}/agent.log"):
        m = re.match(r"ts=(\S+?)Z? level=\S+ event=(\S+)(?:.* to=(\S+))?", l)
        if not m or m.group(2) == "log": continue
        t = datetime.datetime.fromisoformat(m.group(1)[:26])
        if t_start is None: t_start = t
        name = m.group(2) + ("->" + m.group(3) if m.group(2) == "session.state" and m.group(3) else "")
        marks.append(f"{name} {(t - t_start).total_seconds() * 1000:.0f}")
        if name.endswith("->ACTIVE"): break
    return ", ".join(marks)
timeline = start_timeline()

# --- N process runs (/bin/true), one submit ---
spec = {"argv": ["/bin/true"], "cwd": None, "env": {}}
c1, ch1 = cpu_ms(pid); t1 = time.monotonic()
admin_call("POST", "/runs", {"count": runs, "executor": "process", "spec": spec, "timeoutMs": 600000, "workerId": "edge-0001"})
done = [0]
def delivered(l):
    if "event=completion.delivered" in l:
        done[0] += 1
    return done[0] >= runs
ok = wait_for(delivered, 600, tick=0.02)
t2 = time.monotonic(); c2, ch2 = cpu_ms(pid)
sample()
out["busy"] = rollup(pid); out["hwm_runs"] = status(pid, "VmHWM")
hook("runs-done", pid)
out["runs_ok"] = done[0]; out["wall"] = (t2 - t1); out["cpu_run"] = (c2 - c1) / runs; out["child_run"] = (ch2 - ch1) / runs
load_runs = load()

# --- idle window ---
r0 = requests(); ti = time.monotonic()
while time.monotonic() - ti < idle:
    time.sleep(0.5); sample()
r1 = requests()
out["idle"] = rollup(pid)
hook("idle", pid)
out["req_min"] = (r1 - r0) * 60.0 / idle if idle > 0 else None
c3, _ = cpu_ms(pid)
out["idle_cpu_s"] = (c3 - c2) / 1000.0

# --- SIGTERM: drain -> offline; VmHWM sampled until the process is gone ---
t3 = time.monotonic(); agent.send_signal(signal.SIGTERM)
while agent.poll() is None:
    sample(); time.sleep(0.02)
out["stop"] = (time.monotonic() - t3) * 1000
offline = any("to=OFFLINE" in l for l in open(f"{work}/agent.log"))
violations = json.loads(admin_call("GET", "/violations")).get("total")
load_end = load()

def mib(x): return "" if x is None else f"{x:.1f}"
fl = floor[-1]
java = subprocess.run([os.environ["FLOOR_JAVA"], "-version"], capture_output=True, text=True).stderr.splitlines()[0]
print(f"# edge-figures {label}".rstrip())
print(f"java: {java}   profile: {profile}   isolation: {isolation}   runs: {runs} x /bin/true   heartbeat: {hb} ms   idle window: {idle} s")
print(f"agent JVM flags (/proc/PID/cmdline): {jvm_flags}")
print("runtime: " + (f"bundled, {os.environ['QL3_RUNTIME']} (scripts/jlink-runtime)" if os.environ.get("QL3_RUNTIME") else os.environ["FLOOR_JAVA"]))
print("timed start: " + ("the first (--first-start: no credential check record)" if os.environ["FIRST_START"] == "1"
      else "a restart (after an untimed first start: the credential check record and a journal exist)"))
if "SharedArchiveFile" in jvm_flags: print(f"class-data archive: {os.environ['CDS_NOTE']} (before the timed start)")
print(f"floor JVM flags: {os.environ['FLOOR_FLAGS'].strip()}")
if iso: print(f"agent: {iso[0][:160]}")
print(f"start timeline (the agent's log, ms after agent.start): {timeline}")
if warm_ms: print(f"control plane warmed up: {warm} mTLS handshakes, first {warm_ms[0]:.0f} ms, last {warm_ms[-1]:.0f} ms")
else: print("control plane NOT warmed up (--cold-server)")
print(f"load average: start {' '.join(load_start)} | after runs {' '.join(load_runs)} | end {' '.join(load_end)}")
print(f"{'figure':44} {'agent':>10} {'JVM floor':>10}  target")
rows = [
  ("start -> registered, wall ms (load-sensitive)", f"{out['start']:.0f}", f"{fl['start']:.0f}", "<= 500", "floor: start -> hello"),
  ("  CPU ms to registered (utime+stime)", f"{out['start_cpu']:.0f}", f"{fl['cpu']:.0f}", "", "floor: to hello"),
  (f"agent CPU ms per process run ({runs})", f"{out['cpu_run']:.2f}", "", "<= 10", f"children (run chain) {out['child_run']:.2f} ms/run"),
  (f"{runs} runs, wall s (load-sensitive)", f"{out['wall']:.1f}", "", "", f"{runs / out['wall']:.0f} runs/s, {out['runs_ok']} delivered"),
  ("peak RSS (VmHWM) MiB, register->offline", mib(hwm[0]), mib(fl['hwm']), "<= 56", f"max sampled VmRSS {rss_max[0]:.1f}"),
  ("RSS after register MiB", mib(out['reg']['rss']), mib(fl['rss']), "", ""),
  ("  PSS / private dirty", f"{out['reg']['pss']:.1f}/{out['reg']['dirty']:.1f}", f"{fl['pss']:.1f}/{fl['dirty']:.1f}", "", ""),
  (f"RSS right after the runs MiB (peak-ish)", mib(out['busy']['rss']), "", "", f"VmHWM then {out['hwm_runs']:.1f}"),
  ("  PSS / private dirty", f"{out['busy']['pss']:.1f}/{out['busy']['dirty']:.1f}", "", "", ""),
  (f"RSS idle ({idle} s after the runs) MiB", mib(out['idle']['rss']), mib(fl['rss']), "<= 52", ""),
  ("  PSS / private dirty", f"{out['idle']['pss']:.1f}/{out['idle']['dirty']:.1f}", f"{fl['pss']:.1f}/{fl['dirty']:.1f}", "", ""),
  ("idle requests/min", "" if out['req_min'] is None else f"{out['req_min']:.1f}", "", "<= 2", f"idle CPU {out['idle_cpu_s']:.2f} s over {idle} s"),
  ("SIGTERM -> exit ms (drain -> offline)", f"{out['stop']:.0f}", "", "", f"offline {'yes' if offline else 'NO'}, violations {violations}"),
]
for name, a, b, t, note in rows:
    print(f"{name:44} {a:>10} {b:>10}  {t:6} {note}")
print("floor runs (start ms / cpu ms / VmHWM / RSS / PSS / private dirty): " +
      "; ".join(f"{x['start']:.0f}/{x['cpu']:.0f}/{x['hwm']:.1f}/{x['rss']:.1f}/{x['pss']:.1f}/{x['dirty']:.1f}" for x in floor))
if out["runs_ok"] < runs or not offline: sys.exit(1)
PY
