package io.ql3.worker.cli.log;

import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import io.ql3.worker.runtime.log.EventLog;
import java.time.Clock;
import java.util.ResourceBundle;

/**
 * Routes every {@link System.Logger} of the agent's libraries (transport, journal) into the agent's
 * one-line-per-event log, so journald gets one format on stdout instead of the JDK's two-line
 * console format on stderr.
 *
 * <p>The JDK finds this class through {@link java.util.ServiceLoader} and builds it with no
 * arguments, before {@code main} could hand it anything: so the target log is the one static field
 * here, set once by the {@code run} command ({@link #install(EventLog)}). Until then lines go to
 * stderr in logfmt.
 */
public final class EventLoggerFinder extends System.LoggerFinder {
  private static volatile EventLog target =
      new EventLog(System.err, LogFormat.LOGFMT, Clock.systemUTC());

  /**
   * Sends library log lines ({@link System.Logger} and Netty's) to {@code log} from now on, at its
   * level.
   */
  public static void install(EventLog log) {
    target = log;
    NettyLogBridge.install();
  }

  static EventLog target() {
    return target;
  }

  @Override
  public System.Logger getLogger(String name, Module module) {
    return new Bridge(name);
  }

  private static final class Bridge implements System.Logger {
    private final String name;

    Bridge(String name) {
      this.name = name;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public boolean isLoggable(Level level) {
      return level != Level.OFF && level != Level.ALL && target.enabled(map(level));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      if (!isLoggable(level)) {
        return;
      }
      target.log(map(level), "log", "logger", shortName(), "msg", msg, "error", thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      if (!isLoggable(level)) {
        return;
      }
      String msg =
          params == null || params.length == 0 ? format : LogMessages.format(format, params);
      target.log(map(level), "log", "logger", shortName(), "msg", msg);
    }

    private String shortName() {
      int dot = name.lastIndexOf('.');
      return dot < 0 ? name : name.substring(dot + 1);
    }

    private static EventLog.Level map(Level level) {
      return switch (level) {
        case ERROR -> EventLog.Level.ERROR;
        case WARNING -> EventLog.Level.WARN;
        case INFO -> EventLog.Level.INFO;
        default -> EventLog.Level.DEBUG;
      };
    }
  }
}
