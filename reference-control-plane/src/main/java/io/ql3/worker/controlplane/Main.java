package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import io.ql3.worker.controlplane.pki.DevPki;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.Settings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ql3-control-plane}: the reference control plane's command line. */
@Command(
    name = "ql3-control-plane",
    mixinStandardHelpOptions = true,
    version = "ql3-control-plane 0.1.0",
    description =
        "A faithful reference server of the ql3w v1 worker ingress contract, for tests, demos and benchmarks.",
    subcommands = {
      Main.DevPkiCmd.class,
      Main.ServeCmd.class,
      Main.RunsCmd.class,
      Main.SessionsCmd.class,
      Main.ViolationsCmd.class,
      Main.ConnectionsCmd.class,
      Main.FenceCmd.class,
      Main.FaultCmd.class
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

  @Command(
      name = "dev-pki",
      mixinStandardHelpOptions = true,
      description =
          "Create a development CA, server certificate (localhost, 127.0.0.1, ::1) and per-worker "
              + "client certificates (URI SAN ql3w://worker/ID) and tokens. Reuses an existing CA in DIR.")
  static final class DevPkiCmd implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "Output directory.")
    Path out;

    @Option(names = "--worker", required = true, arity = "1..*", description = "Worker id(s).")
    List<String> workers;

    @Option(
        names = "--days",
        defaultValue = "365",
        description = "Certificate validity in days (default ${DEFAULT-VALUE}).")
    int days;

    @Option(
        names = "--server-ip",
        description =
            "Another IP address for the server certificate (repeatable; for test hosts in network namespaces).")
    List<String> serverIps = new java.util.ArrayList<>();

    @Override
    public Integer call() throws Exception {
      DevPki pki = new DevPki(out, Duration.ofDays(days), serverIps);
      List<String> created = pki.create(workers);
      for (String c : created) {
        System.out.println("created " + c);
      }
      if (created.isEmpty()) {
        System.out.println("nothing to do: " + out + " already has everything");
      }
      return 0;
    }
  }

  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      description = "Serve the ingress (TLS 1.3, mTLS) and the admin API.")
  static final class ServeCmd implements Callable<Integer> {
    @Option(names = "--pki", required = true, description = "PKI directory made by dev-pki.")
    Path pki;

    @Option(
        names = "--host",
        defaultValue = "127.0.0.1",
        description = "Ingress bind address (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", required = true, description = "Ingress port (0: ephemeral).")
    int port;

    @Option(
        names = "--admin-port",
        required = true,
        description = "Admin API port on 127.0.0.1 (0: ephemeral).")
    int adminPort;

    @Option(
        names = "--alpn",
        defaultValue = "h2,http/1.1",
        description = "'h2,http/1.1' or 'http/1.1' (default ${DEFAULT-VALUE}).")
    String alpn;

    // Defaults come from Settings.defaults() (the one owner of the server's default timing).
    @Option(names = "--heartbeat-interval-ms", description = "H (default ${DEFAULT-VALUE}).")
    long heartbeatIntervalMs = Settings.defaults().heartbeatIntervalMs();

    @Option(names = "--lease-ttl-ms", description = "L (default ${DEFAULT-VALUE}).")
    long leaseTtlMs = Settings.defaults().leaseTtlMs();

    @Option(
        names = "--draining-lease-ttl-ms",
        description = "L while draining (default ${DEFAULT-VALUE}).")
    long drainingLeaseTtlMs = Settings.defaults().drainingLeaseTtlMs();

    @Option(
        names = "--early-tolerance-ms",
        description =
            "A heartbeat earlier than H minus this is a violation (default ${DEFAULT-VALUE}).")
    long earlyToleranceMs = Settings.defaults().earlyToleranceMs();

    @Option(
        names = "--io-threads",
        defaultValue = "1",
        description = "Event loop threads (default ${DEFAULT-VALUE}).")
    int ioThreads;

    @Option(
        names = "--transport",
        defaultValue = "auto",
        converter = TransportConverter.class,
        description =
            "Sockets: auto (epoll where its native library loads, else nio), epoll or nio "
                + "(default ${DEFAULT-VALUE}).")
    SocketTransport transport;

    @Option(names = "--verbose", description = "Also log every successful answer (one line each).")
    boolean verbose;

    @Option(
        names = "--generations-file",
        description =
            "Keep each worker's generation counter in this file, so a restart never hands out a generation "
                + "again (contract section 5); everything else stays in memory. Default: none (all in memory).")
    Path generationsFile;

    @Override
    public Integer call() throws Exception {
      Settings settings =
          new Settings(
              heartbeatIntervalMs,
              leaseTtlMs,
              drainingLeaseTtlMs,
              earlyToleranceMs,
              Settings.defaults().pullIdsKept());
      ControlPlaneServer server =
          ControlPlaneServer.start(
              new ControlPlaneServer.Config(
                  pki,
                  host,
                  port,
                  adminPort,
                  Alpn.parse(alpn),
                  settings,
                  Clock.systemUTC(),
                  ioThreads,
                  EventLog.to(System.out),
                  verbose,
                  transport,
                  generationsFile));
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    System.out.println(java.time.Instant.now() + " stopping (signal)");
                    server.close();
                    stopped.countDown();
                  },
                  "ql3cp-shutdown"));
      stopped.await();
      return 0;
    }
  }

  /** {@code --transport}: a typed error for anything but auto, epoll or nio. */
  static final class TransportConverter implements CommandLine.ITypeConverter<SocketTransport> {
    @Override
    public SocketTransport convert(String value) {
      try {
        return SocketTransport.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Options shared by the admin client commands. */
  static class AdminClient {
    @Option(
        names = "--admin-port",
        required = true,
        description = "The server's admin port on 127.0.0.1.")
    int adminPort;

    int call(String method, String path, String body) throws Exception {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
              .timeout(Duration.ofSeconds(30))
              .header("content-type", "application/json");
      b.method(
          method,
          body == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      HttpResponse<String> res =
          client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      (res.statusCode() / 100 == 2 ? System.out : System.err).println(res.body());
      return res.statusCode() / 100 == 2 ? 0 : 1;
    }
  }

  static String json(Object value) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(value);
  }

  @Command(
      name = "runs",
      mixinStandardHelpOptions = true,
      description = "Submit, list and cancel runs.",
      subcommands = {RunsCmd.Submit.class, RunsCmd.ListRuns.class, RunsCmd.Cancel.class})
  static final class RunsCmd implements Callable<Integer> {
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

      @Option(
          names = "--executor",
          required = true,
          description = "e.g. process, noop, sleep, fail")
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

  @Command(
      name = "sessions",
      mixinStandardHelpOptions = true,
      description = "Workers and sessions (GET /sessions).")
  static final class SessionsCmd extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("GET", "/sessions", null);
    }
  }

  @Command(
      name = "violations",
      mixinStandardHelpOptions = true,
      description = "Observed client contract violations.")
  static final class ViolationsCmd extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("GET", "/violations", null);
    }
  }

  @Command(
      name = "connections",
      mixinStandardHelpOptions = true,
      description = "Connections and request counts.")
  static final class ConnectionsCmd extends AdminClient implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return call("GET", "/connections", null);
    }
  }

  @Command(
      name = "fence",
      mixinStandardHelpOptions = true,
      description = "Fence a worker's current session.")
  static final class FenceCmd extends AdminClient implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WORKER")
    String worker;

    @Override
    public Integer call() throws Exception {
      return call("POST", "/workers/" + worker + "/fence", "{}");
    }
  }

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
  static final class FaultCmd implements Callable<Integer> {
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
}
