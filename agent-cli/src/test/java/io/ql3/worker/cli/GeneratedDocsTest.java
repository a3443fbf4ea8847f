package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.AutoComplete;
import picocli.CommandLine;

/**
 * The bash completion and the man page the package ships are generated from the command tree by
 * picocli, and checked in under packaging/src/generated (the packaging build runs no Java). This
 * test fails when they are stale; regenerate with {@code mvn -pl agent-cli test
 * -Dtest=GeneratedDocsTest -Dql3.regenerate=true}, then the shipped man page with {@code gzip -9n
 * -c ql3-worker.1 > ql3-worker.1.gz} in packaging/src/generated (package-check compares it).
 */
class GeneratedDocsTest {
  static final Path DIR = Path.of("..", "packaging", "src", "generated");

  /** Sourced by bash-completion, not executed: without picocli's hashbang line. */
  static String completion() {
    String script = AutoComplete.bash("ql3-worker", new CommandLine(new Commands()));
    return script.startsWith("#!") ? script.substring(script.indexOf('\n') + 1) : script;
  }

  /** ql3-worker(1): every command's usage help, as picocli prints it, in one roff page. */
  static String manPage() {
    CommandLine root = new CommandLine(new Commands());
    StringBuilder b = new StringBuilder();
    b.append(".\\\" Generated from the picocli command tree by GeneratedDocsTest; do not edit.\n");
    b.append(".TH QL3-WORKER 1 \"\" \"ql3-worker\" \"User Commands\"\n");
    b.append(".SH NAME\nql3-worker \\- remote execution agent for a Cluster Control ingress\n");
    b.append(".SH SYNOPSIS\n.B ql3-worker\n.I COMMAND\n[\\fIOPTIONS\\fR]\n");
    b.append(".SH DESCRIPTION\n");
    preformatted(b, root.getUsageMessage(CommandLine.Help.Ansi.OFF));
    b.append(".SH COMMANDS\n");
    b.append(".SS run\n");
    preformatted(b, RunCommand.usage());
    for (String[] path : paths(root)) {
      if (path[0].equals("run") || path[0].equals("help")) {
        continue;
      }
      CommandLine cl = root;
      for (String p : path) {
        cl = cl.getSubcommands().get(p);
      }
      b.append(".SS ").append(String.join(" ", path)).append('\n');
      preformatted(b, cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
    }
    b.append(
        ".SH FILES\n/etc/ql3-worker/agent.toml, /etc/ql3-worker/NAME.toml, /etc/ql3-worker/credentials/,\n"
            + "/var/lib/ql3-worker/\n");
    b.append(".SH SEE ALSO\n/usr/share/doc/ql3-worker/install.md\n");
    return b.toString();
  }

  private static List<String[]> paths(CommandLine cl) {
    List<String[]> out = new ArrayList<>();
    walk(cl, new ArrayList<>(), out);
    return out;
  }

  private static void walk(CommandLine cl, List<String> path, List<String[]> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      List<String> p = new ArrayList<>(path);
      p.add(e.getKey());
      out.add(p.toArray(String[]::new));
      walk(e.getValue(), p, out);
    }
  }

  private static void preformatted(StringBuilder b, String text) {
    b.append(".nf\n");
    for (String line : text.stripTrailing().split("\n", -1)) {
      String l = line.replace("\\", "\\e");
      if (l.startsWith(".") || l.startsWith("'")) {
        l = "\\&" + l;
      }
      b.append(l).append('\n');
    }
    b.append(".fi\n");
  }

  private static void compareOrRegenerate(String name, String expected) throws IOException {
    Path f = DIR.resolve(name);
    if (Boolean.getBoolean("ql3.regenerate")) {
      Files.createDirectories(DIR);
      Files.writeString(f, expected, StandardCharsets.UTF_8);
    }
    assertThat(
            Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "<missing " + f + ">")
        .as(f + " is stale: mvn -pl agent-cli test -Dtest=GeneratedDocsTest -Dql3.regenerate=true")
        .isEqualTo(expected);
  }

  @Test
  void theShippedBashCompletionIsTheCommandTreesOwn() throws IOException {
    compareOrRegenerate("ql3-worker.bash-completion", completion());
  }

  @Test
  void theShippedManPageIsTheCommandTreesUsageHelp() throws IOException {
    String man = manPage();
    assertThat(man)
        .contains(".SS check")
        .contains(".SS journal inspect")
        .contains(".SS status")
        .contains("--wait-ready");
    compareOrRegenerate("ql3-worker.1", man);
  }
}
