#!/usr/bin/env python3
"""Field-fault soak: one ql3-worker agent in its own network namespace against the reference
control plane, real `process` runs flowing, faults injected on a seeded schedule. Started by
bench/scripts/soak.sh (root: namespaces, veth, tmpfs, tc, nftables). docs/reliability.md says what
each fault is and what the agent must do.

Topology: the control plane listens on 169.254.213.1 (host side of a veth pair, link-local); the
agent runs in namespace q3s-N and reaches it over the veth (169.254.213.2). Traffic never leaves
this machine's own namespaces. The journal is on a size-limited tmpfs.

Invariants, checked at the end (exit 1 when one is broken):
  lost        every run the current control plane incarnation knows reached a terminal state
  twice       no (run, attempt) started twice (each run writes a start marker with O_EXCL)
  succeeded   every `succeeded` completion has the end marker of that attempt
  violations  the control plane's auditor recorded nothing (per incarnation, by kind)
  exit        the agent drains and exits 0 at the end
  slopes      RSS, threads and descriptors of the longest agent life: reported per minute
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CP_IP, AG_IP = "169.254.213.1", "169.254.213.2"
H_MS, L_MS = 5_000, 15_000  # the control plane's heartbeat interval and lease: faults are sized on them
# Closed-loop load: a run is submitted only while fewer than this many are open (not terminal) at the
# control plane. An open-loop rate above what 2 slots finish grows a queue without bound, and the end's
# "nothing lost" would then measure the backlog, not the agent.
MAX_OPEN = 6


def log(msg):
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


def run(*args, check=True):
    return subprocess.run(args, check=check, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class Net:
    """The veth pair and the agent's namespace; each fault is a reversible change of it."""

    def __init__(self, tag):
        self.ns, self.host_if, self.ag_if = f"q3s-{tag}", f"q3h{tag}", f"q3a{tag}"
        self.nft = shutil.which("nft") is not None

    def up(self):
        run("ip", "netns", "add", self.ns)
        run("ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.ag_if)
        run("ip", "link", "set", self.ag_if, "netns", self.ns)
        run("ip", "addr", "add", CP_IP + "/30", "dev", self.host_if)
        run("ip", "link", "set", self.host_if, "up")
        run("ip", "-n", self.ns, "addr", "add", AG_IP + "/30", "dev", self.ag_if)
        run("ip", "-n", self.ns, "link", "set", self.ag_if, "up")
        run("ip", "-n", self.ns, "link", "set", "lo", "up")

    def down(self):
        run("ip", "link", "del", self.host_if, check=False)
        run("ip", "netns", "del", self.ns, check=False)

    def link(self, up):
        run("ip", "-n", self.ns, "link", "set", self.ag_if, "up" if up else "down")

    def blackhole(self, on):
        """Packets to and from the control plane silently dropped: only timeouts notice."""
        if self.nft:
            if on:
                run("ip", "netns", "exec", self.ns, "nft", "add table inet q3s; "
                    "add chain inet q3s out { type filter hook output priority 0; }; "
                    "add chain inet q3s in { type filter hook input priority 0; }; "
                    f"add rule inet q3s out ip daddr {CP_IP} drop; add rule inet q3s in ip saddr {CP_IP} drop")
            else:
                run("ip", "netns", "exec", self.ns, "nft", "delete", "table", "inet", "q3s")
        elif on:
            # Without nftables: a blackhole route drops what the agent sends, silently.
            run("ip", "-n", self.ns, "route", "add", "blackhole", CP_IP + "/32")
        else:
            run("ip", "-n", self.ns, "route", "del", "blackhole", CP_IP + "/32")

    def slow(self, on):
        """A 128 kbit/s link with a 400 ms queue (tbf: this kernel has no netem)."""
        if on:
            run("tc", "-n", self.ns, "qdisc", "add", "dev", self.ag_if, "root", "tbf",
                "rate", "128kbit", "burst", "4kb", "latency", "400ms")
        else:
            run("tc", "-n", self.ns, "qdisc", "del", "dev", self.ag_if, "root")


class ControlPlane:
    def __init__(self, work, port, admin):
        self.work, self.port, self.admin, self.proc, self.incarnation = work, port, admin, None, 0
        self.violations = {}  # incarnation -> [violation]
        self.sessions = {}  # incarnation -> session ids it issued
        self.runs = {}  # incarnation -> {runId: state} when it was stopped

    def start(self):
        self.incarnation += 1
        out = open(os.path.join(self.work, f"cp-{self.incarnation}.log"), "w")
        self.proc = subprocess.Popen(
            [os.path.join(ROOT, "bin/ql3-control-plane"), "serve", "--pki", os.path.join(self.work, "pki"),
             "--host", CP_IP, "--port", str(self.port), "--admin-port", str(self.admin),
             "--heartbeat-interval-ms", str(H_MS), "--lease-ttl-ms", str(L_MS),
             "--draining-lease-ttl-ms", str(L_MS),
             # A real control plane keeps its generations across a restart (contract section 5: a register
             # answer is above any generation the worker held). Sessions and runs are still forgotten.
             "--generations-file", os.path.join(self.work, "cp-generations")], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.get("/health")
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the control plane did not start; see " + out.name)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.violations[self.incarnation] = self.get("/violations")["violations"]
                self.sessions[self.incarnation] = {s["sessionId"] for w in self.get("/sessions")["workers"]
                                                   for s in w["sessions"]}
                self.runs[self.incarnation] = {r["runId"]: r["state"] for r in self.get("/runs")["runs"]}
            except OSError:
                pass
            self.proc.kill()
            self.proc.wait()

    def call(self, method, path, body=None):
        c = http.client.HTTPConnection("127.0.0.1", self.admin, timeout=10)
        try:
            c.request(method, path, None if body is None else json.dumps(body), {"content-type": "application/json"})
            r = c.getresponse()
            data = r.read()
            return json.loads(data) if data else {}
        finally:
            c.close()

    def get(self, path):
        return self.call("GET", path)


class Agent:
    def __init__(self, work, net):
        self.work, self.net, self.proc, self.lives = work, net, None, []
        self.out = open(os.path.join(work, "agent.log"), "a")

    def start(self):
        self.proc = subprocess.Popen(
            # nsenter, not `ip netns exec`: that also remounts /sys and would hide the cgroup mounts.
            ["nsenter", f"--net=/run/netns/{self.net.ns}", "--", os.path.join(ROOT, "bin/ql3-worker"), "run",
             "--profile", "edge",
             "--config", os.path.join(self.work, "agent", "agent.toml")], stdout=self.out, stderr=subprocess.STDOUT)
        self.lives.append({"pid": self.proc.pid, "samples": []})

    def jvm_pid(self):
        # nsenter execs the launcher, which execs java: the pid stays the same.
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.proc.pid, sig)

    def stop(self, timeout=90):
        """SIGTERM (drain, offline), then the exit code; SIGKILL if it does not stop in time."""
        if not self.alive():
            return self.proc.returncode if self.proc else None
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "killed after %d s" % timeout

    def sample(self):
        if not self.alive():
            return
        pid = self.proc.pid
        try:
            status = open(f"/proc/{pid}/status").read()
            rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
            threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
            fds = len(os.listdir(f"/proc/{pid}/fd"))
        except (OSError, AttributeError):
            return
        self.lives[-1]["samples"].append((time.monotonic(), rss, threads, fds))


def slope_per_minute(points):
    n = len(points)
    if n < 3:
        return None
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    den = sum((t - mx) ** 2 for t, _ in points)
    return None if den == 0 else 60 * sum((t - mx) * (v - my) for t, v in points) / den


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_size
            except OSError:
                pass
    return total


def log_counts(work):
    """From the kept logs: completions accepted by every incarnation, by outcome; what the agent settled
    superseded (a completion the control plane no longer knew); runs declared uncertain at a restart."""
    outcomes, superseded, uncertain = {}, 0, 0
    for name in sorted(os.listdir(work)):
        if re.fullmatch(r"cp-\d+\.log", name):
            for line in open(os.path.join(work, name), errors="replace"):
                m = re.search(r" complete .* outcome=(\w+)", line)
                if m:
                    outcomes[m.group(1)] = outcomes.get(m.group(1), 0) + 1
    for line in open(os.path.join(work, "agent.log"), errors="replace"):
        if "event=completion.superseded" in line:
            superseded += 1
        m = re.search(r"event=journal\.reconciled uncertain=(\d+)", line)
        if m:
            uncertain += int(m.group(1))
    return outcomes, superseded, uncertain


TERMINAL = ("completed", "cancelled", "quarantined")  # the control plane's terminal run states
FAULTS = ["link_down_short", "link_down_long", "blackhole_short", "blackhole_long", "slow_link",
          "freeze_short", "freeze_long", "disk_full", "cp_restart", "cp_faults", "agent_kill9", "agent_restart"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=180, help="how long faults are injected")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    rnd = random.Random(seed)
    log(f"soak: seed {seed}, {a.seconds} s of faults (rerun: --seed {seed})")

    tag = str(os.getpid() % 100000)
    work = tempfile.mkdtemp(prefix="ql3-soak.")
    os.chmod(work, 0o711)
    net = Net(tag)
    journal = os.path.join(work, "agent", "journal")
    marks = os.path.join(work, "marks")
    os.makedirs(journal)
    os.makedirs(marks)
    os.chmod(marks, 0o777)
    cp = agent = None
    mounted = False
    broken = []
    try:
        net.up()
        run("mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", journal)
        mounted = True
        run(os.path.join(ROOT, "bin/ql3-control-plane"), "dev-pki", "--out", os.path.join(work, "pki"),
            "--worker", "soak-0001", "--days", "2", "--server-ip", CP_IP)
        # Both ports below the kernel's ephemeral range (32768-60999 by default): a port in it can be
        # taken as the local port of any outgoing connection on this machine while the control plane
        # is down for a restart (seen: the admin port, EADDRINUSE at the 5th start).
        low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
        top = min(low, 32768)
        port, admin = 10000 + rnd.randrange((top - 10000) // 2), 10000 + (top - 10000) // 2 + rnd.randrange((top - 10000) // 2)
        cp = ControlPlane(work, port, admin)
        cp.start()
        w = os.path.join(work, "pki", "workers", "soak-0001")
        with open(os.path.join(work, "agent", "agent.toml"), "w") as f:
            f.write(f"""enabled = true
[worker]
id = "soak-0001"
[ingress]
url = "https://{CP_IP}:{port}"
connect-timeout-ms = 3000
[credentials]
certificate = "{w}/client.crt"
private-key = "{w}/client.key"
trust = "{work}/pki/ca.crt"
token = "{w}/token"
[journal]
dir = "journal"
free-space-floor-mib = 8
[execution]
work-dir = "runs"
max-concurrent-runs = 2
executors = ["process"]
drain-timeout-ms = 20000
[status]
file = "status.json"
""")
        agent = Agent(work, net)
        agent.start()

        submitted = {}  # runId -> (incarnation, kind)
        scripts = {}  # runId -> (kind, script): what a restart resubmits
        cancel_at = {}
        carry = []  # (runId of an earlier incarnation, kind, script) queued at its restart, still to resubmit
        carried = {}  # runId of an earlier incarnation -> the runId it was resubmitted as
        leased_at_restart = 0
        open_runs = set()  # runIds at the current incarnation not seen terminal yet
        next_poll = 0
        schedule = FAULTS[:]
        rnd.shuffle(schedule)
        start = time.monotonic()
        next_submit = next_fault = start + 5
        next_sample = start
        injected = {}
        windows = []  # (kind, start_ms, end_ms) of faults that hold packets back, wall clock
        active = None  # (kind, undo, until, start_ms)
        journal_max = 0

        def submit():
            kind = rnd.choices(["ok", "fail", "long", "cancel"], [6, 2, 1, 1])[0]
            sleep = {"ok": rnd.uniform(0.05, 2), "fail": rnd.uniform(0.05, 1), "long": rnd.uniform(5, 15),
                     "cancel": 30}[kind]
            code = 3 if kind == "fail" else 0
            script = (f'set -C; m={marks}/$QL3_RUN_ID.$QL3_ATTEMPT; echo start > "$m.start" || echo "$m" >> {marks}/twice;'
                      f' sleep {sleep:.2f}; echo end > "$m.end"; exit {code}')
            post(kind, script)

        def post(kind, script):
            """Queues one run at the current incarnation; its runId, or None when the call failed."""
            try:
                r = cp.call("POST", "/runs", {"count": 1, "executor": "process", "timeoutMs": 120000,
                                              "spec": {"argv": ["/bin/sh", "-c", script], "cwd": None, "env": {}}})
            except OSError:
                return None
            for rid in r.get("runIds", []):
                submitted[rid] = (cp.incarnation, kind)
                scripts[rid] = (kind, script)
                open_runs.add(rid)
                if kind == "cancel":
                    cancel_at[rid] = time.monotonic() + rnd.uniform(1, 8)
                return rid
            return None

        def begin(kind):
            """Starts a fault; returns (undo, seconds) or None for an instant one."""
            short, long_ = rnd.uniform(2, H_MS / 1000), rnd.uniform(L_MS / 1000 + 3, L_MS / 1000 + 10)
            if kind.startswith("link_down"):
                net.link(False)
                return (lambda: net.link(True)), (short if kind.endswith("short") else long_)
            if kind.startswith("blackhole"):
                net.blackhole(True)
                return (lambda: net.blackhole(False)), (short if kind.endswith("short") else long_)
            if kind == "slow_link":
                net.slow(True)
                return (lambda: net.slow(False)), rnd.uniform(10, 20)
            if kind.startswith("freeze"):
                agent.signal(signal.SIGSTOP)
                return (lambda: agent.signal(signal.SIGCONT)), (short if kind.endswith("short") else long_)
            if kind == "disk_full":
                filler = os.path.join(journal, "filler")
                st = os.statvfs(journal)
                with open(filler, "wb") as f:
                    left = st.f_bavail * st.f_frsize - 4 * 1024 * 1024
                    while left > 0:
                        f.write(b"\0" * min(1 << 20, left))
                        left -= 1 << 20
                return (lambda: os.remove(filler)), rnd.uniform(8, 15)
            if kind == "cp_restart":
                nonlocal leased_at_restart
                cp.stop()
                before = cp.runs.get(cp.incarnation, {})
                open_runs.clear()
                cp.start()
                # The reference control plane forgets its queue; a real one keeps it. Runs still queued at
                # the restart are resubmitted (new runIds) so that "nothing lost" covers every run until
                # the end, not only the last incarnation's. Runs leased at the restart belong to the
                # agent's journal: it runs them once and their completions are answered as gone.
                for rid, state in before.items():
                    if state == "queued" and rid in scripts:
                        carry.append((rid,) + scripts[rid])
                    elif state == "leased":
                        leased_at_restart += 1
                return None
            if kind == "cp_faults":
                for fault in ({"operation": "heartbeat", "action": "delay", "delayMs": 3000},
                              {"operation": "complete", "action": "error", "status": 503, "retryAfter": 2},
                              {"operation": "pull", "action": "drop-after-apply"},
                              {"operation": "heartbeat", "action": "drop-after-apply"},
                              {"action": "close-connections"}):
                    try:
                        cp.call("POST", "/faults", fault)
                    except OSError:
                        pass
                return None
            if kind == "agent_kill9":
                agent.signal(signal.SIGCONT)
                agent.signal(signal.SIGKILL)
                agent.proc.wait()
                agent.start()
                return None
            if kind == "agent_restart":
                code = agent.stop()
                if code != 0:
                    broken.append(f"exit: the agent's SIGTERM restart ended with {code}")
                agent.start()
                return None
            raise ValueError(kind)

        # Faults go on past --seconds until every kind has been injected once.
        while time.monotonic() - start < a.seconds or active is not None or schedule:
            now = time.monotonic()
            if now >= next_poll:
                for rid in list(open_runs):
                    try:
                        if cp.get(f"/runs/{rid}").get("state") in TERMINAL:
                            open_runs.discard(rid)
                    except OSError:
                        break
                next_poll = now + 1
            if now >= next_submit and (now - start < a.seconds or schedule) and len(open_runs) < MAX_OPEN:
                submit()
                next_submit = now + rnd.uniform(0.3, 1.0)
            while carry:
                new = post(carry[0][1], carry[0][2])
                if new is None:
                    break  # the admin API did not answer: next loop
                carried[carry.pop(0)[0]] = new
            for rid, at in list(cancel_at.items()):
                if now >= at:
                    try:
                        cp.call("POST", f"/runs/{rid}/cancel")
                    except OSError:
                        pass
                    del cancel_at[rid]
            if active and now >= active[2]:
                active[1]()
                windows.append((active[0], active[3], time.time() * 1000))
                log(f"fault {active[0]} ended")
                active = None
                next_fault = now + rnd.uniform(3, 6)
            if active is None and now >= next_fault and (now - start < a.seconds or schedule):
                kind = schedule.pop(0) if schedule else rnd.choice(FAULTS)
                injected[kind] = injected.get(kind, 0) + 1
                res = begin(kind)
                if res is None:
                    log(f"fault {kind}")
                    next_fault = now + rnd.uniform(3, 6)
                else:
                    active = (kind, res[0], now + res[1], time.time() * 1000)
                    log(f"fault {kind} for {res[1]:.1f} s")
            if not agent.alive():
                broken.append(f"exit: the agent exited by itself with {agent.proc.returncode}")
                agent.start()
            if now >= next_sample:
                agent.sample()
                journal_max = max(journal_max, du(journal) - (os.path.getsize(os.path.join(journal, "filler"))
                                                              if os.path.exists(os.path.join(journal, "filler")) else 0))
                next_sample = now + 2
            time.sleep(0.05)

        while carry:
            new = post(carry[0][1], carry[0][2])
            if new is None:
                time.sleep(0.5)
                continue
            carried[carry.pop(0)[0]] = new
        missing = [k for k in FAULTS if k not in injected]
        log(f"faults done ({sum(injected.values())}); settling")
        current = [rid for rid, (inc, _) in submitted.items() if inc == cp.incarnation]
        deadline = time.monotonic() + 120
        views = {}
        while time.monotonic() < deadline:
            views = {}
            for rid in current:
                try:
                    views[rid] = cp.get(f"/runs/{rid}")
                except OSError:
                    pass
            if all(v.get("state") in TERMINAL for v in views.values()) and len(views) == len(current):
                break
            agent.sample()
            time.sleep(1)
        lost = [rid for rid in current if views.get(rid, {}).get("state") not in TERMINAL]
        code = agent.stop()
        cp.stop()

        twice = open(os.path.join(marks, "twice")).read().split() if os.path.exists(os.path.join(marks, "twice")) else []
        bad_success = []
        outcomes = {}
        for rid, v in views.items():
            o = str(v.get("outcome") or v.get("state"))
            outcomes[o] = outcomes.get(o, 0) + 1
            if v.get("outcome") == "succeeded":
                attempt = json.loads(v["completion"])["attempt"]
                if not os.path.exists(os.path.join(marks, f"{rid}.{attempt}.end")):
                    bad_success.append(rid)
        # After a restart the first requests of the agent name the session the old incarnation
        # issued: the new one cannot know it. That is the restart, not the client.
        # A pull written while the session was live but held back by a partition (TCP retransmits it
        # when the link returns) reaches the server after the lease: the server refuses it, nothing
        # runs. Counted apart when it arrives within 30 s of the end of such a fault.
        def held_back(v):
            return (v["kind"] == "pull_not_active" and "after the lease expired" in v["detail"]
                    and any(k.split("_")[0] in ("blackhole", "link", "slow", "freeze") and a <= v["atMs"] <= b + 30_000
                            for k, a, b in windows))
        viol, after_restart, late = {}, 0, 0
        for inc, found in cp.violations.items():
            earlier = set().union(*(ids for i, ids in cp.sessions.items() if i < inc))
            for v in found:
                if v["kind"] == "pull_not_active" and "unknown session" in v["detail"] and v["sessionId"] in earlier:
                    after_restart += 1
                elif held_back(v):
                    late += 1
                else:
                    viol[v["kind"]] = viol.get(v["kind"], 0) + 1
        if lost:
            broken.append(f"lost: {len(lost)} runs not completed: {lost[:5]}")
        if twice:
            broken.append(f"twice: {len(twice)} attempts started twice: {twice[:5]}")
        if bad_success:
            broken.append(f"succeeded: {len(bad_success)} without an end marker: {bad_success[:5]}")
        if viol:
            broken.append(f"violations: {viol}")
        if code != 0:
            broken.append(f"exit: the final SIGTERM ended with {code}")
        if missing:
            broken.append(f"schedule: faults never injected (soak too short): {missing}")
        longest = max(agent.lives, key=lambda l: len(l["samples"]))
        # The slope over the second half of the longest life: the first half holds the JVM's own
        # warm-up (heap growing to its bound, classes loading), not a leak.
        s = longest["samples"][len(longest["samples"]) // 2:]
        slopes = {name: slope_per_minute([(x[0], x[i]) for x in s]) for i, name in ((1, "rss_kib"), (2, "threads"), (3, "fds"))}

        print()
        print(f"| soak | seed {seed} | {a.seconds} s of faults |")
        print("|---|---|")
        print(f"| runs submitted | {len(submitted) - len(carried)} ({len(current)} at the last control plane incarnation of {cp.incarnation},"
              f" of them {sum(1 for r in current if r in carried.values())} resubmitted) |")
        print(f"| control plane restarts | {cp.incarnation - 1}: {len(carried)} runs queued at a restart resubmitted to the next"
              f" incarnation, {leased_at_restart} leased at a restart (settled from the agent's journal) |")
        print(f"| outcomes (last incarnation) | {json.dumps(outcomes, sort_keys=True)} |")
        all_outcomes, superseded, uncertain = log_counts(work)
        print(f"| completions accepted, all incarnations (control plane logs) | {json.dumps(all_outcomes, sort_keys=True)} |")
        print(f"| agent: completions settled superseded / runs declared uncertain at a restart | {superseded} / {uncertain} |")
        print(f"| faults injected | {json.dumps(dict(sorted(injected.items())))} |")
        print(f"| agent lives | {len(agent.lives)} |")
        print(f"| lost / started twice / succeeded without end | {len(lost)} / {len(twice)} / {len(bad_success)} |")
        print(f"| auditor violations | {json.dumps(viol, sort_keys=True) if viol else 0}"
              f" (apart: {after_restart} pulls naming a session of an earlier incarnation right after its restart,"
              f" {late} pulls sent while live and delivered late by a partition) |")
        print(f"| final drain exit | {code} |")
        if s:
            print(f"| longest life, second half: {len(s)} samples over {s[-1][0] - s[0][0]:.0f} s | RSS {s[0][1] / 1024:.1f} -> {s[-1][1] / 1024:.1f} MiB,"
                  f" threads {s[0][2]} -> {s[-1][2]}, fds {s[0][3]} -> {s[-1][3]} |")
            print("| slope per minute, second half of that life | " + ", ".join(f"{k} {v:+.2f}" if v is not None else f"{k} n/a" for k, v in slopes.items()) + " |")
        print(f"| journal size, max | {journal_max / 1024:.0f} KiB |")
        print()
        for b in broken:
            print("BROKEN " + b)
        print("soak: " + ("FAILED" if broken else "OK") + f" (seed {seed})")
        return 1 if broken else 0
    finally:
        if agent and agent.alive():
            agent.signal(signal.SIGCONT)
            agent.proc.kill()
        if cp:
            cp.stop()
        if mounted:
            run("umount", "-l", journal, check=False)
        net.down()
        if a.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
