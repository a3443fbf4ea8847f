package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** {@code --help} and {@code --version} work on every command and subcommand, and exit 0. */
class HelpAndVersionTest {
  /** Every command path, found from the command tree itself (a new command is covered too). */
  static Stream<List<String>> commands() {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of());
    walk(new CommandLine(new Commands()), new ArrayList<>(), out);
    return out.stream();
  }

  private static void walk(CommandLine cl, List<String> path, List<List<String>> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      List<String> p = new ArrayList<>(path);
      p.add(e.getKey());
      out.add(p);
      walk(e.getValue(), p, out);
    }
  }

  private record Result(int code, String out, String err) {}

  @org.junit.jupiter.api.Test
  void runHasBothToo() {
    Result help = run(List.of("run"), "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("Usage: ql3-worker run");
    Result version = run(List.of("run"), "--version");
    assertThat(version.code()).isZero();
    assertThat(version.out().strip()).isEqualTo(Commands.versionLine());
  }

  private static Result run(List<String> path, String option) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args = new ArrayList<>(path);
    args.add(option);
    int code =
        Main.execute(
            args.toArray(String[]::new),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @MethodSource("commands")
  void helpPrintsUsageAndExitsZero(List<String> path) {
    Result r = run(path, "--help");
    assertThat(r.code()).as(r.err()).isZero();
    String name = path.equals(List.of("help")) ? "" : String.join(" ", path);
    assertThat(r.out()).contains("Usage: ql3-worker" + (name.isEmpty() ? "" : " " + name));
  }

  /** Every command but picocli's {@code help} (whose arguments name the command to explain). */
  static Stream<List<String>> versionCommands() {
    return commands().filter(p -> !p.equals(List.of("help")));
  }

  @ParameterizedTest
  @MethodSource("versionCommands")
  void versionPrintsTheVersionLineAndExitsZero(List<String> path) {
    Result r = run(path, "--version");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().strip()).isEqualTo(Commands.versionLine());
  }
}
