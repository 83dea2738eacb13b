// The HTTP and WebSocket port, served by libwebsockets on the server's libuv loop (a foreign loop for
// lws, through its libuv event-library plugin).
//   GET /healthz   200 "ok" while the server runs (503 "shutting down" during shutdown)
//   GET /metrics   Prometheus text (metrics.c)
//   GET /...       files from --web-root (the dashboard) if it is a directory, else 404
//   WebSocket      subprotocol "sinew.v1": one ClientMessage or ServerMessage per binary message (large
//                  server messages are sent as continuation fragments of one message, 64 KiB each, so a
//                  slow reader holds at most one fragment in lws and one frame per subscription here)
#ifndef SINEW_SERVER_WS_H
#define SINEW_SERVER_WS_H

struct server;
typedef struct ws_server ws_server;

// Start listening on host:port (0: any free port; negative: no listening socket, for ws_adopt only);
// *bound_port receives the port. Returns 0 or a libuv error (UV_EADDRINUSE, ...); when the port could not
// be had, *out is set all the same (ws_stop and ws_free it as usual: its listener is a handle on the loop).
int ws_start(struct server* srv, const char* host, int port, const char* web_root, ws_server** out, int* bound_port);
// Serve a connected socket as if it had been accepted (the HTTP fuzz target feeds one end of a socket
// pair). lws owns fd from now on, also on failure. Returns 0 or -1.
int ws_adopt(ws_server* ws, int fd);
// Accepted or adopted connections open (HTTP and WebSocket).
int ws_connections(const ws_server* ws);
// Start destroying the lws context (closes its connections); the loop finishes closing lws's handles.
void ws_stop(ws_server* ws);
// After the loop has ended: finish destroying the context and free.
void ws_free(ws_server* ws);

#endif
