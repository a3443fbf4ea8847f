package io.ql3.worker.runtime.config;

import java.nio.file.Path;

/**
 * A configuration the agent refuses, naming the file and the key at fault. The message is meant for
 * an operator reading a service log: {@code /etc/ql3-worker/agent.toml:
 * execution.max-concurrent-runs: must be in 1..8 for profile edge (got 9)}.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Path file;
  private final String key;

  public ConfigException(Path file, String key, String problem) {
    super(file + ": " + (key.isEmpty() ? "" : key + ": ") + problem);
    this.file = file;
    this.key = key;
  }

  /** The configuration file. */
  public Path file() {
    return file;
  }

  /** The dotted key at fault ({@code execution.work-dir}), or empty for the whole file. */
  public String key() {
    return key;
  }
}
