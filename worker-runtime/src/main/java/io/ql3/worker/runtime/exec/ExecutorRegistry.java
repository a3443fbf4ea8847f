package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.ExecutorInfo;
import io.ql3.worker.runtime.isolation.Isolation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The executors this agent can run and, of those, the ones the configuration enables: the only ones
 * advertised in the capability and the only ones offers may use.
 *
 * <p>Installed = the built-ins ({@code process}, {@code noop}, {@code sleep}, {@code fail}) plus
 * every {@link Executor} found by {@link ServiceLoader} on the given class loader. Nothing is
 * enabled by default: not even {@code process}, and the demo executors only when named.
 */
public final class ExecutorRegistry {

  private final Map<String, Executor> enabled; // sorted by name
  private final Set<String> installed;

  private ExecutorRegistry(Map<String, Executor> enabled, Set<String> installed) {
    this.enabled = Collections.unmodifiableMap(enabled);
    this.installed = Collections.unmodifiableSet(installed);
  }

  /**
   * Loads the installed executors and keeps the enabled ones.
   *
   * @param enabledNames executor names from the configuration
   * @param processSettings settings of the built-in {@code process} executor
   * @param loader where to look for {@code META-INF/services/io.ql3.worker.runtime.exec.Executor}
   * @throws ExecutorConfigurationException when a name is enabled but not installed, two installed
   *     executors share a name, a provider fails to load or has an invalid name or version, or
   *     {@code process} is enabled on a host without setsid
   */
  public static ExecutorRegistry load(
      Collection<String> enabledNames, ProcessExecutorSettings processSettings, ClassLoader loader)
      throws ExecutorConfigurationException {
    return load(
        enabledNames, processSettings, loader, System.getenv(), Isolation.none(), RunObserver.NONE);
  }

  /**
   * As {@link #load(Collection, ProcessExecutorSettings, ClassLoader)}, with the isolation the
   * {@code process} executor starts runs under and the observer of what each run used.
   */
  public static ExecutorRegistry load(
      Collection<String> enabledNames,
      ProcessExecutorSettings processSettings,
      ClassLoader loader,
      Isolation isolation,
      RunObserver observer)
      throws ExecutorConfigurationException {
    return load(enabledNames, processSettings, loader, System.getenv(), isolation, observer);
  }

  static ExecutorRegistry load(
      Collection<String> enabledNames,
      ProcessExecutorSettings processSettings,
      ClassLoader loader,
      Map<String, String> agentEnvironment)
      throws ExecutorConfigurationException {
    return load(
        enabledNames,
        processSettings,
        loader,
        agentEnvironment,
        Isolation.none(),
        RunObserver.NONE);
  }

  private static ExecutorRegistry load(
      Collection<String> enabledNames,
      ProcessExecutorSettings processSettings,
      ClassLoader loader,
      Map<String, String> agentEnvironment,
      Isolation isolation,
      RunObserver observer)
      throws ExecutorConfigurationException {
    Map<String, Executor> all = new TreeMap<>();
    List<Executor> candidates = new ArrayList<>();
    candidates.add(new ProcessExecutor(processSettings, agentEnvironment, isolation, observer));
    candidates.add(new NoopExecutor());
    candidates.add(new SleepExecutor());
    candidates.add(new FailExecutor());
    candidates.addAll(discover(loader));
    for (Executor e : candidates) {
      ExecutorInfo info = describe(e);
      Executor previous = all.putIfAbsent(info.name(), e);
      if (previous != null) {
        throw new ExecutorConfigurationException(
            "two installed executors are named "
                + info.name()
                + ": "
                + previous.getClass().getName()
                + " and "
                + e.getClass().getName());
      }
    }
    Map<String, Executor> chosen = new TreeMap<>();
    for (String name : enabledNames) {
      Executor e = all.get(name);
      if (e == null) {
        throw new ExecutorConfigurationException(
            "executor "
                + name
                + " is enabled in the configuration but not installed (installed: "
                + String.join(", ", all.keySet())
                + ")");
      }
      chosen.put(name, e);
    }
    if (chosen.containsKey(ProcessExecutor.NAME)) {
      ProcessExecutor.checkHost(processSettings);
    }
    return new ExecutorRegistry(chosen, new TreeSet<>(all.keySet()));
  }

  private static List<Executor> discover(ClassLoader loader) throws ExecutorConfigurationException {
    List<Executor> found = new ArrayList<>();
    Iterator<Executor> it = ServiceLoader.load(Executor.class, loader).iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          return found;
        }
        found.add(it.next());
      } catch (ServiceConfigurationError e) {
        throw new ExecutorConfigurationException(
            "cannot load an installed executor: " + e.getMessage(), e);
      }
    }
  }

  private static ExecutorInfo describe(Executor e) throws ExecutorConfigurationException {
    try {
      return e.info();
    } catch (RuntimeException bad) {
      throw new ExecutorConfigurationException(
          "executor "
              + e.getClass().getName()
              + " has an invalid name or version (name must match"
              + " ^[a-z][a-z0-9-]{0,31}$, version 1..64 printable ASCII): "
              + bad.getMessage(),
          bad);
    }
  }

  /** The enabled executors as the capability advertises them: sorted by name. */
  public List<ExecutorInfo> advertised() {
    List<ExecutorInfo> out = new ArrayList<>(enabled.size());
    for (Executor e : enabled.values()) {
      out.add(e.info());
    }
    return List.copyOf(out);
  }

  /** Names of the enabled executors, sorted. */
  public Set<String> enabledNames() {
    return Collections.unmodifiableSet(new TreeSet<>(enabled.keySet()));
  }

  /** The enabled executor of that name; empty when it is not enabled (or not installed). */
  public Optional<Executor> find(String name) {
    return Optional.ofNullable(enabled.get(name));
  }

  /** Names of every installed executor, enabled or not (for diagnostics). */
  public Set<String> installed() {
    return installed;
  }
}
