package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.runtime.ExitCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@link ExitCode} is the one owner of the exit codes: the README's exit-code table is exactly the
 * enum (every code, name and meaning, in order), the README's command table lists exactly the codes
 * each command declares, every command's usage help lists them, and the systemd unit's {@code
 * RestartPreventExitStatus} is exactly the codes a restart cannot fix.
 */
class ExitCodeDocsTest {
  static final Path README = Path.of("..", "README.md");
  static final Path UNIT = Path.of("..", "packaging", "src", "systemd", "ql3-worker@.service");

  /** The README's command section, up to the next section. */
  private static List<String> commandSection() throws IOException {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int start = readme.indexOf("## The `ql3-worker` command");
    assertThat(start).as("README section 'The ql3-worker command'").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    return List.of(readme.substring(start, end < 0 ? readme.length() : end).split("\n"));
  }

  /** The cells of a markdown table row (escaped pipes stay inside their cell). */
  private static List<String> cells(String row) {
    String inner = row.strip().substring(1, row.strip().length() - 1);
    List<String> out = new ArrayList<>();
    for (String c : inner.split("(?<!\\\\)\\|", -1)) {
      out.add(c.strip());
    }
    return out;
  }

  @Test
  void theReadmeExitCodeTableIsTheEnum() throws IOException {
    List<String> documented =
        commandSection().stream()
            .filter(l -> l.matches("\\| \\d+ \\| `EX_[A-Z]+` \\|.*"))
            .map(
                l -> {
                  List<String> c = cells(l);
                  return c.get(0) + " " + c.get(1) + " " + c.get(2);
                })
            .toList();
    List<String> expected =
        Arrays.stream(ExitCode.values())
            .map(e -> e.code() + " `" + e.sysexitsName() + "` " + e.meaning())
            .toList();
    assertThat(documented).containsExactlyElementsOf(expected);
  }

  /** The README's name of each command → the command class whose codes it must list. */
  private static final Map<String, List<Class<?>>> README_COMMANDS =
      Map.of(
          "run", List.of(Commands.Run.class),
          "check", List.of(Commands.Check.class),
          "status", List.of(StatusCommand.class),
          "journal inspect\\|verify", List.of(JournalCmd.Inspect.class, JournalCmd.Verify.class),
          "journal resolve", List.of(JournalCmd.Resolve.class),
          "journal discard-damaged", List.of(JournalCmd.DiscardDamaged.class),
          "capability", List.of(Commands.CapabilityCmd.class),
          "version", List.of(Commands.Version.class));

  @Test
  void theReadmeCommandTableListsEachCommandsCodes() throws IOException {
    Map<String, Set<Integer>> documented = new LinkedHashMap<>();
    for (String l : commandSection()) {
      if (!l.startsWith("| `ql3-worker ")) {
        continue;
      }
      List<String> c = cells(l);
      String command =
          README_COMMANDS.keySet().stream()
              .filter(
                  k ->
                      c.get(0).startsWith("`ql3-worker " + k + " ")
                          || c.get(0).equals("`ql3-worker " + k + "`"))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("README row of an unknown command: " + c.get(0)));
      documented.put(
          command,
          Arrays.stream(c.get(c.size() - 1).split(",\\s*"))
              .map(Integer::valueOf)
              .collect(Collectors.toCollection(TreeSet::new)));
    }
    assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(README_COMMANDS.keySet());
    README_COMMANDS.forEach(
        (command, classes) -> {
          for (Class<?> k : classes) {
            assertThat(documented.get(command))
                .as("README exit codes of " + command)
                .isEqualTo(
                    CommandExitCodes.of(k).stream()
                        .map(ExitCode::code)
                        .collect(Collectors.toCollection(TreeSet::new)));
          }
        });
  }

  @Test
  void everyCommandHasAReadmeRow() {
    List<CommandLine> all = new ArrayList<>();
    collect(new CommandLine(new Commands()), all);
    Set<Class<?>> documented =
        README_COMMANDS.values().stream().flatMap(List::stream).collect(Collectors.toSet());
    for (CommandLine cl : all) {
      if (cl.getSubcommands().isEmpty() && !(cl.getCommand() instanceof CommandLine.HelpCommand)) {
        assertThat(documented).as(cl.getCommandName()).contains(cl.getCommand().getClass());
      }
    }
  }

  @Test
  void everyCommandsUsageListsItsCodes() {
    List<CommandLine> all = new ArrayList<>();
    collect(new CommandLine(new Commands()), all);
    for (CommandLine cl : all) {
      if (cl.getCommand() instanceof CommandLine.HelpCommand) {
        continue;
      }
      String usage = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertThat(usage).as(cl.getCommandName()).contains("Exit codes:");
      for (ExitCode e : CommandExitCodes.of(cl.getCommand().getClass())) {
        assertThat(usage).as(cl.getCommandName()).contains(String.format("%2d", e.code()));
      }
    }
    String run = RunCommand.usage().replaceAll("\\s+", " ");
    for (ExitCode e : RunCommand.EXIT_CODES) {
      assertThat(run).contains(" " + e.code() + " " + e.plainMeaning());
    }
  }

  private static void collect(CommandLine cl, List<CommandLine> out) {
    out.add(cl);
    cl.getSubcommands().values().forEach(c -> collect(c, out));
  }

  @Test
  void theUnitDoesNotRestartOnExactlyTheCodesARestartCannotFix() throws IOException {
    List<String> lines =
        Files.readAllLines(UNIT, StandardCharsets.UTF_8).stream()
            .filter(l -> l.startsWith("RestartPreventExitStatus="))
            .toList();
    assertThat(lines).hasSize(1);
    Set<Integer> unit =
        Arrays.stream(
                lines.get(0).substring("RestartPreventExitStatus=".length()).strip().split("\\s+"))
            .map(Integer::valueOf)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(unit)
        .isEqualTo(
            ExitCode.restartPrevented().stream()
                .map(ExitCode::code)
                .collect(Collectors.toCollection(TreeSet::new)));
  }
}
