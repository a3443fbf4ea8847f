package io.ql3.worker.controlplane;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ql3-control-plane}: the reference control plane's command line. Each subcommand is a class
 * of its own: {@link DevPkiCmd}, {@link ServeCmd} (start-up; the wiring is {@link
 * ControlPlaneServer}) and the admin API clients ({@link RunsCmd}, {@link SessionsCmd}, {@link
 * ViolationsCmd}, {@link ConnectionsCmd}, {@link FenceCmd}, {@link FaultCmd}, on {@link
 * AdminClient}).
 */
@Command(
    name = "ql3-control-plane",
    mixinStandardHelpOptions = true,
    version = "ql3-control-plane 0.1.0",
    description =
        "A faithful reference server of the ql3w v1 worker ingress contract, for tests, demos and benchmarks.",
    subcommands = {
      DevPkiCmd.class,
      ServeCmd.class,
      RunsCmd.class,
      SessionsCmd.class,
      ViolationsCmd.class,
      ConnectionsCmd.class,
      FenceCmd.class,
      FaultCmd.class
    })
public final class Main implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }
}
