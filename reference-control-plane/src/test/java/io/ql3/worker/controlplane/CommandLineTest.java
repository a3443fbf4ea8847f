package io.ql3.worker.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The reference server's command line as its scripts and docs use it: the subcommands it offers,
 * help, and the exit codes of a usage error (2) and of an admin call that reaches no server (1).
 */
class CommandLineTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = new CommandLine(new Main());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void helpListsEverySubcommand() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains(
            "dev-pki", "serve", "runs", "sessions", "violations", "connections", "fence", "fault");
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertThat(run()).isEqualTo(2);
    assertThat(run("runs")).isEqualTo(2);
    assertThat(run("fault")).isEqualTo(2);
    assertThat(run("--no-such-option")).isEqualTo(2);
    assertThat(err.toString()).contains("--no-such-option");
  }

  @Test
  void anAdminCallThatReachesNoServerExitsWithOne() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    assertThat(run("sessions", "--admin-port", String.valueOf(port))).isEqualTo(1);
  }
}
