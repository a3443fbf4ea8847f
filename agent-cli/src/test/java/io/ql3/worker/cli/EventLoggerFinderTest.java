package io.ql3.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.cli.log.EventLoggerFinder;
import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import io.ql3.worker.runtime.log.EventLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.junit.jupiter.api.Test;

class EventLoggerFinderTest {
  @Test
  void libraryLoggersWriteOneJsonLinePerEventThroughTheAgentLog() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    EventLoggerFinder.install(
        new EventLog(
            new PrintStream(buf, true, StandardCharsets.UTF_8), LogFormat.JSON, Clock.systemUTC()));
    // The JDK found our finder through ServiceLoader: System.getLogger goes through it.
    assertThat(System.LoggerFinder.getLoggerFinder()).isInstanceOf(EventLoggerFinder.class);
    System.Logger logger = System.getLogger("io.ql3.worker.transport.IngressConnection");
    logger.log(System.Logger.Level.WARNING, "connection attempt {0} failed:\n{1}", 3, "refused");
    logger.log(System.Logger.Level.DEBUG, "not shown");
    EventLoggerFinder.install(new EventLog(System.err, LogFormat.LOGFMT, Clock.systemUTC()));
    String text = buf.toString(StandardCharsets.UTF_8);
    assertThat(text.lines()).hasSize(1);
    assertThat(text)
        .contains("\"level\":\"warn\"")
        .contains("\"logger\":\"IngressConnection\"")
        .contains("\"msg\":\"connection attempt 3 failed:\\nrefused\"");
  }

  @Test
  void nettysOwnLoggingGoesThroughTheAgentLogAtItsLevel() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    EventLoggerFinder.install(
        new EventLog(
            new PrintStream(buf, true, StandardCharsets.UTF_8),
            LogFormat.LOGFMT,
            Clock.systemUTC(),
            EventLog.Level.DEBUG,
            true));
    try {
      var netty =
          io.netty.util.internal.logging.InternalLoggerFactory.getInstance(
              "io.netty.util.ResourceLeakDetector");
      netty.error("LEAK: {} was not released", "ByteBuf", new IllegalStateException("here"));
      netty.debug("debug {} {}", 1, 2);
      netty.trace("trace");
    } finally {
      EventLoggerFinder.install(new EventLog(System.err, LogFormat.LOGFMT, Clock.systemUTC()));
    }
    var lines = buf.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .startsWith("<3>")
        .contains("logger=ResourceLeakDetector")
        .contains("msg=\"LEAK: ByteBuf was not released\"")
        .contains("error=\"java.lang.IllegalStateException: here\\n\\tat ");
    assertThat(lines.get(1)).startsWith("<7>").contains("msg=\"debug 1 2\"");
    assertThat(lines.get(2)).startsWith("<7>").contains("msg=trace");
  }
}
