package dev.featurestore.core.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A request or response head as the gate reads it: the raw bytes, the first line and the headers (names lower case). */
final class HttpHead {
  final byte[] raw;
  final String firstLine;
  final Map<String, String> headers;

  private HttpHead(byte[] raw, String firstLine, Map<String, String> headers) {
    this.raw = raw;
    this.firstLine = firstLine;
    this.headers = headers;
  }

  /** The next head on {@code in}, or null at the end of the stream. */
  static HttpHead read(InputStream in) throws IOException {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    int state = 0;
    int b;
    while ((b = in.read()) >= 0) {
      raw.write(b);
      // state counts the bytes of CRLFCRLF seen in a row
      state = switch (state) {
        case 0, 2 -> b == '\r' ? state + 1 : 0;
        case 1, 3 -> b == '\n' ? state + 1 : (b == '\r' ? 1 : 0);
        default -> 0;
      };
      if (state == 4) {
        break;
      }
    }
    if (state != 4) {
      return null;
    }
    byte[] bytes = raw.toByteArray();
    String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
      }
    }
    return new HttpHead(bytes, lines[0], headers);
  }

  String header(String name) {
    return headers.get(name);
  }

  String method() {
    return firstLine.substring(0, firstLine.indexOf(' '));
  }

  String target() {
    String[] parts = firstLine.split(" ");
    return parts.length > 1 ? parts[1] : "";
  }

  /** The request target's path, without the query. */
  String path() {
    String target = target();
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }

  /** The query parameters of the request target (decoded; a parameter without a value maps to ""). */
  Map<String, String> query() {
    Map<String, String> query = new LinkedHashMap<>();
    String target = target();
    int q = target.indexOf('?');
    if (q < 0) {
      return query;
    }
    for (String pair : target.substring(q + 1).split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      query.put(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return query;
  }

  /** The body length a request announces: the decoded length of an aws-chunked body, else Content-Length; -1 if none. */
  long bodyLength() {
    String decoded = header("x-amz-decoded-content-length");
    String length = decoded != null ? decoded : header("content-length");
    return length == null ? -1 : Long.parseLong(length.trim());
  }

  int status() {
    return Integer.parseInt(firstLine.split(" ")[1]);
  }

  /**
   * The region of the request's SigV4 credential scope ({@code <key>/<date>/<region>/s3/aws4_request}),
   * from the {@code Authorization} header or a presigned URL's {@code X-Amz-Credential}; null if unsigned.
   */
  String signedRegion() {
    String credential = null;
    String authorization = header("authorization");
    if (authorization != null && authorization.startsWith("AWS4-HMAC-SHA256")) {
      int at = authorization.indexOf("Credential=");
      if (at >= 0) {
        int end = authorization.indexOf(',', at);
        credential = authorization.substring(at + "Credential=".length(), end < 0 ? authorization.length() : end).trim();
      }
    } else {
      credential = query().get("X-Amz-Credential");
    }
    if (credential == null) {
      return null;
    }
    String[] scope = credential.split("/");
    // the key id may itself hold no slash; the scope is the last four fields
    return scope.length >= 5 ? scope[scope.length - 3] : "";
  }
}
