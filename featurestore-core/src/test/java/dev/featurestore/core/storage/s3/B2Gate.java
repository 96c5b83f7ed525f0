package dev.featurestore.core.storage.s3;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A reverse proxy on loopback that answers as Backblaze B2 does, in front of a real S3 server.
 * Requests it lets through are forwarded byte for byte (request line, headers, body), so SigV4
 * signatures stay valid.
 *
 * <ul>
 *   <li>any {@code x-amz-checksum-*} or {@code x-amz-sdk-checksum-algorithm} header: 400
 *       InvalidArgument "Unsupported header";
 *   <li>{@code If-None-Match} / {@code If-Match} on PUT: 501 NotImplemented;
 *   <li>a SigV4 credential scope (the {@code Authorization} header's or a presigned URL's
 *       {@code X-Amz-Credential}) naming another region than the bucket's: 400
 *       AuthorizationHeaderMalformed "the region '...' is wrong; expecting '...'" with a
 *       {@code <Region>} element, checked before anything else, as B2 checks the signature
 *       first. A HEAD gets the status without a body, as from any S3 server.
 * </ul>
 *
 * <p>It also injects faults for a share of requests (500, 503, slow responses, dropped
 * connections), deterministic for a seed, and can fail every request matching a predicate.
 */
public final class B2Gate implements AutoCloseable {
  /** One request as the gate saw it. */
  public record Seen(String method, String target, Map<String, String> headers) {}

  /** Shares of requests that get a fault, each in [0, 1]; rolled in this order. */
  public record Faults(double drop, double error500, double error503, double slow, long slowMillis, long seed) {
    public static Faults none() {
      return new Faults(0, 0, 0, 0, 0, 0);
    }
  }

