/**
 * docs/operations.md's "Behind a load balancer" NGINX configuration: keygate's
 * replicas in one `upstream` block, `ports` their loopback ports, `port` the
 * one NGINX listens on. Kept here once so the test runs what the page shows.
 */
export const loadBalancerServer = (ports: number[]) => (port: number) => `
  upstream keygate {
    # Round robin (the default): no stickiness is needed, a session's state is in PostgreSQL.
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    # Idle connections kept per worker, for all replicas together: above the requests in flight, so new ones are
    # rarely opened (a connection still being accepted when a draining replica closes its listener is reset).
    keepalive 64;
    # Below the replicas' keep-alive timeout (Node's 5 s), so NGINX never reuses a connection a replica is closing.
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://keygate;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # SSE answers (/mcp) must reach the client event by event.
      proxy_buffering off;
      # Session streams stay open for long; keygate writes a keep-alive comment every 15 s.
      proxy_read_timeout 1h;
      # Retry on another replica only when a replica could not be reached (not listening, reset). NGINX never
      # resends a POST or PATCH once it was passed on (no non_idempotent), and no timeout is retried: a tool
      # call or key creation that reached a replica may have run, and running it twice would spend quota,
      # write a second audit event or create a second key.
      proxy_next_upstream error;
      proxy_next_upstream_tries 3;
    }
  }
`;
