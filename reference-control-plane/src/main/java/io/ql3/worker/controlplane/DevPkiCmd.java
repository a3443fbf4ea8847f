package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.pki.DevPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ql3-control-plane dev-pki}: creates the development PKI ({@link DevPki}). */
@Command(
    name = "dev-pki",
    mixinStandardHelpOptions = true,
    description =
        "Create a development CA, server certificate (localhost, 127.0.0.1, ::1) and per-worker "
            + "client certificates (URI SAN ql3w://worker/ID) and tokens. Reuses an existing CA in DIR.")
final class DevPkiCmd implements Callable<Integer> {
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
