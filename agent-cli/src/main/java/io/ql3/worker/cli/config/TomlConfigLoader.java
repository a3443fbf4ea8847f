package io.ql3.worker.cli.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigException;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.FilePermissions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads the agent's TOML configuration file into a {@link ConfigReader.Result}.
 *
 * <p>It reads the file through jackson's TOML streaming parser into plain maps and lists (no {@code
 * ObjectMapper}: the long-running agent should not load databind's machinery for one file) and
 * hands the tree to {@link ConfigReader}, which does all validation.
 */
public final class TomlConfigLoader {
  /** A configuration file is small; a larger one is a mistake, not a configuration. */
  static final int MAX_FILE_BYTES = 1024 * 1024;

  private final TomlFactory factory = new TomlFactory();

  /** Loads and validates {@code file} for {@code profile}. */
  public ConfigReader.Result load(Path file, AgentProfile profile) throws ConfigException {
    return ConfigReader.read(readTree(file), file, profile);
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
    try (JsonParser p = factory.createParser(bytes)) {
      JsonToken first = p.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw new ConfigException(file, "", "not a TOML document");
      }
      return readObject(file, p);
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          file, "", "invalid TOML" + where(e.getLocation()) + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ConfigException(file, "", "cannot read: " + e.getMessage());
    }
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

  private static Map<String, Object> readObject(Path file, JsonParser p)
      throws IOException, ConfigException {
    Map<String, Object> out = new LinkedHashMap<>();
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      out.put(name, readValue(file, p));
    }
    if (t != JsonToken.END_OBJECT) {
      throw new ConfigException(file, "", "unexpected TOML structure" + where(p.currentLocation()));
    }
    return out;
  }

  private static Object readValue(Path file, JsonParser p) throws IOException, ConfigException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT:
        return readObject(file, p);
      case START_ARRAY:
        {
          List<Object> list = new ArrayList<>();
          while (p.nextToken() != JsonToken.END_ARRAY) {
            list.add(readValue(file, p));
          }
          return list;
        }
      case VALUE_STRING:
        return p.getText();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NUMBER_INT:
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
          throw new ConfigException(
              file,
              p.currentName() == null ? "" : p.currentName(),
              "integer out of range" + where(p.currentLocation()));
        }
        return p.getLongValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_EMBEDDED_OBJECT:
        // Dates and times when the parser is set to produce java.time values; kept as text.
        return String.valueOf(p.getEmbeddedObject());
      default:
        throw new ConfigException(file, "", "unexpected TOML value" + where(p.currentLocation()));
    }
  }

  private static String where(JsonLocation loc) {
    if (loc == null || loc.getLineNr() < 1) {
      return "";
    }
    return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }
}
