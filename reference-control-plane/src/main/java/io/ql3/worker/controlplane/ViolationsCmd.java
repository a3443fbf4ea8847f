package io.ql3.worker.controlplane;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code ql3-control-plane violations}: the client contract violations the auditor recorded. */
@Command(
    name = "violations",
    mixinStandardHelpOptions = true,
    description = "Observed client contract violations.")
final class ViolationsCmd extends AdminClient implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    return call("GET", "/violations", null);
  }
}
