package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CredentialSetTimeTest {
  @Test
  void notAfterIsWrittenAsInstantWritesAWholeSecondIncludingZeroSeconds() {
    for (String t :
        new String[] {
          "2026-12-06T07:52:11Z",
          "2026-12-06T07:52:00Z",
          "2026-12-06T00:00:00Z",
          "1999-12-31T23:59:59Z",
          "0999-01-01T00:00:01Z",
          "9999-12-31T23:59:59Z",
        }) {
      assertThat(CredentialSet.utcSeconds(Instant.parse(t))).isEqualTo(t);
    }
    assertThat(CredentialSet.utcSeconds(Instant.parse("2026-12-06T07:52:11.999Z")))
        .isEqualTo("2026-12-06T07:52:11Z");
  }
}
