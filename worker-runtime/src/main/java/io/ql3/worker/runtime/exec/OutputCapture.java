package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.RunResult;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;

/**
 * Copies a process's merged stdout+stderr into its {@link RotatingLog}, counting every byte and
 * keeping the tail. One named daemon thread per running process: the JDK offers only blocking reads
 * on a child's pipe. Capture goes on after a log write error (disk full): bytes are still counted
 * and tailed, so the child never blocks on a full pipe.
 */
final class OutputCapture implements Runnable {

  private static final System.Logger LOG = System.getLogger(OutputCapture.class.getName());
  private static final int BUFFER_BYTES = 8192;

  /**
   * Raw tail bytes kept: the contract's 16384 escaped bytes never need more raw bytes (escaping
   * never shrinks), plus 3 so that OutputTail can drop a UTF-8 sequence cut at the front.
   */
  static final int TAIL_WINDOW = RunResult.MAX_OUTPUT_TAIL_BYTES + 3;

  private final InputStream in;
  private final RotatingLog log;
  private final String runId;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();

  // guarded by this
  private final TailBuffer tail = new TailBuffer(TAIL_WINDOW);
  private long total;
  private boolean detached;
  private boolean logBroken;

  OutputCapture(InputStream in, RotatingLog log, String runId) {
    this.in = in;
    this.log = log;
    this.runId = runId;
  }

  /** Starts the pump thread, named after the run. */
  void start() {
    Thread t = new Thread(null, this, "ql3-exec-output-" + runId, 256 * 1024);
    t.setDaemon(true);
    t.start();
  }

  /** Completes when the output reached its end (every writer closed it) and the log is closed. */
  CompletableFuture<Void> finished() {
    return finished;
  }

  @Override
  public void run() {
    byte[] buf = new byte[BUFFER_BYTES];
    try {
      int n;
      while ((n = in.read(buf)) != -1) {
        accept(buf, n);
      }
    } catch (IOException e) {
      // The stream was closed under us (only after detach) or the pipe failed: the end either way.
      LOG.log(Level.DEBUG, "run " + runId + ": output read ended: " + e.getMessage());
    } finally {
      closeQuietly();
      finished.complete(null);
    }
  }

  private synchronized void accept(byte[] buf, int n) {
    if (detached) {
      return; // the result was already reported; whoever still writes is no longer the run's
    }
    total += n;
    tail.add(buf, 0, n);
    if (!logBroken) {
      try {
        log.write(buf, 0, n);
      } catch (IOException e) {
        logBroken = true;
        LOG.log(Level.WARNING, "run " + runId + ": output log write failed, log stops here: " + e);
      }
    }
  }

  /** Total bytes and tail so far; after {@link #detach()} they no longer change. */
  synchronized Snapshot snapshot() {
    return new Snapshot(total, tail.toByteArray());
  }

  /**
   * Stops taking output: used when the output does not end in time because a process that left the
   * run's group still holds it open. The pump thread stays blocked until that writer closes.
   */
  synchronized void detach() {
    detached = true;
  }

  private synchronized void closeQuietly() {
    try {
      in.close();
    } catch (IOException ignored) {
      // nothing left to read
    }
    try {
      log.close();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "run " + runId + ": closing output log failed: " + e);
    }
  }

  record Snapshot(long total, byte[] tail) {}
}
