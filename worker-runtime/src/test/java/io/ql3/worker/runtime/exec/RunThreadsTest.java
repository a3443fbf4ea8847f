package io.ql3.worker.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RunThreadsTest {

  @Test
  void aTaskRunsUnderItsNameAndTheNextTaskReusesTheIdleThread() throws Exception {
    RunThreads threads = new RunThreads();
    CompletableFuture<Thread> first = new CompletableFuture<>();
    CompletableFuture<String> firstName = new CompletableFuture<>();
    threads.execute(
        "ql3-exec-output-r1",
        () -> {
          firstName.complete(Thread.currentThread().getName());
          first.complete(Thread.currentThread());
        });
    Thread t = first.get(10, TimeUnit.SECONDS);
    assertThat(firstName.get()).isEqualTo("ql3-exec-output-r1");
    assertThat(t.isDaemon()).isTrue();
    // A condition, polled: the thread is back under its idle name and waiting for the next task.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!(t.getName().startsWith("ql3-exec-") && t.getState() == Thread.State.TIMED_WAITING)
        && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(t.getName()).matches("ql3-exec-[0-9]+");

    CompletableFuture<Thread> second = new CompletableFuture<>();
    threads.execute("ql3-exec-exit-r2", () -> second.complete(Thread.currentThread()));
    assertThat(second.get(10, TimeUnit.SECONDS)).isSameAs(t);
  }

  @Test
  void tasksThatBlockTogetherEachHaveAThread() throws Exception {
    RunThreads threads = new RunThreads();
    CountDownLatch bothRunning = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    for (String name : new String[] {"ql3-exec-output-a", "ql3-exec-exit-a"}) {
      threads.execute(
          name,
          () -> {
            bothRunning.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    try {
      assertThat(bothRunning.await(10, TimeUnit.SECONDS))
          .as("the second task did not wait behind the first")
          .isTrue();
    } finally {
      release.countDown();
    }
  }
}
