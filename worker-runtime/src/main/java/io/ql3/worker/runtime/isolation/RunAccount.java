package io.ql3.worker.runtime.isolation;

/**
 * The unprivileged account runs execute as ({@code execution.run-user} /
 * {@code execution.run-group}, default {@code ql3-run}, created by the package's sysusers file).
 * Never root: {@link Isolation} refuses uid 0 and gid 0.
 */
public record RunAccount(String user, long uid, String group, long gid) {

  @Override
  public String toString() {
    return user + "(" + uid + "):" + group + "(" + gid + ")";
  }
}
