package io.ql3.worker.runtime.systemd;

/**
 * Where sd_notify(3) datagrams go: the service manager's {@code NOTIFY_SOCKET}, or nowhere.
 * Implementations never throw: a notification that cannot be sent is dropped (and said so once by
 * whoever opened it).
 */
public interface Notifier extends AutoCloseable {
  /** Outside systemd (no {@code NOTIFY_SOCKET}) or when the native library did not load. */
  Notifier NONE =
      new Notifier() {
        @Override
        public boolean send(String state) {
          return false;
        }

        @Override
        public String describe() {
          return "none";
        }

        @Override
        public void close() {}
      };

  /**
   * Sends one datagram of newline-separated {@code KEY=VALUE} assignments; true when the kernel
   * accepted it.
   */
  boolean send(String state);

  /** For the log: where notifications go. */
  String describe();

  @Override
  void close();
}
