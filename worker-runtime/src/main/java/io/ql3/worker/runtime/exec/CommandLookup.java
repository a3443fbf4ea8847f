package io.ql3.worker.runtime.exec;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Checks before launch that argv[0] names an executable, the way {@code execvp} (which {@code
 * setsid} uses) will look for it: a name with a slash relative to the cwd, otherwise each directory
 * of the child's PATH. Without this check a missing program would only show as {@code setsid}'s
 * exit status 127, indistinguishable from the program's own 127.
 */
final class CommandLookup {

  private CommandLookup() {}

  static void check(String program, Path cwd, String pathValue) throws PrepareFailedException {
    try {
      if (program.indexOf('/') >= 0) {
        Path p = cwd.resolve(program);
        if (!Files.exists(p)) {
          throw notFound(program, "no such file");
        }
        if (!isExecutableFile(p)) {
          throw notExecutable(program);
        }
        return;
      }
      boolean sawNonExecutable = false;
      for (String dir : pathValue.split(":", -1)) {
        Path base = dir.isEmpty() ? cwd : cwd.resolve(dir); // empty PATH entry: current directory
        Path p = base.resolve(program);
        if (isExecutableFile(p)) {
          return;
        }
        sawNonExecutable |= Files.exists(p);
      }
      if (sawNonExecutable) {
        throw notExecutable(program);
      }
      throw notFound(program, "not found in PATH=" + pathValue);
    } catch (InvalidPathException e) {
      throw notFound(program, e.getMessage());
    }
  }

  private static boolean isExecutableFile(Path p) {
    return Files.isRegularFile(p) && Files.isExecutable(p);
  }

  private static PrepareFailedException notFound(String program, String detail) {
    return new PrepareFailedException(
        Failures.permanent("command_not_found", "cannot run " + program + ": " + detail));
  }

  private static PrepareFailedException notExecutable(String program) {
    return new PrepareFailedException(
        Failures.permanent(
            "command_not_executable", "cannot run " + program + ": not an executable file"));
  }
}
