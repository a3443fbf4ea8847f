package io.ql3.worker.controlplane;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code ql3-control-plane sessions}: the admin API's workers and sessions. */
@Command(
    name = "sessions",
    mixinStandardHelpOptions = true,
    description = "Workers and sessions (GET /sessions).")
final class SessionsCmd extends AdminClient implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    return call("GET", "/sessions", null);
  }
}
