package io.ql3.worker.transport.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Contract test vectors copied from shared/contract/vectors (raw bytes). */
public final class Vectors {
  public static final String WORKER = "edge-0001";
  public static final String SESSION = "01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d";
  public static final String RUN = "run-20241203-000117";

  private Vectors() {}

  public static byte[] request(String name) {
    return read("/vectors/" + name);
  }

  public static byte[] response(String name) {
    return read("/vectors/responses/" + name);
  }

  private static byte[] read(String resource) {
    try (InputStream in = Vectors.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no vector " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
