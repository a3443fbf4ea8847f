package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorSpec;
import io.ql3.worker.contract.ProcessSpec;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.IsolationHost;
import io.ql3.worker.runtime.isolation.RunAccount;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in {@code process} executor: runs argv directly (no shell) as the leader of a new
 * session and process group, isolated as {@link Isolation} says (run account, own cgroup), in a
 * clean environment, in a directory inside the run's work directory, with stdout and stderr merged
 * into a bounded, rotated log the agent alone writes. See docs/executors.md.
 */
final class ProcessExecutor implements Executor {

  static final String NAME = ProcessSpec.EXECUTOR;
  static final String VERSION = "1";

  private final ProcessExecutorSettings settings;
  private final Map<String, String> agentEnvironment;
  private final Isolation isolation;
  private final RunObserver observer;

  ProcessExecutor(ProcessExecutorSettings settings, Map<String, String> agentEnvironment) {
    this(settings, agentEnvironment, Isolation.none(), RunObserver.NONE);
  }

  ProcessExecutor(
      ProcessExecutorSettings settings,
      Map<String, String> agentEnvironment,
      Isolation isolation,
      RunObserver observer) {
    this.settings = settings;
    // Keep only the pass-through names: the rest of the agent's environment is none of a run's
    // business.
    Map<String, String> passed = new HashMap<>();
    for (String name : settings.passEnvironment()) {
      String value = agentEnvironment.get(name);
      if (value != null) {
        passed.put(name, value);
      }
    }
    this.agentEnvironment = Map.copyOf(passed);
    this.isolation = isolation;
    this.observer = observer;
  }

  /** Checks that this host can run processes the way this executor does. */
  static void checkHost(ProcessExecutorSettings settings) throws ExecutorConfigurationException {
    IsolationHost host = IsolationHost.system();
    for (Path tool : List.of(settings.setsid(), host.setpriv(), host.env())) {
      if (!Files.isRegularFile(tool) || !Files.isExecutable(tool)) {
        throw new ExecutorConfigurationException(
            "the process executor needs "
                + tool
                + " (util-linux setsid and setpriv, coreutils env),"
                + " which is missing or not executable");
      }
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public void validate(ExecutorSpec spec) throws SpecRejectedException {
    if (!(spec instanceof ProcessSpec)) {
      throw new SpecRejectedException("not a process spec: " + spec.getClass().getSimpleName());
    }
  }

  @Override
  public PreparedRun prepare(ExecutorSpec spec, ExecutionContext context)
      throws PrepareFailedException {
    if (!(spec instanceof ProcessSpec)) {
      throw new IllegalArgumentException("prepare called with a spec validate() refuses");
    }
    ProcessSpec process = (ProcessSpec) spec;
    Optional<RunAccount> account;
    try {
      account = isolation.acquireAccount();
    } catch (IllegalStateException e) {
      throw new PrepareFailedException(Failures.transientFailure("prepare_failed", e.getMessage()));
    }
    try {
      return prepareIn(process, context, account);
    } catch (PrepareFailedException | RuntimeException e) {
      account.ifPresent(isolation::releaseAccount); // nothing ran as it, no directory was made
      throw e;
    }
  }

  private PreparedRun prepareIn(
      ProcessSpec process, ExecutionContext context, Optional<RunAccount> account)
      throws PrepareFailedException {
    Path workReal;
    Path cwd;
    Path launchDir;
    String cwdBelow = null;
    Path dir = context.workDirectory();
    try {
      if (account.isPresent()) {
        // The run's account makes its work directory at launch (Isolation's work stage): nobody
        // else, the agent included, can enter it.
        workReal = dir.getParent().toRealPath().resolve(dir.getFileName());
        if (Files.exists(workReal, LinkOption.NOFOLLOW_LINKS)) {
          throw new PrepareFailedException(
              Failures.transientFailure(
                  "prepare_failed",
                  "work directory "
                      + dir
                      + " exists already (left by an earlier run, removed at the next start)"));
        }
      } else {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(dir.getParent());
          Files.createDirectory(dir);
        }
        workReal = dir.toRealPath();
      }
    } catch (IOException e) {
      throw new PrepareFailedException(
          Failures.transientFailure(
              "prepare_failed",
              "cannot create work directory " + context.workDirectory() + ": " + e),
          e);
    }
    if (account.isPresent()) {
      cwdBelow = process.cwd() == null ? null : WorkingDirectory.lexical(workReal, process.cwd());
      cwd = cwdBelow == null ? workReal : workReal.resolve(cwdBelow);
      launchDir = workReal.getParent();
    } else {
      cwd = WorkingDirectory.resolve(workReal, process.cwd());
      launchDir = cwd;
    }
    Map<String, String> env =
        ChildEnvironment.build(settings, agentEnvironment, process.env(), context, workReal);
    CommandLookup.check(process.argv().get(0), cwd, env.get("PATH"));
    String badName = Isolation.checkProgramName(process.argv().get(0));
    if (badName != null) {
      throw new PrepareFailedException(Failures.permanent("command_name_unsupported", badName));
    }

    // The command (entry helper, setsid, setpriv, env, argv) is set at launch, with the cgroup.
    // The helpers get a fixed environment: the run's own starts at its program (Isolation).
    ProcessBuilder builder =
        new ProcessBuilder(process.argv())
            .directory(launchDir.toFile())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(Isolation.HELPER_ENVIRONMENT);

    RotatingLog log;
    try {
      log = RotatingLog.create(context.outputLog(), settings.maxLogBytes());
    } catch (IOException e) {
      throw new PrepareFailedException(
          Failures.transientFailure(
              "prepare_failed", "cannot create output log " + context.outputLog() + ": " + e),
          e);
    }
    return new ProcessRun(
        context,
        settings,
        isolation,
        observer,
        new ProcessLaunch(account, workReal, cwdBelow, process.argv(), env, builder),
        log);
  }
}
