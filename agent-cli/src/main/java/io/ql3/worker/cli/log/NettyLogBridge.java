package io.ql3.worker.cli.log;

import io.netty.util.internal.logging.AbstractInternalLogger;
import io.netty.util.internal.logging.FormattingTuple;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.MessageFormatter;
import io.ql3.worker.runtime.log.EventLog;

/**
 * Netty's own logging (leak reports, event-loop failures, native library loading) into the agent's
 * event log, like {@link EventLoggerFinder} does for {@link System.Logger}: without it Netty picks
 * java.util.logging and writes two-line records to stderr that the level and the journald
 * priorities never see. Installed by {@link #install()} before anything touches Netty. Trace maps
 * to debug.
 */
final class NettyLogBridge extends AbstractInternalLogger {
  private static final long serialVersionUID = 1L;

  private NettyLogBridge(String name) {
    super(name);
  }

  /** Makes every Netty logger created from now on write to the event log. */
  static void install() {
    InternalLoggerFactory.setDefaultFactory(
        new InternalLoggerFactory() {
          @Override
          protected InternalLogger newInstance(String name) {
            return new NettyLogBridge(name);
          }
        });
  }

  private static boolean enabled(EventLog.Level level) {
    return EventLoggerFinder.target().enabled(level);
  }

  private void write(EventLog.Level level, FormattingTuple t) {
    write(level, t.getMessage(), t.getThrowable());
  }

  private void write(EventLog.Level level, String msg, Throwable thrown) {
    if (!enabled(level)) {
      return;
    }
    String n = name();
    EventLoggerFinder.target()
        .log(
            level,
            "log",
            "logger",
            n.substring(n.lastIndexOf('.') + 1),
            "msg",
            msg,
            "error",
            thrown);
  }

  @Override
  public boolean isTraceEnabled() {
    return enabled(EventLog.Level.DEBUG);
  }

  @Override
  public void trace(String msg) {
    write(EventLog.Level.DEBUG, msg, null);
  }

  @Override
  public void trace(String format, Object arg) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.format(format, arg));
    }
  }

  @Override
  public void trace(String format, Object a, Object b) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.format(format, a, b));
    }
  }

  @Override
  public void trace(String format, Object... args) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.arrayFormat(format, args));
    }
  }

  @Override
  public void trace(String msg, Throwable t) {
    write(EventLog.Level.DEBUG, msg, t);
  }

  @Override
  public boolean isDebugEnabled() {
    return enabled(EventLog.Level.DEBUG);
  }

  @Override
  public void debug(String msg) {
    write(EventLog.Level.DEBUG, msg, null);
  }

  @Override
  public void debug(String format, Object arg) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.format(format, arg));
    }
  }

  @Override
  public void debug(String format, Object a, Object b) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.format(format, a, b));
    }
  }

  @Override
  public void debug(String format, Object... args) {
    if (enabled(EventLog.Level.DEBUG)) {
      write(EventLog.Level.DEBUG, MessageFormatter.arrayFormat(format, args));
    }
  }

  @Override
  public void debug(String msg, Throwable t) {
    write(EventLog.Level.DEBUG, msg, t);
  }

  @Override
  public boolean isInfoEnabled() {
    return enabled(EventLog.Level.INFO);
  }

  @Override
  public void info(String msg) {
    write(EventLog.Level.INFO, msg, null);
  }

  @Override
  public void info(String format, Object arg) {
    if (enabled(EventLog.Level.INFO)) {
      write(EventLog.Level.INFO, MessageFormatter.format(format, arg));
    }
  }

  @Override
  public void info(String format, Object a, Object b) {
    if (enabled(EventLog.Level.INFO)) {
      write(EventLog.Level.INFO, MessageFormatter.format(format, a, b));
    }
  }

  @Override
  public void info(String format, Object... args) {
    if (enabled(EventLog.Level.INFO)) {
      write(EventLog.Level.INFO, MessageFormatter.arrayFormat(format, args));
    }
  }

  @Override
  public void info(String msg, Throwable t) {
    write(EventLog.Level.INFO, msg, t);
  }

  @Override
  public boolean isWarnEnabled() {
    return enabled(EventLog.Level.WARN);
  }

  @Override
  public void warn(String msg) {
    write(EventLog.Level.WARN, msg, null);
  }

  @Override
  public void warn(String format, Object arg) {
    if (enabled(EventLog.Level.WARN)) {
      write(EventLog.Level.WARN, MessageFormatter.format(format, arg));
    }
  }

  @Override
  public void warn(String format, Object a, Object b) {
    if (enabled(EventLog.Level.WARN)) {
      write(EventLog.Level.WARN, MessageFormatter.format(format, a, b));
    }
  }

  @Override
  public void warn(String format, Object... args) {
    if (enabled(EventLog.Level.WARN)) {
      write(EventLog.Level.WARN, MessageFormatter.arrayFormat(format, args));
    }
  }

  @Override
  public void warn(String msg, Throwable t) {
    write(EventLog.Level.WARN, msg, t);
  }

  @Override
  public boolean isErrorEnabled() {
    return enabled(EventLog.Level.ERROR);
  }

  @Override
  public void error(String msg) {
    write(EventLog.Level.ERROR, msg, null);
  }

  @Override
  public void error(String format, Object arg) {
    if (enabled(EventLog.Level.ERROR)) {
      write(EventLog.Level.ERROR, MessageFormatter.format(format, arg));
    }
  }

  @Override
  public void error(String format, Object a, Object b) {
    if (enabled(EventLog.Level.ERROR)) {
      write(EventLog.Level.ERROR, MessageFormatter.format(format, a, b));
    }
  }

  @Override
  public void error(String format, Object... args) {
    if (enabled(EventLog.Level.ERROR)) {
      write(EventLog.Level.ERROR, MessageFormatter.arrayFormat(format, args));
    }
  }

  @Override
  public void error(String msg, Throwable t) {
    write(EventLog.Level.ERROR, msg, t);
  }
}
