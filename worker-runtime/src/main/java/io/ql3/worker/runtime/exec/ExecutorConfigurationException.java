package io.ql3.worker.runtime.exec;

/**
 * The executor configuration cannot work: an enabled executor is not installed, two installed
 * executors share a name, an installed one has an invalid name or version or fails to load, or the
 * host lacks what the process executor needs. The agent stops before registering.
 */
public final class ExecutorConfigurationException extends Exception {

  private static final long serialVersionUID = 1L;

  public ExecutorConfigurationException(String message) {
    super(message);
  }

  public ExecutorConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
