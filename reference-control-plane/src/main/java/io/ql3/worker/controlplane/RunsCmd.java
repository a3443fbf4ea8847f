package io.ql3.worker.controlplane;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ql3-control-plane runs}: submit, list and cancel runs through the admin API. */
@Command(
    name = "runs",
    mixinStandardHelpOptions = true,
    description = "Submit, list and cancel runs.",
    subcommands = {RunsCmd.Submit.class, RunsCmd.ListRuns.class, RunsCmd.Cancel.class})
final class RunsCmd implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  @Command(
      name = "submit",
      mixinStandardHelpOptions = true,
      description = "Queue runs (POST /runs).")
  static final class Submit extends AdminClient implements Callable<Integer> {
    @Option(names = "--count", defaultValue = "1")
    int count;

    @Option(names = "--executor", required = true, description = "e.g. process, noop, sleep, fail")
    String executor;

    @Option(
        names = "--spec",
        defaultValue = "{}",
        description = "The spec as JSON text (default {}).")
    String specJson;

    @Option(names = "--timeout-ms", defaultValue = "60000")
    long timeoutMs;

    @Option(names = "--worker", description = "Target this worker only.")
    String worker;

    @Option(
        names = "--label",
        description = "Target workers with this label (key=value), repeatable.")
    Map<String, String> labels;

    @Option(names = "--run-id", description = "Explicit run id (count 1 only).")
    String runId;

    @Option(names = "--idempotency-key")
    String idempotencyKey;

    @Option(
        names = "--delay-ms",
        defaultValue = "0",
        description = "Not offered before this delay.")
    long delayMs;

    @Override
    public Integer call() throws Exception {
      var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("count", count);
      body.put("executor", executor);
      body.put("spec", mapper.readTree(specJson));
      body.put("timeoutMs", timeoutMs);
      if (worker != null) {
        body.put("workerId", worker);
      }
      if (labels != null) {
        body.put("labels", labels);
      }
      if (runId != null) {
        body.put("runId", runId);
      }
      if (idempotencyKey != null) {
        body.put("idempotencyKey", idempotencyKey);
      }
      body.put("delayMs", delayMs);
      return call("POST", "/runs", json(body));
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List runs and their outcomes (GET /runs).")
  static final class ListRuns extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("GET", "/runs", null);
    }
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description = "Cancel a run (POST /runs/{id}/cancel).")
  static final class Cancel extends AdminClient implements Callable<Integer> {
    @Parameters(index = "0")
    String runId;

    @Override
    public Integer call() throws Exception {
      return call("POST", "/runs/" + runId + "/cancel", "{}");
    }
  }
}
