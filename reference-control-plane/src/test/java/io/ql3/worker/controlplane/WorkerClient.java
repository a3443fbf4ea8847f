package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.pki.PemFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * A raw mTLS test client (JDK HttpClient, TLS 1.3, client certificate from a worker directory):
 * sends exact bytes to exact paths, no contract logic. One instance = one connection for h2.
 */
final class WorkerClient implements AutoCloseable {
  record Res(int status, byte[] body, String version) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final HttpClient http;
  private final SSLContext ssl;
  private final int port;
  private final String base;
  private final Path tokenFile;

  WorkerClient(Path pkiDir, String certDir, int port, HttpClient.Version version) throws Exception {
    Path wd = pkiDir.resolve("workers").resolve(certDir);
    this.tokenFile = wd.resolve("token");
    this.base = "https://127.0.0.1:" + port;
    PrivateKey key = PemFiles.readPrivateKey(wd.resolve("client.key"));
    X509Certificate cert = PemFiles.readCertificate(wd.resolve("client.crt"));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("client", key, new char[0], new X509Certificate[] {cert});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, new char[0]);
    KeyStore ts = KeyStore.getInstance("PKCS12");
    ts.load(null, null);
    ts.setCertificateEntry("ca", PemFiles.readCertificate(pkiDir.resolve("ca.crt")));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ts);
    SSLContext ssl = SSLContext.getInstance("TLSv1.3");
    ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    this.ssl = ssl;
    this.port = port;
    SSLParameters params = new SSLParameters();
    params.setProtocols(new String[] {"TLSv1.3"});
    this.http =
        HttpClient.newBuilder()
            .version(version)
            .sslContext(ssl)
            .sslParameters(params)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  String token() throws IOException {
    return Files.readString(tokenFile).trim();
  }

  HttpRequest.Builder request(String path, byte[] body) throws IOException {
    return request(path, body, token());
  }

  HttpRequest.Builder request(String path, byte[] body, String token) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(30))
        .header("authorization", "Bearer " + token)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("user-agent", "ql3-worker/0.0.0-test")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
  }

  Res post(String path, byte[] body) throws Exception {
    return send(request(path, body).build());
  }

  CompletableFuture<Res> postAsync(String path, byte[] body) throws IOException {
    return http.sendAsync(request(path, body).build(), HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(r -> new Res(r.statusCode(), r.body(), r.version().name()));
  }

  Res send(HttpRequest request) throws Exception {
    HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    return new Res(r.statusCode(), r.body(), r.version().name());
  }

  /** A raw TLS 1.3 socket offering only http/1.1, for byte-level HTTP/1.1 tests. */
  javax.net.ssl.SSLSocket rawHttp1() throws IOException {
    javax.net.ssl.SSLSocket socket =
        (javax.net.ssl.SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1", port);
    SSLParameters p = socket.getSSLParameters();
    p.setProtocols(new String[] {"TLSv1.3"});
    p.setApplicationProtocols(new String[] {"http/1.1"});
    socket.setSSLParameters(p);
    socket.setSoTimeout(20_000);
    socket.startHandshake();
    return socket;
  }

  /** Reads one HTTP/1.1 response (status line, headers, content-length body) from a raw socket. */
  static Res readHttp1(java.io.InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      head.append((char) b);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    if (b < 0) {
      throw new java.io.EOFException("connection closed; got: " + head);
    }
    String[] lines = head.toString().split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    int length = 0;
    for (String line : lines) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return new Res(status, body, head.toString());
  }

  String rawRequest(String path, byte[] body, long declaredLength) throws IOException {
    return "POST "
        + path
        + " HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer "
        + token()
        + "\r\ncontent-type: application/json\r\naccept: application/json\r\nuser-agent: ql3-worker/0.0.0-test"
        + "\r\ncontent-length: "
        + declaredLength
        + "\r\n\r\n";
  }

  @Override
  public void close() {
    // JDK 17's HttpClient has no close(); its connections go with the client object.
  }
}
