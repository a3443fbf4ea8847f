package io.ql3.worker.journal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/** Test helper: the frames of a log segment's bytes. */
final class SegmentBytes {
  private SegmentBytes() {}

  static List<Frame> frames(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file);
    SegmentHeader h = SegmentHeader.parse(b);
    List<Frame> out = new ArrayList<>();
    CRC32C crc = new CRC32C();
    int pos = SegmentHeader.SIZE;
    Frame f;
    while ((f = Frame.read(b, crc, h.salt(), pos, file.length)) != null) {
      out.add(f);
      pos = f.end();
    }
    return out;
  }
}
