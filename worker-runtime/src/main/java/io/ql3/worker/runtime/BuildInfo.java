package io.ql3.worker.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The version and git revision this agent was built from, as written into the jar by the build. The
 * capability snapshot publishes both; a build outside a git checkout reports a revision of forty
 * zeros, which reads as "unknown" rather than pretending to be a commit.
 */
public record BuildInfo(String version, String revision, boolean dirty) {
  private static final Pattern REVISION = Pattern.compile("^[0-9a-f]{40}$");
  public static final String UNKNOWN_REVISION = "0".repeat(40);

  public BuildInfo {
    if (!REVISION.matcher(revision).matches()) {
      throw new IllegalArgumentException("revision must be 40 lowercase hex digits: " + revision);
    }
  }

  /** Reads the build properties packaged with this module. */
  public static BuildInfo load() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
      if (in == null) {
        throw new IllegalStateException("build.properties missing from the worker-runtime jar");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String version = p.getProperty("version", "0.0.0");
    // Semver for the capability: drop Maven's -SNAPSHOT qualifier into a pre-release tag.
    version = version.replace("-SNAPSHOT", "-dev");
    String revision = p.getProperty("revision", UNKNOWN_REVISION);
    if (!REVISION.matcher(revision).matches()) {
      revision = UNKNOWN_REVISION;
    }
    return new BuildInfo(version, revision, "true".equals(p.getProperty("dirty")));
  }
}
