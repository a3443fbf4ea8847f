package io.ql3.worker.journal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Encodes the live state as a snapshot file: a header (kind snapshot, base = covered sequence) and
 * one batch of entries numbered from 1, closed by an END entry carrying the entry count.
 */
final class SnapshotWriter {
  private SnapshotWriter() {}

  static ByteBuffer encode(JournalState state, String workerId, long salt, CRC32C crc) {
    long covered = state.lastSeq();
    SegmentHeader h =
        new SegmentHeader(
            SegmentHeader.VERSION, SegmentHeader.KIND_SNAPSHOT, salt, covered, workerId);
    ByteBuffer out = ByteBuffer.allocate(64 * 1024 + state.runCount() * 512);
    out.put(h.encode());
    ByteBuffer payload = ByteBuffer.allocate(RecordCodec.MAX_PAYLOAD);
    long seq = 1;
    if (state.session() != null) {
      payload.clear();
      RecordCodec.encodeSession(state.session(), payload);
      out = put(out, crc, salt, seq++, RecordCodec.SNAP_SESSION, payload);
    }
    for (PullReservation p : state.pulls()) {
      payload.clear();
      RecordCodec.encodePull(p, payload);
      out = put(out, crc, salt, seq++, RecordCodec.SNAP_PULL, payload);
    }
    for (RunFact f : state.allFacts()) {
      payload.clear();
      RecordCodec.encodeRun(f, payload);
      out = put(out, crc, salt, seq++, RecordCodec.SNAP_RUN, payload);
    }
    payload.clear();
    RecordCodec.encodeEnd(new RecordCodec.SnapEnd(seq - 1, covered), payload);
    int last = out.position();
    out = put(out, crc, salt, seq, RecordCodec.SNAP_END, payload);
    Frame.markLast(out, crc, salt, last);
    out.flip();
    return out;
  }

  private static ByteBuffer put(
      ByteBuffer out, CRC32C crc, long salt, long seq, byte kind, ByteBuffer payload) {
    payload.flip();
    if (out.remaining() < Frame.HEADER + payload.remaining()) {
      ByteBuffer bigger =
          ByteBuffer.allocate(out.capacity() * 2 + Frame.HEADER + payload.remaining());
      out.flip();
      bigger.put(out);
      out = bigger;
    }
    Frame.write(out, crc, salt, seq, 1, kind, payload);
    return out;
  }
}
