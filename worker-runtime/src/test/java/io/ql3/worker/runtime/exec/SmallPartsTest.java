package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;
import io.ql3.worker.contract.Outcome;
import io.ql3.worker.contract.RunResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small parts: tail ring, rotating log, outcome mapping, settings, cancellation signal. */
class SmallPartsTest {

  @TempDir Path tmp;

  // ---- TailBuffer

  @Test
  void tailBufferKeepsTheLastBytesWhateverTheWriteSizes() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      int capacity = 1 + random.nextInt(64);
      TailBuffer tail = new TailBuffer(capacity);
      byte[] all = new byte[random.nextInt(400)];
      random.nextBytes(all);
      int at = 0;
      while (at < all.length) {
        int n = Math.min(all.length - at, random.nextInt(3 * capacity + 1));
        tail.add(all, at, n);
        at += n;
      }
      int keep = Math.min(capacity, all.length);
      assertThat(tail.toByteArray())
          .isEqualTo(Arrays.copyOfRange(all, all.length - keep, all.length));
    }
  }

  // ---- RotatingLog

  @Test
  void rotatingLogKeepsAtMostTwoFilesOfTheNewestBytes() throws Exception {
    Path log = tmp.resolve("logs/output.log");
    Files.createDirectories(log.getParent());
    Files.writeString(Path.of(log + ".1"), "stale from an earlier attempt");
    byte[] all = new byte[10_000];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) ('a' + i % 26);
    }
    try (RotatingLog out = RotatingLog.create(log, 1024)) {
      for (int at = 0; at < all.length; at += 700) {
        out.write(all, at, Math.min(700, all.length - at));
      }
      assertThat(out.rotations()).isEqualTo(9);
    }
    byte[] rotated = Files.readAllBytes(Path.of(log + ".1"));
    byte[] current = Files.readAllBytes(log);
    assertThat(rotated).isEqualTo(Arrays.copyOfRange(all, 8 * 1024, 9 * 1024));
    assertThat(current).isEqualTo(Arrays.copyOfRange(all, 9 * 1024, all.length));
  }

  @Test
  void rotatingLogStartsFresh() throws Exception {
    Path log = tmp.resolve("fresh.log");
    Files.writeString(log, "old content");
    try (RotatingLog out = RotatingLog.create(log, 1024)) {
      out.write("new".getBytes(StandardCharsets.US_ASCII), 0, 3);
    }
    assertThat(Files.readString(log)).isEqualTo("new");
    assertThat(Path.of(log + ".1")).doesNotExist();
  }

  // ---- ProcessOutcomes

  private static ExecutionResult map(int status, ProcessOutcomes.Termination t) {
    return ProcessOutcomes.map(
        status,
        t,
        "SIGTERM sent to its process group",
        CancellationSignal.DEFAULT_REASON,
        1000,
        Set.of(2, 255),
        5,
        0,
        new byte[0]);
  }

  @Test
  void exitStatusMapping() {
    assertThat(map(0, ProcessOutcomes.Termination.NONE).outcome()).isEqualTo(Outcome.SUCCEEDED);
    ExecutionResult permanent = map(2, ProcessOutcomes.Termination.NONE);
    assertThat(permanent.failure().category()).isEqualTo(FailureCategory.PERMANENT);
    assertThat(permanent.exitCode()).isEqualTo(2);
    assertThat(map(255, ProcessOutcomes.Termination.NONE).failure().category())
        .isEqualTo(FailureCategory.PERMANENT);
    assertThat(map(1, ProcessOutcomes.Termination.NONE).failure().category())
        .isEqualTo(FailureCategory.TRANSIENT);
    assertThat(map(128, ProcessOutcomes.Termination.NONE).exitCode()).isEqualTo(128);
    assertThat(map(193, ProcessOutcomes.Termination.NONE).exitCode()).isEqualTo(193);
    for (int status = 129; status <= 192; status++) {
      ExecutionResult r = map(status, ProcessOutcomes.Termination.NONE);
      assertThat(r.exitCode()).isNull();
      assertThat(r.failure().code()).isEqualTo("killed_by_signal");
    }
    assertThat(map(143, ProcessOutcomes.Termination.NONE).failure().message())
        .startsWith("process terminated by SIGTERM");
    ExecutionResult timeout = map(143, ProcessOutcomes.Termination.TIMEOUT);
    assertThat(timeout.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(timeout.failure().code()).isEqualTo("task_timeout");
    ExecutionResult cancelled = map(0, ProcessOutcomes.Termination.CANCEL);
    assertThat(cancelled.outcome())
        .as("cancel requested before the exit was seen")
        .isEqualTo(Outcome.CANCELLED);
    assertThat(cancelled.exitCode()).isZero();
  }

  @Test
  void settingsRefuseSignalStatusesAsPermanentCodes() {
    ProcessExecutorSettings d = ProcessExecutorSettings.defaults();
    assertThatThrownBy(() -> d.withPermanentExitCodes(Set.of(137)))
        .hasMessageContaining("signal 9");
    assertThatThrownBy(() -> d.withPermanentExitCodes(Set.of(0)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withPermanentExitCodes(Set.of(256)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withMaxLogBytes(10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withPassEnvironment(Set.of("BAD-NAME")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(d.withPermanentExitCodes(Set.of(1, 128, 193, 255)).permanentExitCodes()).hasSize(4);
  }

  // ---- ExecutionResult and Failures

  @Test
  void resultsKeepTheContractsRules() {
    Failure f = Failures.permanent("x", "m");
    assertThatThrownBy(() -> new ExecutionResult(Outcome.SUCCEEDED, f, RunResult.NOT_RUN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ExecutionResult(Outcome.FAILED, null, RunResult.NOT_RUN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ExecutionResult(Outcome.UNCERTAIN, f, RunResult.NOT_RUN))
        .isInstanceOf(IllegalArgumentException.class);
    String longMessage = "é".repeat(3000) + "\uD800";
    assertThat(Failures.transientFailure("y", longMessage).message().codePointCount(0, 1024))
        .isEqualTo(1024);
    assertThat(Failures.fit("a\uD800b")).isEqualTo("a\uFFFDb");
  }

  // ---- CancellationSignal

  @Test
  void cancellationRunsListenersOnceAndTheFirstReasonWins() {
    CancellationSignal s = new CancellationSignal();
    AtomicInteger calls = new AtomicInteger();
    List<String> order = new ArrayList<>();
    s.onCancel(() -> order.add("first"));
    CancellationSignal.Registration removed = s.onCancel(() -> calls.incrementAndGet());
    removed.close();
    s.onCancel(() -> order.add("second"));
    Failure why = new Failure(FailureCategory.TRANSIENT, "drain_timeout", "shutting down");
    assertThat(s.cancel(why)).isTrue();
    assertThat(s.cancel()).isFalse();
    assertThat(s.reason()).contains(why);
    assertThat(order).containsExactly("first", "second");
    assertThat(calls).hasValue(0);
    s.onCancel(() -> order.add("late"));
    assertThat(order).containsExactly("first", "second", "late");
  }

  @Test
  void systemClockTimerRunsTasksOnOneNamedThreadAndCancelsThem() throws Exception {
    try (SystemExecutionClock clock = new SystemExecutionClock()) {
      java.util.concurrent.CompletableFuture<String> ran =
          new java.util.concurrent.CompletableFuture<>();
      AtomicInteger cancelledRuns = new AtomicInteger();
      clock.schedule(Duration.ofHours(1), cancelledRuns::incrementAndGet).cancel();
      clock.schedule(Duration.ofMillis(1), () -> ran.complete(Thread.currentThread().getName()));
      assertThat(ran.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("ql3-exec-timer");
      assertThat(cancelledRuns).hasValue(0);
    }
  }
}
