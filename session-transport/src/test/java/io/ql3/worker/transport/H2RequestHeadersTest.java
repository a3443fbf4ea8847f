package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

class H2RequestHeadersTest {

  @Test
  void aRequestCarriesItsPathAuthorityTokenAndLength() {
    String path =
        "/v1/workers/edge-0001/sessions/01938a6f-0b3d-7c88-b2e1-9a8b7c6d5e4f/runs/run-2024_1.x/complete";
    H2RequestHeaders headers = new H2RequestHeaders(new RequestHeaders("ingress:8443", "ql3/1"));

    Http2Headers h = headers.of(path, "tok-1", 123);

    assertThat(h.path()).isEqualTo(new AsciiString(path));
    assertThat(h.path().toString()).isEqualTo(path);
    assertThat(h.method()).isEqualTo(new AsciiString("POST"));
    assertThat(h.authority()).isEqualTo(new AsciiString("ingress:8443"));
    assertThat(h.get(HttpHeaderNames.AUTHORIZATION)).isEqualTo(new AsciiString("Bearer tok-1"));
    assertThat(h.get(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(new AsciiString("123"));
    assertThat(headers.of(path, "tok-2", 1).get(HttpHeaderNames.AUTHORIZATION))
        .as("a rotated token")
        .isEqualTo(new AsciiString("Bearer tok-2"));
  }
}
