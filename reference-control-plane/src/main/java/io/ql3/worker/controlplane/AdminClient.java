package io.ql3.worker.controlplane;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * What the admin client commands share: the {@code --admin-port} option and one call of the admin
 * API on 127.0.0.1, whose answer goes to stdout (2xx, exit code 0) or stderr (exit code 1).
 */
class AdminClient {
  @Option(
      names = "--admin-port",
      required = true,
      description = "The server's admin port on 127.0.0.1.")
  int adminPort;

  int call(String method, String path, String body) throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json");
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    HttpResponse<String> res =
        client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    (res.statusCode() / 100 == 2 ? System.out : System.err).println(res.body());
    return res.statusCode() / 100 == 2 ? 0 : 1;
  }

  /** A request body as JSON text (the submit and fault commands). */
  static String json(Object value) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(value);
  }
}
