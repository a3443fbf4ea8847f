package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.FailSpec;
import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.NoopSpec;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SleepSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** noop, sleep and fail, driven by a manual clock: no real time passes. */
class BuiltInExecutorsTest {

  private final ManualClock clock = new ManualClock();
  private final CancellationSignal signal = new CancellationSignal();

  private ExecutionContext context(Duration timeout) {
    return new ExecutionContext(
        new RunId("demo-1"),
        1,
        "k",
        Path.of("/nonexistent/work"),
        Path.of("/nonexistent/log"),
        timeout,
        signal,
        clock);
  }

  @Test
  void noopSucceedsAtOnce() throws Exception {
    NoopExecutor noop = new NoopExecutor();
    noop.validate(NoopSpec.INSTANCE);
    RunHandle h = noop.prepare(NoopSpec.INSTANCE, context(Duration.ofSeconds(1))).launch();
    ExecutionResult r = h.result().getNow(null);
    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.exitCode()).isNull();
    assertThat(r.outputBytes()).isZero();
    assertThat(r.outputTail()).isEmpty();
    assertThat(h.pid()).isEmpty();
    assertThat(h.startedAt()).isEqualTo(clock.now());
  }

  @Test
  void failFailsAtOnceWithTheSpecsFailure() throws Exception {
    FailExecutor fail = new FailExecutor();
    FailSpec spec = new FailSpec(FailureCategory.PERMANENT, "bad_input");
    fail.validate(spec);
    ExecutionResult r =
        fail.prepare(spec, context(Duration.ofSeconds(1))).launch().result().getNow(null);
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().category()).isEqualTo(FailureCategory.PERMANENT);
    assertThat(r.failure().code()).isEqualTo("bad_input");
    assertThat(r.exitCode()).isNull();

    ExecutionResult t =
        fail.prepare(
                new FailSpec(FailureCategory.TRANSIENT, "flaky"), context(Duration.ofSeconds(1)))
            .launch()
            .result()
            .getNow(null);
    assertThat(t.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(t.failure().code()).isEqualTo("flaky");
  }

  @Test
  void failSpecCodeIsCheckedByTheContract() {
    assertThatThrownBy(
            () ->
                ExecutorSpec.parse(
                    "fail",
                    "{\"category\":\"permanent\",\"code\":\"Bad-Code\"}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .isInstanceOf(io.ql3.worker.contract.ContractViolation.class);
  }

  @Test
  void sleepSucceedsWhenItsTimeHasComeAndNotBefore() {
    SleepExecutor sleep = new SleepExecutor();
    RunHandle h = sleep.prepare(new SleepSpec(1500), context(Duration.ofSeconds(10))).launch();
    CompletableFuture<ExecutionResult> result = h.result();
    clock.advance(Duration.ofMillis(1499));
    assertThat(result).isNotDone();
    clock.advance(Duration.ofMillis(1));
    ExecutionResult r = result.getNow(null);
    assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(r.durationMs()).isEqualTo(1500);
    assertThat(clock.pendingTasks()).as("the timeout was withdrawn").isZero();
  }

  @Test
  void sleepLongerThanItsTimeoutFailsTransient() {
    RunHandle h =
        new SleepExecutor()
            .prepare(new SleepSpec(60_000), context(Duration.ofMillis(250)))
            .launch();
    clock.advance(Duration.ofMillis(250));
    ExecutionResult r = h.result().getNow(null);
    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(r.failure().category()).isEqualTo(FailureCategory.TRANSIENT);
    assertThat(r.failure().code()).isEqualTo("task_timeout");
    assertThat(r.durationMs()).isEqualTo(250);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void sleepHonoursCancellation() {
    RunHandle h =
        new SleepExecutor().prepare(new SleepSpec(60_000), context(Duration.ofHours(1))).launch();
    clock.advance(Duration.ofMillis(700));
    Failure why = new Failure(FailureCategory.TRANSIENT, "drain_timeout", "agent shutting down");
    signal.cancel(why);
    ExecutionResult r = h.result().getNow(null);
    assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(r.failure()).isEqualTo(why);
    assertThat(r.durationMs()).isEqualTo(700);
    assertThat(clock.pendingTasks()).isZero();
    clock.advance(Duration.ofHours(2));
    assertThat(h.result().getNow(null)).isEqualTo(r);
  }

  @Test
  void sleepOfZeroSucceedsAtOnce() {
    RunHandle h =
        new SleepExecutor().prepare(new SleepSpec(0), context(Duration.ofSeconds(1))).launch();
    assertThat(h.result().getNow(null).outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void cancelledBeforeLaunchNeverRuns() {
    signal.cancel();
    assertThat(
            new NoopExecutor()
                .prepare(NoopSpec.INSTANCE, context(Duration.ofSeconds(1)))
                .launch()
                .result()
                .getNow(null)
                .outcome())
        .isEqualTo(Outcome.CANCELLED);
    assertThat(
            new FailExecutor()
                .prepare(
                    new FailSpec(FailureCategory.TRANSIENT, "x"), context(Duration.ofSeconds(1)))
                .launch()
                .result()
                .getNow(null)
                .outcome())
        .isEqualTo(Outcome.CANCELLED);
    assertThat(
            new SleepExecutor()
                .prepare(new SleepSpec(10), context(Duration.ofSeconds(1)))
                .launch()
                .result()
                .getNow(null)
                .outcome())
        .isEqualTo(Outcome.CANCELLED);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void eachExecutorRejectsTheOthersSpecs() {
    assertThatThrownBy(() -> new NoopExecutor().validate(new SleepSpec(1)))
        .isInstanceOf(SpecRejectedException.class);
    assertThatThrownBy(() -> new SleepExecutor().validate(NoopSpec.INSTANCE))
        .isInstanceOf(SpecRejectedException.class);
    assertThatThrownBy(() -> new FailExecutor().validate(NoopSpec.INSTANCE))
        .isInstanceOf(SpecRejectedException.class);
  }

  @Test
  void preparedRunsAreSingleUse() {
    PreparedRun p = new SleepExecutor().prepare(new SleepSpec(5), context(Duration.ofSeconds(1)));
    p.launch();
    assertThatThrownBy(p::launch).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(p::discard).isInstanceOf(IllegalStateException.class);
    PreparedRun n = new NoopExecutor().prepare(NoopSpec.INSTANCE, context(Duration.ofSeconds(1)));
    n.discard();
    assertThatThrownBy(n::launch).isInstanceOf(IllegalStateException.class);
  }
}
