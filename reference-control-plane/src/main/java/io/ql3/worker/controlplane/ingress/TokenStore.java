package io.ql3.worker.controlplane.ingress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Bearer tokens per worker from {@code PKI/workers/ID/token}. The file is stat'ed on every check
 * and re-read when its identity (inode), size or mtime changed, so an atomic replacement rotates
 * the token without a restart. A missing or malformed file rejects every token. Thread-safe (own
 * monitor).
 */
public final class TokenStore {
  private static final Pattern TOKEN = Pattern.compile("^[A-Za-z0-9._~+/=-]{16,4096}$");

  private record Cached(Path file, Object fileKey, long mtime, long size, byte[] token) {}

  private final Path workersDir;
  private final Map<String, Cached> cache = new HashMap<>();

  public TokenStore(Path pkiDir) {
    this.workersDir = pkiDir.resolve("workers");
  }

  /** True when {@code presented} is the worker's current token. */
  public boolean accepts(String workerId, String presented) {
    if (presented == null) {
      return false;
    }
    byte[] current = current(workerId);
    return current != null
        && MessageDigest.isEqual(current, presented.getBytes(StandardCharsets.US_ASCII));
  }

  private synchronized byte[] current(String workerId) {
    Cached c = cache.get(workerId);
    Path file = c != null ? c.file() : workersDir.resolve(workerId).resolve("token");
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      cache.remove(workerId);
      return null;
    } catch (IOException e) {
      return null;
    }
    long mtime = attrs.lastModifiedTime().toMillis();
    if (c != null
        && Objects.equals(c.fileKey(), attrs.fileKey())
        && c.mtime() == mtime
        && c.size() == attrs.size()) {
      return c.token();
    }
    byte[] token;
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).trim();
      token = TOKEN.matcher(text).matches() ? text.getBytes(StandardCharsets.US_ASCII) : null;
    } catch (IOException e) {
      return null;
    }
    cache.put(workerId, new Cached(file, attrs.fileKey(), mtime, attrs.size(), token));
    return token;
  }
}
