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
    EventLoggerFinder.install(new EventLog(new PrintStream(buf, true, StandardCharsets.UTF_8), LogFormat.JSON, Clock.systemUTC()));
    // The JDK found our finder through ServiceLoader: System.getLogger goes through it.
    assertThat(System.LoggerFinder.getLoggerFinder()).isInstanceOf(EventLoggerFinder.class);
    System.Logger logger = System.getLogger("io.ql3.worker.transport.IngressConnection");
    logger.log(System.Logger.Level.WARNING, "connection attempt {0} failed:\n{1}", 3, "refused");
    logger.log(System.Logger.Level.DEBUG, "not shown");
    EventLoggerFinder.install(new EventLog(System.err, LogFormat.LOGFMT, Clock.systemUTC()));
    String text = buf.toString(StandardCharsets.UTF_8);
    assertThat(text.lines()).hasSize(1);
    assertThat(text).contains("\"level\":\"warn\"").contains("\"logger\":\"IngressConnection\"")
        .contains("\"msg\":\"connection attempt 3 failed:\\nrefused\"");
  }
}