  private final int upstreamPort;
  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "b2-gate");
    t.setDaemon(true);
    return t;
  });
  private final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger rejectedChecksum = new AtomicInteger();
  private final AtomicInteger rejectedConditional = new AtomicInteger();
  private final AtomicInteger injected = new AtomicInteger();
  private final AtomicInteger rejectedRegion = new AtomicInteger();
  private final String region;
  private volatile Faults faults = Faults.none();
  private volatile Random random = new Random(0);
  private volatile Predicate<Seen> hardFailure = s -> false;
  private volatile boolean closed;

  /** A gate for a bucket in {@code region}: requests signed for another region are refused. */
  B2Gate(int upstreamPort, String region) throws IOException {
    this.upstreamPort = upstreamPort;
    this.region = region;
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  public int port() {
    return server.getLocalPort();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  /** Injects faults from now on (and resets the random sequence to the seed). */
  public synchronized void faults(Faults faults) {
    this.faults = faults;
    this.random = new Random(faults.seed());
  }

  /** Answers 500 to every request matching {@code predicate} (until {@link #reset()}). */
  public void failHard(Predicate<Seen> predicate) {
    this.hardFailure = predicate;
  }

  public void reset() {
    faults(Faults.none());
    hardFailure = s -> false;
    seen.clear();
    rejectedChecksum.set(0);
    rejectedConditional.set(0);
    injected.set(0);
    rejectedRegion.set(0);
  }

  public List<Seen> seen() {
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  public int rejectedChecksum() {
    return rejectedChecksum.get();
  }

  public int rejectedConditional() {
    return rejectedConditional.get();
  }

  public int rejectedRegion() {
    return rejectedRegion.get();
  }

  public int injectedFaults() {
    return injected.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        if (!closed) {
          e.printStackTrace();
        }
      }
    }
  }

  private enum Fault { NONE, DROP, E500, E503, SLOW }

  private synchronized Fault roll() {
    Faults f = faults;
    double r = random.nextDouble();
    if ((r -= f.drop()) < 0) {
      return Fault.DROP;
    }
    if ((r -= f.error500()) < 0) {
      return Fault.E500;
    }
    if ((r -= f.error503()) < 0) {
      return Fault.E503;
    }
    if ((r -= f.slow()) < 0) {
      return Fault.SLOW;
    }
    return Fault.NONE;
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try (client) {
      InputStream cin = new BufferedInputStream(client.getInputStream());
      OutputStream cout = client.getOutputStream();
      InputStream uin = null;
      OutputStream uout = null;
      while (true) {
        Head req = Head.read(cin);
        if (req == null) {
          return;
        }
        Seen s = new Seen(req.method(), req.target(), req.headers);
        seen.add(s);
        boolean expectContinue = "100-continue".equalsIgnoreCase(req.header("expect"));

        String signedRegion = signedRegion(req);
        if (signedRegion != null && !signedRegion.equals(region)) {
          rejectedRegion.incrementAndGet();
          reject(req, cin, cout, expectContinue, 400, "Bad Request", "AuthorizationHeaderMalformed",
              "The authorization header is malformed; the region '" + signedRegion + "' is wrong; expecting '"
                  + region + "'", "<Region>" + region + "</Region>");
          return;
        }

        String checksumHeader = req.headers.keySet().stream()
            .filter(h -> h.startsWith("x-amz-checksum-") || h.equals("x-amz-sdk-checksum-algorithm"))
            .findFirst().orElse(null);
        if (checksumHeader != null) {
          rejectedChecksum.incrementAndGet();
          reject(req, cin, cout, expectContinue, 400, "Bad Request", "InvalidArgument",
              "Unsupported header '" + checksumHeader + "' received for this API call.");
          return;
        }
        if (req.method().equals("PUT") && (req.header("if-none-match") != null || req.header("if-match") != null)) {
          rejectedConditional.incrementAndGet();
          reject(req, cin, cout, expectContinue, 501, "Not Implemented", "NotImplemented",
              "A header you provided implies functionality that is not implemented");
          return;
        }
        if (hardFailure.test(s)) {
          injected.incrementAndGet();
          reject(req, cin, cout, expectContinue, 500, "Internal Server Error", "InternalError", "injected failure");
          return;
        }
        switch (roll()) {
          case DROP -> {
            injected.incrementAndGet();
            client.setSoLinger(true, 0); // reset, as a dropped connection looks to the client
            return;
          }
          case E500 -> {
            injected.incrementAndGet();
            reject(req, cin, cout, expectContinue, 500, "Internal Server Error", "InternalError", "injected 500");
            return;
          }
          case E503 -> {
            injected.incrementAndGet();
            reject(req, cin, cout, expectContinue, 503, "Service Unavailable", "ServiceUnavailable", "injected 503");
            return;
          }
          case SLOW -> {
            injected.incrementAndGet();
            Thread.sleep(faults.slowMillis());
          }
          case NONE -> { }
        }

        if (upstream == null) {
          upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
          uin = new BufferedInputStream(upstream.getInputStream());
          uout = upstream.getOutputStream();
        }
        uout.write(req.raw);
        uout.flush();
        Head resp;
        if (expectContinue) {
          resp = Head.read(uin);
          if (resp == null) {
            return;
          }
          if (resp.status() == 100) {
            cout.write(resp.raw);
            cout.flush();
            copyBody(req, cin, uout);
            uout.flush();
            resp = Head.read(uin);
          } else {
            // Final answer before the body: the client will not send it; end the exchange.
            relayResponse(req, resp, uin, cout);
            return;
          }
        } else {
          copyBody(req, cin, uout);
          uout.flush();
          resp = Head.read(uin);
        }
        if (resp == null) {
          return;
        }
        boolean keepOpen = relayResponse(req, resp, uin, cout);
        if (!keepOpen || "close".equalsIgnoreCase(req.header("connection"))) {
          return;
        }
      }
    } catch (IOException e) {
      // client or upstream went away
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (upstream != null) {
        try {
          upstream.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }
  }

  /** Relays a response head and body; returns whether the connection may be reused. */
  private static boolean relayResponse(Head req, Head resp, InputStream uin, OutputStream cout) throws IOException {
    cout.write(resp.raw);
    boolean noBody = req.method().equals("HEAD") || resp.status() == 204 || resp.status() == 304
        || (resp.status() >= 100 && resp.status() < 200);
    boolean keepOpen = !"close".equalsIgnoreCase(resp.header("connection"));
    if (!noBody) {
      if (resp.header("content-length") != null) {
        copyExactly(uin, cout, Long.parseLong(resp.header("content-length").trim()));
      } else if ("chunked".equalsIgnoreCase(resp.header("transfer-encoding"))) {
        copyChunked(uin, cout);
      } else {
        uin.transferTo(cout);
        keepOpen = false;
      }
    }
    cout.flush();
    return keepOpen;
  }

  private static void reject(Head req, InputStream cin, OutputStream cout, boolean expectContinue,
      int status, String reason, String code, String message) throws IOException {
    reject(req, cin, cout, expectContinue, status, reason, code, message, "");
  }

  private static void reject(Head req, InputStream cin, OutputStream cout, boolean expectContinue,
      int status, String reason, String code, String message, String extraXml) throws IOException {
    if (!expectContinue) {
      copyBody(req, cin, OutputStream.nullOutputStream());
    }
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
        + message + "</Message>" + extraXml + "<RequestId>b2gate</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
    boolean head = req.method().equals("HEAD");
    String headers = "HTTP/1.1 " + status + " " + reason + "\r\n"
        + "Content-Type: application/xml\r\n"
        + "Content-Length: " + (head ? 0 : body.length) + "\r\n"
        + "x-amz-request-id: b2gate\r\n"
        + "Connection: close\r\n\r\n";
    cout.write(headers.getBytes(StandardCharsets.ISO_8859_1));
    if (!head) {
      cout.write(body);
    }
    cout.flush();
  }

  /**
   * The region of the request's SigV4 credential scope ({@code <key>/<date>/<region>/s3/aws4_request}),
   * from the {@code Authorization} header or a presigned URL's {@code X-Amz-Credential}; null if unsigned.
   */
  static String signedRegion(Head req) {
    String credential = null;
    String authorization = req.header("authorization");
    if (authorization != null && authorization.startsWith("AWS4-HMAC-SHA256")) {
      int at = authorization.indexOf("Credential=");
      if (at >= 0) {
        int end = authorization.indexOf(',', at);
        credential = authorization.substring(at + "Credential=".length(), end < 0 ? authorization.length() : end).trim();
      }
    } else {
      String target = req.target();
      int at = target.indexOf("X-Amz-Credential=");
      if (at >= 0) {
        int end = target.indexOf('&', at);
        credential = java.net.URLDecoder.decode(
            target.substring(at + "X-Amz-Credential=".length(), end < 0 ? target.length() : end), StandardCharsets.UTF_8);
      }
    }
    if (credential == null) {
      return null;
    }
    String[] scope = credential.split("/");
    // the key id may itself hold no slash; the scope is the last four fields
    return scope.length >= 5 ? scope[scope.length - 3] : "";
  }

  private static void copyBody(Head req, InputStream in, OutputStream out) throws IOException {
    if (req.header("content-length") != null) {
      copyExactly(in, out, Long.parseLong(req.header("content-length").trim()));
    } else if ("chunked".equalsIgnoreCase(req.header("transfer-encoding"))) {
      copyChunked(in, out);
    }
  }

  private static void copyExactly(InputStream in, OutputStream out, long n) throws IOException {
    byte[] buf = new byte[64 * 1024];
    long left = n;
    while (left > 0) {
      int r = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (r < 0) {
        throw new EOFException("body ended early");
      }
      out.write(buf, 0, r);
      left -= r;
    }
  }

  private static void copyChunked(InputStream in, OutputStream out) throws IOException {
    while (true) {
      String sizeLine = readLine(in);
      out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      int semi = sizeLine.indexOf(';');
      long size = Long.parseLong((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        String trailer;
        do {
          trailer = readLine(in);
          out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        } while (!trailer.isEmpty());
        return;
      }
      copyExactly(in, out, size + 2); // data and its CRLF
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    throw new EOFException("line ended early");
  }

  /** A request or response head: the raw bytes, the first line and the headers (names lower case). */
  static final class Head {
    final byte[] raw;
    final String firstLine;
    final Map<String, String> headers;

    private Head(byte[] raw, String firstLine, Map<String, String> headers) {
      this.raw = raw;
      this.firstLine = firstLine;
      this.headers = headers;
    }

    static Head read(InputStream in) throws IOException {
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
      return new Head(bytes, lines[0], headers);
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

    int status() {
      return Integer.parseInt(firstLine.split(" ")[1]);
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    threads.shutdownNow();
  }
}
