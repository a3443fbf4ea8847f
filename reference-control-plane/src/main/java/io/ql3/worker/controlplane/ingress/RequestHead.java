package io.ql3.worker.controlplane.ingress;

import java.util.List;

/**
 * What the ingress checks of one request before its body: taken from an HTTP/1.1 request line and
 * headers or from an h2 HEADERS frame, so that every rule is implemented once ({@link
 * IngressExchange}).
 *
 * @param malformed the protocol layer could not decode the request (h1 decoder failure, h2
 *     pseudo-header missing)
 * @param declaredLength content-length, -1 when absent
 * @param keepAlive HTTP/1.1: the connection stays open after the answer (always true for h2)
 */
record RequestHead(
    boolean malformed,
    String method,
    String uri,
    String authorization,
    List<String> contentTypes,
    String accept,
    String userAgent,
    long declaredLength,
    boolean keepAlive) {}
