package io.ql3.worker.bench.controlplane;

import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.SessionStatus;
import io.ql3.worker.contract.Uuid7Generator;
import io.ql3.worker.controlplane.ingress.ContractWire;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.Commands;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.Reply;
import io.ql3.worker.controlplane.state.Settings;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Random;

/**
 * CPU cost of the server's heartbeat logic without network or TLS: strict parse (contract module,
 * canonical check included) + {@link ControlPlane#heartbeat} + canonical response, for W sessions
 * in turn. Measured as this thread's CPU time (ThreadMXBean), so other processes on the machine
 * inflate it less than wall time. A plain main with warm-up rounds, not JMH. Usage: {@code
 * StateMachineCost [WORKERS] [ROUNDS]}.
 */
public final class StateMachineCost {
  private StateMachineCost() {}

  private static final class ManualClock extends Clock {
    long now = 1_800_000_000_000L;

    @Override
    public long millis() {
      return now;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(now);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  public static void main(String[] args) throws Exception {
    int workers = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    ManualClock clock = new ManualClock();
    ContractWire wire = new ContractWire();
    ControlPlane cp =
        new ControlPlane(
            clock,
            new Settings(10_000, 30_000, 30_000, 500, 64),
            wire,
            new Auditor(clock, EventLog.quiet()),
            EventLog.quiet());
    Uuid7Generator ids = new Uuid7Generator(System::currentTimeMillis, new Random(1));
    byte[] reg = BenchRegistration.body();
    String[] sessions = new String[workers];
    for (int w = 0; w < workers; w++) {
      sessions[w] = ids.next();
      Reply r = cp.register("w" + w, sessions[w], reg, wire.parseRegister(reg));
      if (r.status() != 200) {
        throw new IllegalStateException("register " + r.status());
      }
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long version = 1;
    int warmup = rounds / 5;
    long cpu0 = 0;
    long wall0 = 0;
    for (int round = 0; round < rounds; round++) {
      if (round == warmup) {
        cpu0 = mx.getCurrentThreadCpuTime();
        wall0 = System.nanoTime();
      }
      clock.now += 10_000;
      byte[] body =
          new HeartbeatRequest(
                  new Capacity(4, 4), 1, new RunCounts(0, 0), SessionStatus.ACTIVE, version)
              .toCanonicalBytes();
      for (int w = 0; w < workers; w++) {
        Commands.Heartbeat cmd = wire.parseHeartbeat(body);
        Reply r = cp.heartbeat("w" + w, sessions[w], body, cmd);
        if (r.status() != 200) {
          throw new IllegalStateException("heartbeat " + r.status() + " " + new String(r.body()));
        }
      }
      version++;
    }
    long ops = (long) (rounds - warmup) * workers;
    double cpuNs = (mx.getCurrentThreadCpuTime() - cpu0) / (double) ops;
    double wallNs = (System.nanoTime() - wall0) / (double) ops;
    System.out.printf(
        "heartbeat parse+apply+respond: %d ops, %.2f us CPU/op (%.2f us wall/op) => ~%.0f ops/s per core%n",
        ops, cpuNs / 1000, wallNs / 1000, 1e9 / cpuNs);
  }
}
