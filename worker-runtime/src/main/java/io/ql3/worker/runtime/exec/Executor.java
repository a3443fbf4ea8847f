package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorInfo;
import io.ql3.worker.contract.ExecutorSpec;

/**
 * The executor SPI: runs one kind of work. Stable and public: a user adds an executor by putting a
 * jar on the agent's class path that names its implementation in {@code
 * META-INF/services/io.ql3.worker.runtime.exec.Executor} (a public class with a public no-argument
 * constructor, found by {@link java.util.ServiceLoader}); the configuration then enables it by
 * name.
 *
 * <p>The runtime drives every run through three steps, so that "run started" is durable in its
 * journal before anything executes:
 *
 * <ol>
 *   <li>{@link #validate}: when the offer arrives. A spec the executor cannot run is rejected; the
 *       offer is completed {@code failed}, permanent, {@code offer_rejected}, and never runs.
 *   <li>{@link #prepare}: when a slot is free. Acquires what the run needs (directories, files) and
 *       checks what can only be checked then; starts nothing.
 *   <li>{@link PreparedRun#launch()}: after the journal recorded the start. Returns a {@link
 *       RunHandle} with the pid and start instant (journaled next) and the result future.
 * </ol>
 *
 * <p>Rules for implementations: thread-safe (one instance serves every run, concurrently); no
 * blocking in {@link #validate}; honour the context's cancellation signal and timeout (a run that
 * ignores them keeps its slot and blocks the agent's shutdown); never touch the journal or the
 * network of the agent; never throw from a run: report a failed {@link ExecutionResult}.
 */
public interface Executor {

  /** The advertised name, {@code ^[a-z][a-z0-9-]{0,31}$}; unique among installed executors. */
  String name();

  /** The advertised version: 1..64 printable ASCII characters. */
  String version();

  /** Name and version as the capability advertises them. */
  default ExecutorInfo info() {
    return new ExecutorInfo(name(), version());
  }

  /**
   * Decides whether this executor can run {@code spec}. The contract already checked the built-in
   * specs' own rules ({@code ProcessSpec}, {@code SleepSpec}...); any other executor receives an
   * {@code OpaqueSpec} holding the JSON object and checks it here. Pure and quick.
   *
   * @throws SpecRejectedException with a message saying what is wrong (it becomes the completion's
   *     failure message)
   */
  void validate(ExecutorSpec spec) throws SpecRejectedException;

  /**
   * Prepares a run of a spec that passed {@link #validate}. Starts nothing.
   *
   * @throws PrepareFailedException when the run cannot be made ready; the runtime completes it
   *     {@code failed} with that failure, as never started
   */
  PreparedRun prepare(ExecutorSpec spec, ExecutionContext context) throws PrepareFailedException;
}
