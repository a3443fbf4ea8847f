package io.ql3.worker.controlplane;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ql3-control-plane fence WORKER}: fences a worker's current session. */
@Command(
    name = "fence",
    mixinStandardHelpOptions = true,
    description = "Fence a worker's current session.")
final class FenceCmd extends AdminClient implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "WORKER")
  String worker;

  @Override
  public Integer call() throws Exception {
    return call("POST", "/workers/" + worker + "/fence", "{}");
  }
}
