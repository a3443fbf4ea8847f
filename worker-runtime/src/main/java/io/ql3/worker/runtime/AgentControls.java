package io.ql3.worker.runtime;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the outside asks of a running agent and what it answers, shared by {@link WorkerAgent} (the
 * signal and reload side), {@link AgentParts} (start-up and shutdown) and {@link AgentStep} (the
 * cadence): safe from any thread.
 */
final class AgentControls {
  /** SIGTERM/SIGINT received so far: the first drains, the second cancels every run. */
  final AtomicInteger signals = new AtomicInteger();

  /** A SIGHUP asked for the configuration to be read again; cleared by whoever acts on it. */
  final AtomicBoolean reloadRequested = new AtomicBoolean();

  /** The process exit code once the agent stops ({@link ExitCode#OK} unless something failed). */
  final AtomicInteger exitCode = new AtomicInteger(ExitCode.OK.code());

  /** Counted down once the agent stopped (offline, or a failure it cannot go on from). */
  final CountDownLatch stopped = new CountDownLatch(1);
}
