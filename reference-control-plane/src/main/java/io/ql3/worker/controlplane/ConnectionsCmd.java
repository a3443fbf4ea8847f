package io.ql3.worker.controlplane;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code ql3-control-plane connections}: the admin API's connections and request counts. */
@Command(
    name = "connections",
    mixinStandardHelpOptions = true,
    description = "Connections and request counts.")
final class ConnectionsCmd extends AdminClient implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    return call("GET", "/connections", null);
  }
}
