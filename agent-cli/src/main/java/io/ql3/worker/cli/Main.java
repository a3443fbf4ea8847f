package io.ql3.worker.cli;

import java.io.PrintStream;

/**
 * Entry point of {@code ql3-worker}. {@code run} (the service) is dispatched without picocli; every
 * other command goes through {@link Commands}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /** Runs one command line and returns its exit code (tests call this). */
  public static int execute(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && args[0].equals("run")) {
      return RunCommand.run(args, out, err);
    }
    return Commands.execute(args, out, err);
  }
}
