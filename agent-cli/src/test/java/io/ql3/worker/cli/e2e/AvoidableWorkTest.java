package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work the interpreted edge agent must not do, seen in the class-load log of a whole life of a real
 * {@code ql3-worker run} process (register, heartbeats, process and noop runs, drain, offline):
 *
 * <ul>
 *   <li>no record's generated {@code equals}, {@code hashCode} or {@code toString}: the JVM loads
 *       {@code java.lang.runtime.ObjectMethods} only to bootstrap one of those;
 *   <li>no Netty {@code JdkSslContext}: its first use builds a default TLS context from the JDK's
 *       whole CA store;
 *   <li>no JDK {@code AnchorCertificates}: the JDK's endpoint identification reads and parses its
 *       whole CA store to learn whether a chain ends at a public CA (the agent checks the server's
 *       name itself, {@code ServerNames});
 *   <li>no lambda made by {@code Comparator}'s own combinators ({@code comparingLong} and the
 *       like): they are serializable, so the class-data archive cannot hold them and the JVM spins
 *       each one at its first use;
 *   <li>none of the JDK's locale data ({@code DecimalFormatSymbols}: {@code String.format} of a
 *       number), {@code MessageFormat}, {@code DateTimeFormatter} ({@code Instant.toString}) or
 *       Jackson: each group costs the agent hundreds of KiB to megabytes of memory.
 * </ul>
 *
 * The rules and their reasons: docs/perf/code-rules.md.
 */
class AvoidableWorkTest {
  private static final Settings FAST = new Settings(5_000, 15_000, 15_000, 500, 64);

  @TempDir Path dir;

  @Test
  void aWholeLifeDoesNoneOfTheAvoidableWork() throws Exception {
    Path classLog = dir.resolve("class-load.log");
    Path indyLog = dir.resolve("indy.log");
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FAST, false)) {
      AgentProcess agent =
          AgentProcess.start(
              cp.agentConfig(""),
              "edge",
              dir.resolve("agent.log"),
              Map.of(
                  "JAVA_TOOL_OPTIONS",
                  "-Xlog:class+load=info:file="
                      + classLog
                      + " -Xlog:methodhandles+indy=debug:file="
                      + indyLog));
      try {
        agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        List<String> runs = new ArrayList<>();
        runs.addAll(cp.submit(2, "process", "{\"argv\":[\"/bin/true\"],\"cwd\":null,\"env\":{}}"));
        runs.addAll(cp.submit(1, "noop", "{}"));
        ControlPlaneFixture.await(
            "every run completes", Duration.ofSeconds(60), () -> cp.completed(runs));
        long version = cp.sessions().get(0).version();
        ControlPlaneFixture.await(
            "a heartbeat after the runs",
            Duration.ofSeconds(30),
            () -> cp.sessions().get(0).version() > version);

        agent.process.destroy(); // SIGTERM: drain, offline, exit
        assertThat(agent.process.waitFor(60, TimeUnit.SECONDS)).as(agent.output()).isTrue();
        assertThat(agent.process.exitValue()).as(agent.output()).isZero();
        assertThat(cp.sessions().get(0).status()).isEqualTo("offline");

        List<String> classes = Files.readAllLines(classLog, StandardCharsets.UTF_8);
        assertThat(classes).as("the class-load log").anyMatch(l -> l.contains("cli.Main "));
        // Which records, if any: their call sites as the JVM resolved them.
        List<String> recordSites =
            Files.readAllLines(indyLog, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains("resolve_invokedynamic"))
                .filter(l -> l.matches(".* (equals|hashCode|toString):\\(.*"))
                .toList();
        assertThat(classes.stream().filter(l -> l.contains("java.lang.runtime.ObjectMethods ")))
            .as(
                "a record's generated equals/hashCode/toString was bootstrapped at: %s",
                recordSites)
            .isEmpty();
        assertThat(classes)
            .as("Netty's JdkSslContext was loaded (see TlsContexts)")
            .noneMatch(l -> l.contains("io.netty.handler.ssl.JdkSslContext "));
        assertThat(classes)
            .as("a Comparator combinator's serializable lambda was spun")
            .noneMatch(l -> l.contains("java.util.Comparator$$Lambda"));
        for (String avoided :
            List.of(
                "java.text.DecimalFormatSymbols ",
                "java.text.MessageFormat ",
                "java.time.format.DateTimeFormatter ",
                "sun.security.util.AnchorCertificates ",
                "com.fasterxml.")) {
          assertThat(classes).as("%s was loaded", avoided).noneMatch(l -> l.contains(avoided));
        }
      } finally {
        agent.process.destroyForcibly();
        System.out.println(agent.output());
      }
    }
  }
}
