package io.ql3.worker.runtime;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.stream.Collectors;

/**
 * Every process exit code of the agent ({@code ql3-worker run}) and of the other {@code ql3-worker}
 * commands, with its sysexits(3) name and what it means. The only owner of these numbers: the code
 * returns them, the usage text is generated from them, agent-cli's {@code ExitCodeDocsTest} checks
 * the README table and the systemd unit's {@code RestartPreventExitStatus} against them.
 */
public enum ExitCode {
  OK(
      0,
      "EX_OK",
      "success: `run` stopped cleanly or is disabled (`enabled = false`); `status`: the agent is running;"
          + " otherwise done, or everything checked is usable",
      false),
  USAGE(64, "EX_USAGE", "usage error: an unknown option, a missing or invalid value", true),
  DATAERR(65, "EX_DATAERR", "the status file cannot be read", false),
  NOINPUT(66, "EX_NOINPUT", "no status file (the agent never ran with this configuration)", false),
  UNAVAILABLE(
      69,
      "EX_UNAVAILABLE",
      "not there: `check --connect`: the connection was refused or closed; `status`: the agent is not running"
          + " (stopped, gone or stale: the reason is printed)",
      false),
  SOFTWARE(70, "EX_SOFTWARE", "internal error (a bug: the log says what)", false),
  CANTCREAT(73, "EX_CANTCREAT", "the journal or work directory is not writable", false),
  IOERR(74, "EX_IOERR", "journal I/O failure", false),
  TEMPFAIL(
      75,
      "EX_TEMPFAIL",
      "try later: the journal is owned by another process, a connect or TLS handshake timed out,"
          + " or `status --wait-ready` timed out",
      false),
  PROTOCOL(
      76,
      "EX_PROTOCOL",
      "TLS failure: the server chain is not trusted by `credentials.trust`, a name mismatch, or no TLS 1.3",
      false),
  NOPERM(
      77,
      "EX_NOPERM",
      "credentials unusable (`run`: when the connection is opened; at start they are waited for),"
          + " `check --connect`: the server refused the client certificate, or a `journal` command"
          + " may not read the journal or runs as another user than its owner",
      false),
  CONFIG(
      78,
      "EX_CONFIG",
      "configuration refused or journal recovery required (also: the certificate identity differs from"
          + " `worker.id`, or `isolation = \"required\"` and a part of it is missing)",
      true);

  private final int code;
  private final String sysexitsName;
  private final String meaning;
  private final boolean restartCannotFix;

  ExitCode(int code, String sysexitsName, String meaning, boolean restartCannotFix) {
    this.code = code;
    this.sysexitsName = sysexitsName;
    this.meaning = meaning;
    this.restartCannotFix = restartCannotFix;
  }

  /** The process exit status. */
  public int code() {
    return code;
  }

  /** The sysexits(3) name, e.g. {@code EX_CONFIG}. */
  public String sysexitsName() {
    return sysexitsName;
  }

  /** One line: what the code means, for every command that returns it. */
  public String meaning() {
    return meaning;
  }

  /**
   * Restarting the service cannot help (an operator must act): the systemd unit lists exactly these
   * in {@code RestartPreventExitStatus}.
   */
  public boolean restartCannotFix() {
    return restartCannotFix;
  }

  /**
   * The constant for {@code code}. @throws IllegalArgumentException for a number not listed here
   */
  public static ExitCode of(int code) {
    return Arrays.stream(values())
        .filter(e -> e.code == code)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("not an exit code of ql3-worker: " + code));
  }

  /** The codes whose restart cannot help, in order (for the systemd unit). */
  public static EnumSet<ExitCode> restartPrevented() {
    return Arrays.stream(values())
        .filter(ExitCode::restartCannotFix)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(ExitCode.class)));
  }

  /**
   * Usage-text lines for {@code codes}, ascending: {@code " 78 configuration refused ..."}
   * (backticks of the README's markdown dropped), wrapped at {@code width} columns with the
   * continuation lines indented under the meaning.
   */
  public static String usageLines(Collection<ExitCode> codes, int width) {
    StringBuilder b = new StringBuilder();
    for (ExitCode e : EnumSet.copyOf(codes)) {
      StringBuilder line = new StringBuilder(String.format("  %2d ", e.code));
      for (String word : e.plainMeaning().split(" ")) {
        if (line.length() + 1 + word.length() > width && line.length() > 6) {
          b.append(line).append('\n');
          line = new StringBuilder("     ");
        }
        line.append(' ').append(word);
      }
      b.append(line).append('\n');
    }
    return b.toString().stripTrailing();
  }

  /** {@link #meaning()} without markdown backticks, for terminal text. */
  public String plainMeaning() {
    return meaning.replace("`", "");
  }
}
