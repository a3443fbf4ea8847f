package io.ql3.worker.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.controlplane.ingress.ContractWire;
import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.GenerationFile;
import io.ql3.worker.controlplane.state.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the 20-minute soak: each restart of the in-memory control plane handed out generations
 * from 1 again. A correct agent refuses a register answer not above the generation it held
 * (contract sections 5 and 6: drift), so after each restart it needed one register per generation
 * it had held, each after a growing backoff step, before it could pull again: runs waited at the
 * server for minutes. With a generations file a restarted server (a new {@link ControlPlane} on the
 * same file, as after kill -9) forgets sessions and runs but answers above every generation it
 * answered before, including one taken by an admin fence.
 */
class GenerationFileTest {
  private static final String W = "edge-0001";
  private final TestClock clock = new TestClock();
  private final ContractWire wire = new ContractWire();

  @TempDir Path dir;

  private ControlPlane lifetime(GenerationFile generations) {
    return new ControlPlane(
        clock,
        Harness.SETTINGS,
        wire,
        new Auditor(clock, EventLog.quiet()),
        EventLog.quiet(),
        generations);
  }

  private long register(ControlPlane cp, String workerId) throws Exception {
    byte[] body = Bodies.register(4, 4);
    Reply r = cp.register(workerId, Bodies.newId(), body, wire.parseRegister(body));
    assertThat(r.status()).isEqualTo(200);
    return RegisterResponse.parse(r.body()).generation();
  }

  @Test
  void aRestartedServerAnswersAboveEveryGenerationAnEarlierLifetimeAnswered() throws Exception {
    Path file = dir.resolve("generations");
    ControlPlane first = lifetime(GenerationFile.open(file));
    assertThat(register(first, W)).isEqualTo(1);
    assertThat(register(first, W)).isEqualTo(2);
    assertThat(first.fenceWorker(W)).isTrue(); // generation 3, never answered but never reused
    assertThat(register(first, "edge-0002")).isEqualTo(1);

    // The first lifetime is simply abandoned (kill -9): only what was recorded before answering
    // counts.
    ControlPlane second = lifetime(GenerationFile.open(file));
    assertThat(second.workers()).isEmpty(); // sessions and everything else are forgotten
    assertThat(register(second, W)).isEqualTo(4);
    assertThat(register(second, "edge-0002")).isEqualTo(2);
    assertThat(register(second, "edge-0003")).isEqualTo(1);

    ControlPlane third = lifetime(GenerationFile.open(file));
    assertThat(register(third, W)).isEqualTo(5);
    assertThat(Files.readString(file)).isEqualTo("edge-0001 5\nedge-0002 2\nedge-0003 1\n");
  }

  @Test
  void withoutAFileEveryLifetimeStartsAtOneAsBefore() throws Exception {
    assertThat(register(lifetime(null), W)).isEqualTo(1);
    assertThat(register(lifetime(null), W)).isEqualTo(1);
  }
}
