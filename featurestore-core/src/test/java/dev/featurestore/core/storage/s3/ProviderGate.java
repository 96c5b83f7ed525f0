package dev.featurestore.core.storage.s3;

import dev.featurestore.StorageProvider;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A reverse proxy on loopback that answers as an S3-compatible provider does, in front of a real
 * S3 server (s3proxy): one gate per {@link StorageProvider}, its refusals the provider's rule set
 * ({@link ProviderRules}: B2's unsupported checksum headers and conditional writes, R2's region
 * {@code auto} and unimplemented headers, MinIO's Content-MD5 on DeleteObjects, AWS's region
 * check, each provider's multipart part rules). A refused request is answered as the provider
 * answers it (status, error code, message; a HEAD gets the status without a body, as from any S3
 * server) and recorded ({@link #refusals()}); a request it lets through is forwarded byte for byte
 * (request line, headers, body), so SigV4 signatures stay valid.
 *
 * <p>It also injects faults for a share of requests (500, 503, slow responses, dropped
 * connections), deterministic for a seed, and can fail every request matching a predicate.
 */
public final class ProviderGate implements AutoCloseable {
  /** One request as the gate saw it. */
  public record Seen(String method, String target, Map<String, String> headers) {}

  /** A request the gate refused as the provider would: which rule, and the answer. */
  public record Refusal(String rule, String method, String target, int status, String code, String message) {}

  /** Shares of requests that get a fault, each in [0, 1]; rolled in this order. */
  public record Faults(double drop, double error500, double error503, double slow, long slowMillis, long seed) {
    public static Faults none() {
      return new Faults(0, 0, 0, 0, 0, 0);
    }
  }

  private final int upstreamPort;
  private final ProviderRules rules;
  private final ServerSocket server;
  private final ExecutorService threads;
  private final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
  private final List<Refusal> refusals = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger injected = new AtomicInteger();
  private volatile Faults faults = Faults.none();
  private volatile Random random = new Random(0);
  private volatile Predicate<Seen> hardFailure = s -> false;
  private volatile boolean closed;

  /** A gate answering as {@code provider} does for {@code bucket} in {@code region}. */
  ProviderGate(int upstreamPort, StorageProvider provider, String region, String bucket) throws IOException {
    this.upstreamPort = upstreamPort;
    this.rules = ProviderRules.of(provider, region, bucket);
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "gate-" + provider.name().toLowerCase(Locale.ROOT));
      t.setDaemon(true);
      return t;
    });
    threads.execute(this::acceptLoop);
  }

  public StorageProvider provider() {
    return rules.provider();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  /** {@code http://localhost:<port>}: a host name, so a client addressing the bucket virtual-host style tries {@code <bucket>.localhost}. */
  public String hostEndpoint() {
    return "http://localhost:" + port();
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
    refusals.clear();
    injected.set(0);
  }

  public List<Seen> seen() {
    synchronized (seen) {
      return List.copyOf(seen);
    }
  }

  /** Every request refused as the provider would refuse it, in order. */
  public List<Refusal> refusals() {
    synchronized (refusals) {
      return List.copyOf(refusals);
    }
  }

  /** How many requests the rule named {@code rule} refused (the names are {@link ProviderRules}' constants). */
  public long refused(String rule) {
    return refusals().stream().filter(r -> r.rule().equals(rule)).count();
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
        HttpHead req = HttpHead.read(cin);
        if (req == null) {
          return;
        }
        Seen s = new Seen(req.method(), req.target(), req.headers);
        seen.add(s);
        boolean expectContinue = "100-continue".equalsIgnoreCase(req.header("expect"));

        Optional<ProviderRules.Answer> refusal = rules.check(req);
        if (refusal.isPresent()) {
          ProviderRules.Answer answer = refusal.get();
          refusals.add(new Refusal(answer.rule(), req.method(), req.target(), answer.status(), answer.code(),
              answer.message()));
          reject(req, cin, cout, expectContinue, answer.status(), answer.reason(), answer.code(), answer.message(),
              answer.extraXml());
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

        rules.forwarded(req);
        if (upstream == null) {
          upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
          uin = new BufferedInputStream(upstream.getInputStream());
          uout = upstream.getOutputStream();
        }
        uout.write(req.raw);
        uout.flush();
        HttpHead resp;
        if (expectContinue) {
          resp = HttpHead.read(uin);
          if (resp == null) {
            return;
          }
          if (resp.status() == 100) {
            cout.write(resp.raw);
            cout.flush();
            copyBody(req, cin, uout);
            uout.flush();
            resp = HttpHead.read(uin);
          } else {
            // Final answer before the body: the client will not send it; end the exchange.
            relayResponse(req, resp, uin, cout);
            return;
          }
        } else {
          copyBody(req, cin, uout);
          uout.flush();
          resp = HttpHead.read(uin);
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
  private static boolean relayResponse(HttpHead req, HttpHead resp, InputStream uin, OutputStream cout) throws IOException {
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

  private static void reject(HttpHead req, InputStream cin, OutputStream cout, boolean expectContinue,
      int status, String reason, String code, String message) throws IOException {
    reject(req, cin, cout, expectContinue, status, reason, code, message, "");
  }

  private static void reject(HttpHead req, InputStream cin, OutputStream cout, boolean expectContinue,
      int status, String reason, String code, String message, String extraXml) throws IOException {
    if (!expectContinue) {
      copyBody(req, cin, OutputStream.nullOutputStream());
    }
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
        + message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") + "</Message>" + extraXml + "<RequestId>gate</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
    boolean head = req.method().equals("HEAD");
    String headers = "HTTP/1.1 " + status + " " + reason + "\r\n"
        + "Content-Type: application/xml\r\n"
        + "Content-Length: " + (head ? 0 : body.length) + "\r\n"
        + "x-amz-request-id: gate\r\n"
        + "Connection: close\r\n\r\n";
    cout.write(headers.getBytes(StandardCharsets.ISO_8859_1));
    if (!head) {
      cout.write(body);
    }
    cout.flush();
  }

  private static void copyBody(HttpHead req, InputStream in, OutputStream out) throws IOException {
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

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    threads.shutdownNow();
  }
}
