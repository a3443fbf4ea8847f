package io.ql3.worker.transport.credentials;

import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * A credential file that cannot be stat'ed keeps what is installed in use; said once at warn when
 * that lasts longer than the settle window (an atomic rotation never shows a gap), and once at info
 * when it ends, so an operator learns of a deleted file before the next start waits for it. Called
 * on the threads that check the credentials; synchronized.
 */
final class MissingFiles {
  private static final System.Logger LOG = System.getLogger(CredentialProvider.class.getName());

  private final long windowMillis;
  private final String kept;
  private String problem;
  private long sinceMillis;
  private boolean reported;

  MissingFiles(Duration window, String kept) {
    this.windowMillis = window.toMillis();
    this.kept = kept;
  }

  synchronized void seen(String what, long nowMillis) {
    if (!what.equals(problem) || nowMillis < sinceMillis) {
      problem = what;
      sinceMillis = nowMillis;
      reported = false;
    }
    if (!reported && nowMillis - sinceMillis >= windowMillis) {
      reported = true;
      LOG.log(Level.WARNING, "credential file unreadable, keeping {0}: {1}", kept, what);
    }
  }

  synchronized void cleared() {
    if (problem == null) {
      return;
    }
    if (reported) {
      LOG.log(Level.INFO, "credential files readable again");
    }
    problem = null;
    reported = false;
  }
}
