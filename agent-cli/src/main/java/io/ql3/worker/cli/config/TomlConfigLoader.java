package io.ql3.worker.cli.config;

import io.ql3.worker.cli.toml.TomlParser;
import io.ql3.worker.cli.toml.TomlSyntaxException;
import io.ql3.worker.contract.Utf8;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigException;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.FilePermissions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Loads the agent's TOML configuration file into a {@link ConfigReader.Result}.
 *
 * <p>It reads the file (UTF-8, at most {@link #MAX_FILE_BYTES}) with {@link TomlParser} into plain
 * maps and lists and hands the tree to {@link ConfigReader}, which does all validation. (Jackson's
 * TOML parser did this until 2026-12-04; what it cost the edge agent: docs/perf/edge.md, "Eleventh
 * pass".)
 */
public final class TomlConfigLoader {
  /** A configuration file is small; a larger one is a mistake, not a configuration. */
  static final int MAX_FILE_BYTES = 1024 * 1024;

  /** Loads and validates {@code file} for {@code profile}. */
  public ConfigReader.Result load(Path file, AgentProfile profile) throws ConfigException {
    return ConfigReader.read(readTree(file), file, profile);
  }

  /** Loads and validates {@code file} whatever its {@code enabled} ({@link ConfigReader.Gate}). */
  public AgentConfig loadIgnoringGate(Path file, AgentProfile profile) throws ConfigException {
    return ((ConfigReader.Enabled)
            ConfigReader.read(readTree(file), file, profile, ConfigReader.Gate.IGNORED))
        .config();
  }

  /** Parses {@code file} into a tree of maps, lists, strings, longs, booleans and doubles. */
  public Map<String, Object> readTree(Path file) throws ConfigException {
    byte[] bytes = readBounded(file);
    try {
      // Whoever can write the configuration decides what the agent trusts and runs.
      FilePermissions.checkNotWritableByOthers(
          file, "configuration file", FilePermissions.Identity.current());
    } catch (CredentialException e) {
      throw new ConfigException(file, "", e.getMessage());
    }
    try {
      return TomlParser.parse(utf8(file, bytes));
    } catch (TomlSyntaxException e) {
      throw new ConfigException(file, "", "invalid TOML at " + e.getMessage());
    }
  }

  /**
   * The text of a UTF-8 file (a leading byte order mark is skipped); the first malformed byte is
   * refused by its line and byte offset.
   */
  private static String utf8(Path file, byte[] bytes) throws ConfigException {
    int bad = Utf8.firstInvalid(bytes, 0, bytes.length);
    if (bad >= 0) {
      int line = 1;
      for (int i = 0; i < bad; i++) {
        line += bytes[i] == '\n' ? 1 : 0;
      }
      throw new ConfigException(
          file, "", "not UTF-8 text: line " + line + ", byte " + bad + " of the file");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    return text.startsWith("\uFEFF") ? text.substring(1) : text;
  }

  private static byte[] readBounded(Path file) throws ConfigException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new ConfigException(
            file, "", "larger than " + MAX_FILE_BYTES + " bytes; not a configuration file");
      }
      return bytes;
    } catch (NoSuchFileException e) {
      throw new ConfigException(file, "", "no such file");
    } catch (IOException e) {
      throw new ConfigException(file, "", "cannot read: " + e);
    }
  }
}
