package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import io.ql3.worker.runtime.log.EventLog;
import java.util.Optional;

/**
 * Reads the {@code [log]} table: the format of the lines on stdout (default {@code logfmt}) and the
 * level (default {@code info}).
 *
 * <p>Errors ({@link ConfigException}): {@code log.format} other than {@code "logfmt"} or {@code
 * "json"}; {@code log.level} that {@link EventLog.Level#fromText} refuses; either not a string.
 */
final class LogReader {
  private LogReader() {}

  /** {@code log.format}. */
  static LogFormat format(ConfigTable log) throws ConfigException {
    LogFormat logFormat = LogFormat.LOGFMT;
    Optional<String> format = log.optionalString("format");
    if (format.isPresent()) {
      switch (format.get()) {
        case "logfmt" -> logFormat = LogFormat.LOGFMT;
        case "json" -> logFormat = LogFormat.JSON;
        default ->
            throw log.error(
                "format", "must be \"logfmt\" or \"json\" (got \"" + format.get() + "\")");
      }
    }
    return logFormat;
  }

  /** {@code log.level}. */
  static EventLog.Level level(ConfigTable log) throws ConfigException {
    EventLog.Level logLevel = EventLog.Level.INFO;
    Optional<String> level = log.optionalString("level");
    if (level.isPresent()) {
      try {
        logLevel = EventLog.Level.fromText(level.get());
      } catch (IllegalArgumentException e) {
        throw log.error("level", e.getMessage());
      }
    }
    return logLevel;
  }
}
