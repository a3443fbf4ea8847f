package io.ql3.worker.transport;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * The header block of one h2 request. Every value is an {@link AsciiString}, built once where it
 * does not change (the authority, the user agent, the {@code authorization} value of one token):
 * HPACK hashes and compares each header against its tables, which costs a byte-array pass for an
 * {@code AsciiString} (its hash cached) and a character-by-character walk for a {@code String}
 * (measured on the edge profile: ~6 % of the agent's CPU per run went there). Confined to the event
 * loop.
 */
final class H2RequestHeaders {
  private static final AsciiString POST = AsciiString.cached("POST");
  private static final AsciiString HTTPS = AsciiString.cached("https");

  private final AsciiString authority;
  private final AsciiString userAgent;

  // The bearer of the last request (by identity: a token keeps its String until it rotates).
  private String lastBearer;
  private AsciiString lastAuthorization;

  H2RequestHeaders(RequestHeaders fixed) {
    this.authority = new AsciiString(fixed.authority());
    this.userAgent = new AsciiString(fixed.userAgent());
  }

  Http2Headers of(String path, String bearer, int contentLength) {
    if (bearer != lastBearer) {
      lastAuthorization = new AsciiString("Bearer " + bearer);
      lastBearer = bearer;
    }
    Http2Headers h =
        new DefaultHttp2Headers(false) // the names are Netty's constants: nothing to validate
            .method(POST)
            .scheme(HTTPS)
            .authority(authority)
            // The path's ASCII bytes in one copy (the contract's ids are ASCII): AsciiString's own
            // String constructor calls charAt per character (docs/perf/edge.md, "Sixteenth pass").
            .path(new AsciiString(path.getBytes(StandardCharsets.US_ASCII), false));
    h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.USER_AGENT, userAgent)
        .set(HttpHeaderNames.AUTHORIZATION, lastAuthorization)
        .set(HttpHeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(contentLength)));
    return h;
  }
}
