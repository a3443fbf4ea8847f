package io.ql3.worker.runtime;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.ExecutorInfo;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.exec.ExecutorConfigurationException;
import io.ql3.worker.runtime.exec.ExecutorRegistry;
import io.ql3.worker.runtime.exec.ProcessExecutorSettings;
import io.ql3.worker.runtime.exec.RunObserver;
import io.ql3.worker.runtime.isolation.Isolation;

/**
 * The one place that turns a configuration into the executors this agent runs and the canonical
 * capability it advertises (used by {@code run}, {@code check} and {@code capability} alike).
 */
public final class AgentCapability {
  private AgentCapability() {}

  /**
   * The enabled executors: built-ins and ServiceLoader ones, as the configuration names them (for
   * the capability and {@code check}: runs started through them are not isolated).
   */
  public static ExecutorRegistry executors(AgentConfig config)
      throws ExecutorConfigurationException {
    return executors(config, Isolation.none(), RunObserver.NONE);
  }

  /** The enabled executors, the {@code process} executor starting runs under {@code isolation}. */
  public static ExecutorRegistry executors(
      AgentConfig config, Isolation isolation, RunObserver observer)
      throws ExecutorConfigurationException {
    ProcessExecutorSettings d = ProcessExecutorSettings.defaults();
    ProcessExecutorSettings process =
        new ProcessExecutorSettings(
            config.execution().permanentExitCodes(),
            config.execution().outputLogBytes(),
            d.killGrace(),
            d.outputDrainTimeout(),
            d.path(),
            d.lang(),
            d.passEnvironment(),
            d.setsid());
    return ExecutorRegistry.load(
        config.execution().executors(),
        process,
        AgentCapability.class.getClassLoader(),
        isolation,
        observer);
  }

  /** The canonical capability snapshot (refused over 16384 canonical bytes). */
  public static Capability capability(
      AgentConfig config, ExecutorRegistry executors, BuildInfo build) throws ContractViolation {
    CapabilityBuilder b =
        new CapabilityBuilder()
            .agent(build.version(), build.revision())
            .architecture(CapabilityBuilder.architectureOf(System.getProperty("os.arch")))
            .os("linux")
            .runtime("java", System.getProperty("java.version"))
            .labels(config.labels())
            .limits(
                config.execution().maxConcurrentRuns(),
                config.execution().maxSpecBytes(),
                config.execution().pullPage())
            .profile(config.profile() == AgentProfile.EDGE ? Profile.EDGE : Profile.NODE);
    for (ExecutorInfo e : executors.advertised()) {
      b.executor(e.name(), e.version());
    }
    return b.build();
  }
}
