package io.ql3.worker.contract;

import java.nio.charset.StandardCharsets;

/**
 * The contract's member names and common values, so the reader returns shared String instances
 * instead of allocating one per member on hot paths (heartbeat every cadence period).
 */
final class KnownNames {
  private static final String[] WORDS = {
    "active",
    "agent",
    "architecture",
    "argv",
    "attempt",
    "availableSlots",
    "cancelRuns",
    "capability",
    "capabilityDigest",
    "capacity",
    "category",
    "code",
    "cwd",
    "disposition",
    "draining",
    "durationMs",
    "env",
    "executor",
    "executors",
    "exitCode",
    "failure",
    "from",
    "generation",
    "heartbeatIntervalMs",
    "idempotencyKey",
    "labels",
    "leaseTtlMs",
    "limits",
    "maxConcurrentRuns",
    "maxRuns",
    "maxSpecBytes",
    "message",
    "ms",
    "name",
    "nextPullAfterMs",
    "offers",
    "offline",
    "os",
    "outcome",
    "outputBytes",
    "outputTail",
    "pendingCompletions",
    "profile",
    "pullId",
    "pullPage",
    "replaced",
    "result",
    "revision",
    "runId",
    "runs",
    "runtime",
    "schema",
    "sessionId",
    "spec",
    "specDigest",
    "status",
    "timeoutMs",
    "to",
    "version",
    "waitMs",
    "workAvailable",
    "accepted",
    "duplicate",
    "succeeded",
    "failed",
    "cancelled",
    "uncertain",
    "transient",
    "permanent",
    "edge",
    "node",
    "expired",
    "process",
    "noop",
    "sleep",
    "fail",
    "linux",
    "java",
    "qinglong/worker-session-register@v1",
    "qinglong/worker-session-heartbeat@v1",
    "qinglong/worker-session-transition@v1",
    "qinglong/worker-execution-pull@v1",
    "qinglong/worker-execution-complete@v1",
    "qinglong/worker-ingress-error@v1",
  };
  private static final int SIZE = 256; // power of two, > 2 * WORDS.length
  private static final String[] TABLE = new String[SIZE];
  // TABLE's words as ASCII bytes: compared with the input byte by byte, without String.charAt's
  // calls per character (the edge agent's interpreter pays each call).
  private static final byte[][] TABLE_BYTES = new byte[SIZE][];

  static {
    for (String w : WORDS) {
      int h = hash(w) & (SIZE - 1);
      while (TABLE[h] != null) {
        if (TABLE[h].equals(w)) {
          throw new ExceptionInInitializerError("duplicate known name " + w);
        }
        h = (h + 1) & (SIZE - 1);
      }
      TABLE[h] = w;
      TABLE_BYTES[h] = w.getBytes(StandardCharsets.US_ASCII);
    }
  }

  private KnownNames() {}

  private static int hash(String s) {
    int h = s.length();
    for (int i = 0; i < s.length(); i++) {
      h = 31 * h + s.charAt(i);
    }
    return h ^ (h >>> 16);
  }

  /** The shared instance for ASCII bytes {@code b[start, start+len)}, or null when not known. */
  static String lookup(byte[] b, int start, int len) {
    int h = len;
    for (int i = start; i < start + len; i++) {
      h = 31 * h + b[i];
    }
    h = (h ^ (h >>> 16)) & (SIZE - 1);
    while (true) {
      String w = TABLE[h];
      if (w == null) {
        return null;
      }
      if (w.length() == len && matches(TABLE_BYTES[h], b, start)) {
        return w;
      }
      h = (h + 1) & (SIZE - 1);
    }
  }

  private static boolean matches(byte[] w, byte[] b, int start) {
    for (int i = 0; i < w.length; i++) {
      if (w[i] != b[start + i]) {
        return false;
      }
    }
    return true;
  }
}
