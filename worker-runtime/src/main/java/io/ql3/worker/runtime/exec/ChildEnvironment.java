package io.ql3.worker.runtime.exec;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a process run's environment. It starts clean, NOT from the agent's environment (which may
 * hold secrets): {@code PATH}, {@code HOME} (the work directory), {@code LANG}, the configured
 * pass-through names, {@code TMPDIR} (the work directory), then the spec's {@code env}, then the
 * four {@code QL3_*} variables, which always win.
 */
final class ChildEnvironment {

  private ChildEnvironment() {}

  static Map<String, String> build(
      ProcessExecutorSettings settings,
      Map<String, String> agentEnvironment,
      Map<String, String> specEnv,
      ExecutionContext context,
      Path workReal) {
    Map<String, String> env = new TreeMap<>();
    env.put("PATH", settings.path());
    env.put("HOME", workReal.toString());
    env.put("TMPDIR", workReal.toString()); // temporary files go with the work directory
    env.put("LANG", settings.lang());
    for (String name : settings.passEnvironment()) {
      String value = agentEnvironment.get(name);
      if (value != null) {
        env.put(name, value);
      }
    }
    env.putAll(specEnv);
    env.put("QL3_RUN_ID", context.runId().value());
    env.put("QL3_ATTEMPT", Long.toString(context.attempt()));
    env.put("QL3_IDEMPOTENCY_KEY", context.idempotencyKey());
    env.put("QL3_WORK_DIR", workReal.toString());
    return env;
  }
}
