package io.ql3.worker.controlplane.state;

import java.io.PrintStream;
import java.time.Instant;

/** One line per server event. */
public interface EventLog {
  void event(String kind, String detail);

  /** Prints {@code <instant> <kind> <detail>} lines (wall clock: logs are for people). */
  static EventLog to(PrintStream out) {
    return (kind, detail) -> out.println(Instant.now() + " " + kind + " " + detail);
  }

  static EventLog quiet() {
    return (kind, detail) -> {};
  }
}
