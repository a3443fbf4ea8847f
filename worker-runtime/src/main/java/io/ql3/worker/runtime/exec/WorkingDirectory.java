package io.ql3.worker.runtime.exec;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Resolves a spec's relative {@code cwd} under the run's work directory, refusing any escape:
 * lexical ({@code ..}, absolute) and physical (a symlink, at any depth, leading outside). Missing
 * directories are created (a fresh work directory has none), one level at a time, each checked.
 */
final class WorkingDirectory {

  private WorkingDirectory() {}

  /**
   * @param workReal the work directory, already a real path (symlinks resolved)
   * @return the real path of the directory to run in
   */
  static Path resolve(Path workReal, String cwd) throws PrepareFailedException {
    if (cwd == null) {
      return workReal;
    }
    Path target = workReal.resolve(lexical(workReal, cwd)).normalize();
    Path current = workReal;
    try {
      for (Path name : workReal.relativize(target)) {
        Path next = current.resolve(name);
        if (!Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
          try {
            Files.createDirectory(next);
          } catch (FileAlreadyExistsException raced) {
            // created meanwhile: checked below like any existing entry
          }
        }
        Path real = next.toRealPath();
        if (!real.startsWith(workReal)) {
          throw escape("cwd " + cwd + " leads outside the work directory through a symlink");
        }
        if (!Files.isDirectory(real)) {
          throw new PrepareFailedException(
              Failures.permanent("cwd_not_directory", "cwd " + cwd + " is not a directory"));
        }
        current = real;
      }
    } catch (IOException e) {
      throw new PrepareFailedException(
          Failures.transientFailure(
              "prepare_failed", "cannot create cwd " + cwd + ": " + e.getMessage()),
          e);
    }
    return current;
  }

  /**
   * The lexical half of {@link #resolve}, for a work directory that does not exist yet (a run
   * account creates it, and its cwd, as itself: nothing is there to lead elsewhere).
   *
   * @return {@code cwd} normalized, relative to the work directory ("" for the directory itself)
   */
  static String lexical(Path workReal, String cwd) throws PrepareFailedException {
    String problem = cwdProblem(cwd);
    if (problem != null) {
      throw escape("cwd " + problem);
    }
    Path target = workReal.resolve(cwd).normalize();
    if (!target.startsWith(workReal)) {
      throw escape("cwd " + cwd + " leaves the work directory");
    }
    return workReal.relativize(target).toString();
  }

  /**
   * The contract's lexical rule (already enforced by ProcessSpec; checked again because this class
   * is the last line before a directory is created): not empty, not absolute, no {@code ..}
   * segment, no backslash, no NUL. Returns what is wrong, or null.
   */
  static String cwdProblem(String cwd) {
    if (cwd.isEmpty()) {
      return "is empty";
    }
    if (cwd.startsWith("/")) {
      return "is absolute";
    }
    if (cwd.indexOf('\\') >= 0) {
      return "contains a backslash";
    }
    if (cwd.indexOf('\0') >= 0) {
      return "contains NUL";
    }
    for (String segment : cwd.split("/", -1)) {
      if (segment.equals("..")) {
        return "has a '..' segment";
      }
    }
    return null;
  }

  private static PrepareFailedException escape(String message) {
    return new PrepareFailedException(Failures.permanent("cwd_outside_work_dir", message));
  }
}
