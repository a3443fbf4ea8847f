package io.ql3.worker.bench.contract;

import io.ql3.worker.contract.Capacity;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.Drift;
import io.ql3.worker.contract.DriftCheck;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.RunCounts;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The session's steady-state wire cost: encode a heartbeat request, then decode and drift-check the
 * heartbeat response (the one pair the agent exchanges every cadence period while idle).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeartbeatContractBenchmark {
  private byte[] responseBytes;
  private byte[] responseWithCancelsBytes;
  private int slots;
  private long version;

  @Setup
  public void setup() {
    // A pretty-printed response like vectors/responses/valid/heartbeat-active.json (not canonical
    // on purpose).
    responseBytes =
        ("{\n\t\"cancelRuns\": [],\n\t\"generation\": 7,\n\t\"heartbeatIntervalMs\": 10000,\n"
                + "\t\"leaseTtlMs\": 30000,\n\t\"schema\": \"qinglong/worker-session-heartbeat@v1\",\n"
                + "\t\"status\": \"active\",\n\t\"version\": 2,\n\t\"workAvailable\": true\n}")
            .getBytes(StandardCharsets.UTF_8);
    responseWithCancelsBytes =
        new HeartbeatResponse(
                List.of(new RunId("run-20241203-000117"), new RunId("run-20241203-000118")),
                7,
                10000,
                30000,
                SessionStatus.ACTIVE,
                2,
                false)
            .toCanonicalBytes();
    slots = 3;
    version = 1;
  }

  /** Encode request + decode response + drift check: the measured pair. */
  @Benchmark
  public Optional<Drift> heartbeatPair(Blackhole bh) throws ContractViolation {
    HeartbeatRequest request =
        new HeartbeatRequest(
            new Capacity(slots, 4), 7, new RunCounts(1, 0), SessionStatus.ACTIVE, version);
    bh.consume(request.toCanonicalBytes());
    HeartbeatResponse response = HeartbeatResponse.parse(responseBytes);
    return DriftCheck.heartbeat(response, request);
  }

  @Benchmark
  public byte[] encodeRequest() {
    return new HeartbeatRequest(
            new Capacity(slots, 4), 7, new RunCounts(1, 0), SessionStatus.ACTIVE, version)
        .toCanonicalBytes();
  }

  @Benchmark
  public HeartbeatResponse decodeResponseWithCancels() throws ContractViolation {
    return HeartbeatResponse.parse(responseWithCancelsBytes);
  }

  /**
   * The pair for {@link HeartbeatCpuTime} (no Blackhole outside JMH): the encoded length feeds the
   * result.
   */
  long pairWithoutBlackhole() throws ContractViolation {
    HeartbeatRequest request =
        new HeartbeatRequest(
            new Capacity(slots, 4), 7, new RunCounts(1, 0), SessionStatus.ACTIVE, version);
    byte[] sent = request.toCanonicalBytes();
    HeartbeatResponse response = HeartbeatResponse.parse(responseBytes);
    Optional<Drift> drift = DriftCheck.heartbeat(response, request);
    return drift.isPresent() ? -1 : sent.length + response.version();
  }
}
