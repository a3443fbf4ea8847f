package io.ql3.worker.transport;

/**
 * A URL as a message or a log may show it: whatever could be user information (a proxy's or an
 * ingress's user and password) is replaced, so a refused {@code http://user:secret@proxy:3128}
 * never reaches the journal. Everything between {@code scheme://} and the last {@code @} goes,
 * which may remove more than the user information of an odd URL, never less.
 */
public final class UrlText {
  static final String REMOVED = "<credentials removed>@";

  private UrlText() {}

  public static String withoutCredentials(String url) {
    if (url == null) {
      return "null";
    }
    int scheme = url.indexOf("://");
    int start = scheme < 0 ? 0 : scheme + 3;
    int at = url.lastIndexOf('@');
    if (at < start) {
      return url;
    }
    return url.substring(0, start) + REMOVED + url.substring(at + 1);
  }

  /** Why {@code e} refused a URL, without the URL (its message quotes the input whole). */
  public static String reason(java.net.URISyntaxException e) {
    return e.getIndex() >= 0 ? e.getReason() + " at index " + e.getIndex() : e.getReason();
  }
}
