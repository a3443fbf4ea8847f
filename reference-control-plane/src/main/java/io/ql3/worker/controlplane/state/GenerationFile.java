package io.ql3.worker.controlplane.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one piece of server state that may outlive the process: each worker's generation counter.
 * Contract section 5: a register answer's generation is greater than any generation the client held
 * before for this worker. A control plane that forgets its counters on restart breaks that, and a
 * correct client then refuses every answer (drift) until the new counter has passed the one it
 * held, one register per backoff step. With this file a restarted server forgets sessions and runs,
 * as before, but never hands out a generation it handed out already.
 *
 * <p>Format: one line per worker, {@code workerId generation}, sorted. Every change is written to a
 * temporary file, forced, and renamed over the file before the answer that carries the new
 * generation is sent, so even a kill -9 of the server cannot lose an answered generation.
 */
public final class GenerationFile {
  private final Path file;
  private final Map<String, Long> generations = new TreeMap<>();

  private GenerationFile(Path file) {
    this.file = file;
  }

  /** Reads the file (missing: no worker yet). */
  public static GenerationFile open(Path file) throws IOException {
    GenerationFile g = new GenerationFile(file.toAbsolutePath());
    try {
      for (String line : Files.readAllLines(g.file, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.trim().split(" ");
        if (parts.length != 2) {
          throw new IOException(file + ": not 'workerId generation': " + line);
        }
        long generation;
        try {
          generation = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
          throw new IOException(file + ": not a generation: " + line, e);
        }
        if (generation < 0) {
          throw new IOException(file + ": negative generation: " + line);
        }
        g.generations.put(parts[0], generation);
      }
    } catch (NoSuchFileException e) {
      // a fresh server
    }
    return g;
  }

  /** The last generation this worker was handed out by any earlier lifetime (0: none). */
  synchronized long last(String workerId) {
    return generations.getOrDefault(workerId, 0L);
  }

  /** Records a generation durably; returns only once it is on disk. */
  synchronized void record(String workerId, long generation) {
    generations.put(workerId, generation);
    StringBuilder out = new StringBuilder();
    generations.forEach((w, g) -> out.append(w).append(' ').append(g).append('\n'));
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.writeString(tmp, out, StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        dir.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot record generation " + generation + " of " + workerId + " in " + file, e);
    }
  }
}
