package io.ql3.worker.contract;

/** The five operations of ql3w v1 (contract section 2). */
public enum Operation {
  REGISTER("register", "qinglong/worker-session-register@v1", 20480, 4096),
  HEARTBEAT("heartbeat", "qinglong/worker-session-heartbeat@v1", 4096, 4096),
  TRANSITION("transition", "qinglong/worker-session-transition@v1", 4096, 4096),
  PULL("pull", "qinglong/worker-execution-pull@v1", 4096, 1048576),
  COMPLETE("complete", "qinglong/worker-execution-complete@v1", 65536, 4096);

  /** Schema of every error body. */
  public static final String ERROR_SCHEMA = "qinglong/worker-ingress-error@v1";

  /** Cap of every error body, whatever the operation. */
  public static final int ERROR_CAP = 4096;

  private final String wireName;
  private final String schema;
  private final int requestCap;
  private final int responseCap;

  Operation(String wireName, String schema, int requestCap, int responseCap) {
    this.wireName = wireName;
    this.schema = schema;
    this.requestCap = requestCap;
    this.responseCap = responseCap;
  }

  /** Lowercase name as used in the vectors and as the final path segment. */
  public String wireName() {
    return wireName;
  }

  public String schema() {
    return schema;
  }

  /** Request body cap in bytes. */
  public int requestCap() {
    return requestCap;
  }

  /** Response (200) body cap in bytes; error bodies are capped at {@link #ERROR_CAP}. */
  public int responseCap() {
    return responseCap;
  }

  /** The operation for a vector/wire name, e.g. {@code "pull"}; null when none. */
  public static Operation fromWireName(String name) {
    for (Operation op : values()) {
      if (op.wireName.equals(name)) {
        return op;
      }
    }
    return null;
  }
}
