package io.ql3.worker.runtime.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLogTest {
  final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  /** A clock the test moves. */
  static final class MovableClock extends Clock {
    Instant now = Instant.parse("2026-12-02T01:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  List<String> lines() {
    return bytes.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void linesAreUtf8WhateverTheStreamsCharset() {
    PrintStream ascii = new PrintStream(bytes, true, StandardCharsets.US_ASCII);
    EventLog log = new EventLog(ascii, LogFormat.LOGFMT, new MovableClock());

    log.info("run.finished", "failure", "caf\u00e9 \u2615 \ud83d\ude80");

    assertThat(lines())
        .singleElement()
        .asString()
        .endsWith("failure=\"caf\u00e9 \u2615 \ud83d\ude80\"");
  }

  @Test
  void underJournaldEachLineStartsWithItsSyslogPriority() {
    EventLog log =
        new EventLog(out, LogFormat.LOGFMT, new MovableClock(), EventLog.Level.DEBUG, true);
    log.error("e");
    log.warn("w");
    log.info("i");
    log.debug("d");
    assertThat(lines())
        .extracting(l -> l.substring(0, 3))
        .containsExactly("<3>", "<4>", "<6>", "<7>");
  }

  @Test
  void withoutJournaldLinesArePlain() {
    EventLog log =
        new EventLog(out, LogFormat.JSON, new MovableClock(), EventLog.Level.INFO, false);
    log.error("e");
    assertThat(lines()).singleElement().asString().startsWith("{\"ts\":");
  }

  @Test
  void eventsBelowTheLevelAreDropped() {
    EventLog log =
        new EventLog(out, LogFormat.LOGFMT, new MovableClock(), EventLog.Level.WARN, false);
    log.debug("d");
    log.info("i");
    log.warn("w");
    assertThat(lines()).singleElement().asString().contains("event=w");
    assertThat(
            new EventLog(out, LogFormat.LOGFMT, new MovableClock()).enabled(EventLog.Level.DEBUG))
        .isFalse();
  }

  @Test
  void aStackTraceIsOneEscapedField() {
    EventLog log = new EventLog(out, LogFormat.LOGFMT, new MovableClock());
    Exception e = new IllegalStateException("boom", new java.io.IOException("disk"));
    log.error("agent.step_failed", "error", e);
    assertThat(lines()).hasSize(1);
    assertThat(lines().get(0))
        .contains("error=\"java.lang.IllegalStateException: boom\\n\\tat io.ql3.worker")
        .contains("Caused by: java.io.IOException: disk");
  }

  @Test
  void theSameWarningWithinAMinuteIsCountedNotRewritten() {
    MovableClock clock = new MovableClock();
    EventLog log = new EventLog(out, LogFormat.LOGFMT, clock);
    for (int i = 0; i < 5; i++) {
      log.warn("status.write_failed", "file", "/x", "problem", "read-only");
      clock.now = clock.now.plusSeconds(1);
    }
    log.warn("status.write_failed", "file", "/x", "problem", "disk full"); // a different warning
    log.info("same.info");
    log.info("same.info"); // info is never folded
    assertThat(lines()).hasSize(4);
    clock.now = clock.now.plus(EventLog.REPEAT_WINDOW);
    log.warn("status.write_failed", "file", "/x", "problem", "read-only");
    assertThat(lines()).hasSize(5);
    assertThat(lines().get(4)).endsWith("problem=read-only repeated=4");
  }

  @Test
  void journalStreamMatchesOnlyTheFileItNames(@TempDir Path dir) throws Exception {
    Path a = Files.createFile(dir.resolve("a"));
    Path b = Files.createFile(dir.resolve("b"));
    var attrs = Files.readAttributes(a, "unix:dev,ino");
    String stream = attrs.get("dev") + ":" + attrs.get("ino");
    assertThat(JournalStream.matches(stream, a)).isTrue();
    assertThat(JournalStream.matches(stream, b)).isFalse();
    assertThat(JournalStream.matches(null, a)).isFalse();
    assertThat(JournalStream.matches("garbage", a)).isFalse();
    assertThat(JournalStream.matches("1:x", a)).isFalse();
    assertThat(Duration.ofMinutes(1)).isEqualTo(EventLog.REPEAT_WINDOW);
  }
}
