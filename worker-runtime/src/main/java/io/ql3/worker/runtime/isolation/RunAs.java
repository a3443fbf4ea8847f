package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who runs execute as ({@code execution.run-user}, {@code execution.run-group}): each a name or a
 * number. The run account ({@code ql3-run} by default, created by the package's sysusers file with
 * uid and gid {@value #PACKAGED_ID}) is the first of the {@link RunAccounts}: slot {@code i} runs
 * as its uid {@code + i} and gid {@code + i}, so runs that exist together never share an identity.
 * The group defaults to the user's primary group (to the same number for a numeric user).
 *
 * <p>{@link #resolve} is the only place the names become numbers, at start: a name that does not
 * exist, root, or a range whose other ids a named account holds is refused with the reason.
 */
public record RunAs(String user, Optional<String> group) {

  /** The run account's name when {@code execution.run-user} is absent. */
  public static final String DEFAULT_USER = "ql3-run";

  /** The uid and gid the package's sysusers file gives {@code ql3-run}. */
  public static final long PACKAGED_ID = 70_000;

  /** Lowest uid or gid a numeric run user or group may have. */
  public static final long MIN_ID = 1000;

  public RunAs {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(group, "group");
    checkSpec(user, "run-user");
    group.ifPresent(g -> checkSpec(g, "run-group"));
  }

  /** The packaged default: {@code ql3-run}, its primary group. */
  public static RunAs defaults() {
    return new RunAs(DEFAULT_USER, Optional.empty());
  }

  /** A numeric id, or empty for a name. */
  static OptionalLong number(String spec) {
    return spec.matches("[0-9]{1,10}")
        ? OptionalLong.of(Long.parseLong(spec))
        : OptionalLong.empty();
  }

  private static void checkSpec(String spec, String key) {
    OptionalLong n = number(spec);
    if (n.isPresent()) {
      if (n.getAsLong() < MIN_ID || n.getAsLong() > RunAccounts.MAX_UID) {
        throw new IllegalArgumentException(
            key + " " + spec + " is outside " + MIN_ID + ".." + RunAccounts.MAX_UID);
      }
    } else if (!spec.matches("[A-Za-z_][A-Za-z0-9_.-]{0,31}")) {
      throw new IllegalArgumentException(
          key + " '" + spec + "' is neither a number nor a user or group name");
    }
  }

  /**
   * Refuses a numeric user or group whose {@code slots} ids would go past {@link
   * RunAccounts#MAX_UID} (a named one is checked when {@link #resolve} knows its number).
   */
  public void checkFits(int slots) {
    for (String key : new String[] {"run-user", "run-group"}) {
      OptionalLong n = number(key.equals("run-user") ? user : group.orElse(""));
      if (n.isPresent() && n.getAsLong() + slots - 1 > RunAccounts.MAX_UID) {
        throw new IllegalArgumentException(
            key + " " + n.getAsLong() + " + " + slots + " slots goes past " + RunAccounts.MAX_UID);
      }
    }
  }

  /** What {@code check} and the logs call it. */
  String describe() {
    return "execution.run-user " + user + group.map(g -> ", run-group " + g).orElse("");
  }

  /**
   * The accounts of {@code slots} runs: the run account and the ids after it, which no other named
   * account may hold.
   */
  RunAccounts resolve(int slots, AccountLookup names) throws IsolationParts.Missing {
    try {
      long uid;
      long primaryGid;
      OptionalLong n = number(user);
      if (n.isPresent()) {
        uid = n.getAsLong();
        primaryGid = uid;
      } else {
        RunAccount named =
            names
                .user(user)
                .orElseThrow(
                    () ->
                        new IsolationParts.Missing(
                            "run user "
                                + user
                                + " does not exist (the package's sysusers file creates "
                                + DEFAULT_USER
                                + "; or set execution.run-user to an existing user or a free uid)"));
        uid = named.uid();
        primaryGid = named.gid();
      }
      long gid = primaryGid;
      if (group.isPresent()) {
        OptionalLong g = number(group.get());
        if (g.isPresent()) {
          gid = g.getAsLong();
        } else {
          gid =
              names
                  .group(group.get())
                  .orElseThrow(
                      () ->
                          new IsolationParts.Missing(
                              "run group " + group.get() + " does not exist"));
        }
      }
      if (uid == 0 || gid == 0) {
        throw new IsolationParts.Missing(describe() + " is root: runs never run as root");
      }
      RunAccounts range;
      try {
        range = new RunAccounts(new RunAccount(uid, gid), slots);
      } catch (IllegalArgumentException e) {
        throw new IsolationParts.Missing(describe() + ": " + e.getMessage());
      }
      List<String> others = new ArrayList<>();
      for (String u : names.usersIn(range.first(), range.last())) {
        if (!u.equals(user + "(" + uid + ")")) {
          others.add(u);
        }
      }
      for (String g : names.groupsIn(range.firstGid(), range.lastGid())) {
        boolean theRunGroup =
            g.endsWith("(" + gid + ")")
                && (group.isEmpty()
                    ? n.isEmpty() // the named user's primary group
                    : g.equals(group.get() + "(" + gid + ")"));
        if (!theRunGroup) {
          others.add(g);
        }
      }
      if (!others.isEmpty()) {
        throw new IsolationParts.Missing(
            "run "
                + range
                + " (one per slot after "
                + describe()
                + ") hold other named accounts: "
                + String.join(" ", others)
                + " (give the run account "
                + slots
                + " free ids after it)");
      }
      return range;
    } catch (IOException e) {
      throw new IsolationParts.Missing("cannot look up the host's accounts: " + e.getMessage());
    }
  }
}
