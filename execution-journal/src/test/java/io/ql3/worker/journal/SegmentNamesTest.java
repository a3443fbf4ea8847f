package io.ql3.worker.journal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SegmentNamesTest {
  @Test
  void namesCarryTheSequenceInTwentyDigitsAndParseBack() {
    assertThat(SegmentFiles.logName(1)).isEqualTo("seg-00000000000000000001.log");
    assertThat(SegmentFiles.snapshotName(4096)).isEqualTo("snap-00000000000000004096.snap");
    for (long seq : new long[] {0, 1, 99, 1L << 40, Long.MAX_VALUE}) {
      assertThat(SegmentFiles.logName(seq)).hasSize(28);
      assertThat(SegmentFiles.logBase(SegmentFiles.logName(seq))).isEqualTo(seq);
      assertThat(SegmentFiles.snapshotName(seq)).isEqualTo(String.format("snap-%020d.snap", seq));
    }
  }
}
