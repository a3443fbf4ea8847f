package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Who the agent process is, from {@code /proc/self/status}: effective uid and gid, supplementary
 * groups and effective capabilities. Read once at start.
 */
public record ProcessIdentity(long uid, long gid, Set<Long> groups, long effectiveCapabilities) {

  /** Capability numbers (linux/capability.h) the user switch needs. */
  public static final int CAP_KILL = 5;

  public static final int CAP_SETGID = 6;
  public static final int CAP_SETUID = 7;
  public static final int CAP_SETPCAP = 8;

  public ProcessIdentity {
    groups = Set.copyOf(groups);
  }

  public boolean isRoot() {
    return uid == 0;
  }

  public boolean hasCapability(int cap) {
    return (effectiveCapabilities & (1L << cap)) != 0;
  }

  /** True when the agent may set a file's group to {@code gid} without CAP_CHOWN. */
  public boolean inGroup(long gid) {
    return this.gid == gid || groups.contains(gid);
  }

  /** Parses a {@code /proc/PID/status} file. */
  public static ProcessIdentity read(Path status) throws IOException {
    long uid = -1;
    long gid = -1;
    long caps = 0;
    Set<Long> groups = new HashSet<>();
    for (String line : Files.readAllLines(status)) {
      String[] f = line.split("\\s+");
      switch (f[0]) {
        case "Uid:" -> uid = Long.parseLong(f[2]); // real, EFFECTIVE, saved, fs
        case "Gid:" -> gid = Long.parseLong(f[2]);
        case "Groups:" -> {
          for (int i = 1; i < f.length; i++) {
            groups.add(Long.parseLong(f[i]));
          }
        }
        case "CapEff:" -> caps = Long.parseUnsignedLong(f[1], 16);
        default -> {
          // not needed
        }
      }
    }
    if (uid < 0 || gid < 0) {
      throw new IOException(status + " has no Uid:/Gid: lines");
    }
    return new ProcessIdentity(uid, gid, groups, caps);
  }
}
