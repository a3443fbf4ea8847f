package io.ql3.worker.controlplane;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ql3-control-plane fault}: add, list and clear injected faults through the admin API. */
@Command(
    name = "fault",
    mixinStandardHelpOptions = true,
    description = "Inject faults (POST /faults).",
    subcommands = {
      FaultCmd.Add.class,
      FaultCmd.ListFaults.class,
      FaultCmd.Clear.class,
      FaultCmd.CloseConnections.class
    })
final class FaultCmd implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description =
          "The next COUNT answers of OPERATION: an error status/code, drop-after-apply, or delay.")
  static final class Add extends AdminClient implements Callable<Integer> {
    @Option(
        names = "--operation",
        description = "register|heartbeat|transition|pull|complete (default: any)")
    String operation;

    @Option(names = "--action", required = true, description = "error | drop-after-apply | delay")
    String action;

    @Option(names = "--count", defaultValue = "1")
    int count;

    @Option(names = "--status", description = "HTTP status for action error")
    Integer status;

    @Option(names = "--code", description = "Contract error code for action error")
    String code;

    @Option(names = "--retry-after", description = "retry-after seconds for action error")
    Integer retryAfter;

    @Option(names = "--delay-ms", description = "Delay for action delay")
    Long delayMs;

    @Override
    public Integer call() throws Exception {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("operation", operation);
      body.put("action", action);
      body.put("count", count);
      body.put("status", status);
      body.put("code", code);
      body.put("retryAfter", retryAfter);
      body.put("delayMs", delayMs);
      return call("POST", "/faults", json(body));
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Pending faults.")
  static final class ListFaults extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("GET", "/faults", null);
    }
  }

  @Command(
      name = "clear",
      mixinStandardHelpOptions = true,
      description = "Drop every pending fault.")
  static final class Clear extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("DELETE", "/faults", null);
    }
  }

  @Command(
      name = "close-connections",
      mixinStandardHelpOptions = true,
      description = "Close every client connection now.")
  static final class CloseConnections extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("POST", "/faults", "{\"action\":\"close-connections\"}");
    }
  }
}
