package io.ql3.worker.cli;

import static io.ql3.worker.runtime.ExitCode.CANTCREAT;
import static io.ql3.worker.runtime.ExitCode.CONFIG;
import static io.ql3.worker.runtime.ExitCode.DATAERR;
import static io.ql3.worker.runtime.ExitCode.IOERR;
import static io.ql3.worker.runtime.ExitCode.NOINPUT;
import static io.ql3.worker.runtime.ExitCode.NOPERM;
import static io.ql3.worker.runtime.ExitCode.OK;
import static io.ql3.worker.runtime.ExitCode.PROTOCOL;
import static io.ql3.worker.runtime.ExitCode.SOFTWARE;
import static io.ql3.worker.runtime.ExitCode.TEMPFAIL;
import static io.ql3.worker.runtime.ExitCode.UNAVAILABLE;
import static io.ql3.worker.runtime.ExitCode.USAGE;

import io.ql3.worker.runtime.ExitCode;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Which {@link ExitCode}s each command can return. The usage text of every command lists them
 * (picocli's exit-code list through {@link Help}; {@code run}, parsed without picocli, owns its
 * set: {@link RunCommand#EXIT_CODES}), and agent-cli's {@code ExitCodeDocsTest} checks the README's
 * command table against them. Every command parsed by picocli can also return {@link
 * ExitCode#USAGE} and {@link ExitCode#SOFTWARE}.
 */
final class CommandExitCodes {
  private static final Map<Class<?>, Set<ExitCode>> BY_COMMAND =
      Map.ofEntries(
          Map.entry(Commands.class, EnumSet.of(OK, USAGE)),
          Map.entry(Commands.Run.class, RunCommand.EXIT_CODES),
          Map.entry(Commands.Version.class, EnumSet.of(OK, USAGE, SOFTWARE)),
          Map.entry(Commands.CapabilityCmd.class, EnumSet.of(OK, USAGE, SOFTWARE, CONFIG)),
          Map.entry(
              Commands.Check.class,
              EnumSet.of(
                  OK, USAGE, UNAVAILABLE, SOFTWARE, CANTCREAT, TEMPFAIL, PROTOCOL, NOPERM, CONFIG)),
          Map.entry(
              StatusCommand.class,
              EnumSet.of(OK, USAGE, DATAERR, NOINPUT, UNAVAILABLE, SOFTWARE, TEMPFAIL, CONFIG)),
          Map.entry(JournalCmd.class, EnumSet.of(OK, USAGE)),
          Map.entry(
              JournalCmd.Inspect.class, EnumSet.of(OK, USAGE, SOFTWARE, IOERR, NOPERM, CONFIG)),
          Map.entry(
              JournalCmd.Verify.class, EnumSet.of(OK, USAGE, SOFTWARE, IOERR, NOPERM, CONFIG)),
          Map.entry(
              JournalCmd.Resolve.class, EnumSet.of(OK, USAGE, SOFTWARE, TEMPFAIL, NOPERM, CONFIG)),
          Map.entry(
              JournalCmd.DiscardDamaged.class,
              EnumSet.of(OK, USAGE, SOFTWARE, IOERR, TEMPFAIL, NOPERM, CONFIG)));

  private static final Set<ExitCode> OTHERWISE = EnumSet.of(OK, USAGE, SOFTWARE, CONFIG);

  private CommandExitCodes() {}

  /** The codes the command implemented by {@code commandClass} can return. */
  static Set<ExitCode> of(Class<?> commandClass) {
    return BY_COMMAND.getOrDefault(commandClass, OTHERWISE);
  }

  /** Adds a command's exit codes to its usage help ({@code @Command(modelTransformer = ...)}). */
  static final class Help implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      Object command = spec.userObject();
      if (command == null) {
        return spec;
      }
      Map<String, String> list = new LinkedHashMap<>();
      for (ExitCode e : of(command.getClass())) {
        list.put(String.format("%2d", e.code()), e.plainMeaning());
      }
      spec.usageMessage().exitCodeListHeading("Exit codes:%n").exitCodeList(list);
      return spec;
    }
  }
}
