package io.ql3.worker.runtime.isolation;

/**
 * The unprivileged identity one run attempt executes as: a uid and a gid of its own, held by that
 * run alone while it runs (see {@link RunAccounts}). Never root, never the agent's.
 */
public record RunAccount(long uid, long gid) {

  @Override
  public String toString() {
    return "uid " + uid + " gid " + gid;
  }
}
