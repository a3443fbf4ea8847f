package io.ql3.worker.journal;

/**
 * A persisted enum: each constant carries its explicit on-disk byte, never its ordinal, so that
 * reordering or adding constants cannot change the format. The codes are pinned by a test.
 */
interface DiskCode {
  byte code();

  /** The constant with this on-disk code, or an IllegalArgumentException (a corrupt payload). */
  static <E extends Enum<E> & DiskCode> E of(E[] values, byte code) {
    for (E v : values) {
      if (v.code() == code) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "unknown on-disk code "
            + code
            + " for "
            + values.getClass().getComponentType().getSimpleName());
  }
}
