// The TCP transport: each message is prefixed by its length as a protobuf varint (the standard
// delimited form). A length above max_message_bytes, or a malformed prefix, closes the connection with
// a reason. Reading stops while the session does not accept messages (backpressure); at most one write
// is in flight per connection, gathering several outbox messages.
#ifndef SINEW_SERVER_TCP_H
#define SINEW_SERVER_TCP_H

struct server;
typedef struct tcp_listener tcp_listener;

// Listen on host:port (port 0: any free port); *bound_port receives the port. Returns 0 or a libuv error.
int tcp_listen(struct server* srv, const char* host, int port, tcp_listener** out, int* bound_port);
// Stop accepting (connections stay open). The listener is freed when its handle has closed.
void tcp_listener_close(tcp_listener* listener);

#endif
