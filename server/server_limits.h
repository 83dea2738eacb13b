// Every limit of the server in one place, each with its reason. Each one is overridden by a flag and an
// environment variable derived from its name: max_message_bytes is --max-message-bytes and
// SINEW_MAX_MESSAGE_BYTES (config.c). (Named server_limits.h, not limits.h: that name would shadow the
// C library's <limits.h> for every file with server/ on its include path.) A limit that is reached gives LIMIT_REACHED with the limit's name,
// or backpressure where stated.
#ifndef SINEW_SERVER_LIMITS_H
#define SINEW_SERVER_LIMITS_H

#include <stdint.h>

// X(name, default, min, max, unit, reason)
#define SV_LIMITS(X)                                                                                                   \
	X(max_message_bytes, 16777216, 1024, 1073741824, "bytes",                                                          \
	  "largest message a client may send (a length prefix or WebSocket message above it closes the "                   \
	  "connection): bounds the receive buffer of every connection. 16 MiB holds a snapshot of a "                      \
	  "10,000-body world")                                                                                             \
	X(max_connections, 256, 1, 100000, "connections",                                                                  \
	  "open TCP and WebSocket sessions together: each holds buffers and an outbox")                                    \
	X(max_connections_per_client, 64, 1, 100000, "connections",                                                        \
	  "sessions (TCP and WebSocket) one client address holds, and apart from them its connections to the HTTP and "    \
	  "WebSocket port: one address cannot take max_connections or max_http_connections from everyone. A client is "    \
	  "its address, as for max_kept_worlds_per_client (clients behind one proxy or NAT share it)")                     \
	X(max_receive_bytes, 268435456, 1048576, 68719476736, "bytes",                                                     \
	  "receive buffers of all connections together, beyond the first 128 KiB of each (a message being "                \
	  "received is held whole, up to max_message_bytes): a connection whose message would need more is closed "        \
	  "with LIMIT_REACHED, so connections that each send most of a large message and stop cannot take the "            \
	  "server's memory. A buffer shrinks back once its message has been handled")                                      \
	X(max_queued_bytes, 268435456, 1048576, 68719476736, "bytes",                                                      \
	  "commands that wait for a busy world (copies of their messages), all together: one that would need more is "     \
	  "refused with LIMIT_REACHED, and its connection stays. Apart from max_receive_bytes, so that a client queueing " \
	  "behind its own long step cannot get other clients' large messages refused; and one client address (all its "    \
	  "connections) holds at most half, so that others can still queue behind their own steps")                        \
	X(min_receive_bytes_per_s, 65536, 1024, 1073741824, "bytes/s",                                                     \
	  "a message that has outgrown its connection's first 128 KiB must keep arriving at this rate on average: each "   \
	  "of its bytes so far buys 1/rate s, counted from when it outgrew them (not while the server itself stops "       \
	  "reading). Past that the connection is closed with TIMEOUT, so a client that sends part of a large message "     \
	  "and stops, or trickles it, holds its share of max_receive_bytes no longer than its bytes pay for (a 16 MiB "    \
	  "message: 256 s)")                                                                                               \
	X(max_http_connections, 512, 1, 100000, "connections",                                                             \
	  "connections the HTTP and WebSocket port holds at once (requests in progress, idle keep-alive "                  \
	  "connections, WebSocket sessions); more are closed as soon as they are accepted, so a flood of "                 \
	  "connections cannot take the descriptors that sessions, assets and saved worlds need (with "                     \
	  "max_connections, below the usual limit of 1024 open files)")                                                    \
	X(max_worlds, 1024, 1, 1000000, "worlds", "worlds on the server: each holds a core world and a thread-pool share") \
	X(max_worlds_per_client, 256, 1, 1000000, "worlds",                                                                \
	  "worlds one session may own, so one client cannot take them all")                                                \
	X(max_kept_worlds_per_client, 64, 0, 1000000, "worlds",                                                            \
	  "worlds kept after their owner disconnects (keep_after_disconnect, or adopted by JoinWorld as owner) "           \
	  "that one client may have. A client is its address (the peer's IP without the port, an IPv6 one's /64: what "    \
	  "reconnecting cannot change; clients behind one proxy or NAT share it), so reconnecting does not escape it and " \
	  "one address cannot fill max_worlds with worlds nobody is connected to")                                         \
	X(kept_world_idle_ms, 3600000, 1000, 2592000000, "ms",                                                             \
	  "a kept world that has had no owner, member or subscriber for this long is destroyed: an abandoned world "       \
	  "does not hold memory, a world slot and (in real time) a worker forever. An hour covers a reconnect, a "         \
	  "dashboard reload or a client's restart")                                                                        \
	X(max_bodies_per_world, 20000, 1, 10000000, "bodies",                                                              \
	  "bodies plus articulation links in one world: bounds a world's memory and its state frames")                     \
	X(max_joints_per_world, 20000, 1, 10000000, "joints", "maximal-coordinate joints in one world")                    \
	X(max_mimic_joints_per_world, 1024, 0, 1000000, "mimic joints",                                                    \
	  "mimic joints in one world (CreateMimic and LoadUrdf's <mimic> elements; a humanoid hand has about 17). Each "   \
	  "is a row of its articulation's dense hold system, so its step grows with their cube; the core takes at "        \
	  "most 512 per articulation")                                                                                     \
	X(max_links_per_articulation, 256, 1, 4096, "links",                                                               \
	  "links decoded for one CreateArticulation (the schema does not bound them); a state frame carries "              \
	  "at most 256 links and 768 dofs of one articulation, so larger ones are refused anyway")                         \
	X(max_shapes_per_body, 256, 1, 100000, "shapes",                                                                   \
	  "shapes one CreateBody gives its body, or one CreateArticulation one link (the schema does not bound them): "    \
	  "a robot link's collision needs a few, a compound body tens")                                                    \
	X(max_shapes_per_world, 65536, 1, 10000000, "shapes",                                                              \
	  "collision shapes in one world (bodies', links' and the world's own): bounds a world's collision memory and "    \
	  "its DescribeWorld reply (C7's thousand spheres need 1,000)")                                                    \
	X(max_mesh_triangles_per_world, 2097152, 1, 2097152, "triangles",                                                  \
	  "triangles of all the static triangle meshes of one world together: one core mesh holds at most 2^21 "           \
	  "(about 120 MB with its bounding volume hierarchy), and without a bound per world, mesh after mesh would "       \
	  "grow a world without end")                                                                                      \
	X(max_asset_bytes, 16777216, 1, 1073741824, "bytes",                                                               \
	  "bytes of one model asset (a mesh file: PutAsset, LoadUrdf.assets, a file the model path holds): the "           \
	  "importer's bound per mesh file; the largest published robot mesh we know is about 2 MB")                        \
	X(max_assets_per_load, 256, 1, 65536, "files",                                                                     \
	  "files one LoadUrdf names (and hashes one FindAssets asks about): a humanoid names about 100 mesh files")        \
	X(max_asset_bytes_per_load, 268435456, 1, 4294967296, "bytes",                                                     \
	  "bytes of the files one LoadUrdf reads together (its assets, and the files of a model on the model path): "      \
	  "what one load makes the server read and keep while it builds (the importer's bound per model)")                 \
	X(max_asset_store_bytes, 536870912, 1048576, 68719476736, "bytes",                                                 \
	  "the asset store in memory: mesh files clients sent (kept so that loading a robot again sends nothing new) and " \
	  "the meshes served to clients (GetMesh, /assets/HASH). Past it the least recently used that nothing uses are "   \
	  "dropped, down to 7/8 of it (a mesh is in use while a world's robot or shape has it, a file while a load reads " \
	  "it); a load or put that cannot fit is refused")                                                                 \
	X(max_contacts_per_frame, 4096, 0, 1000000, "contacts",                                                            \
	  "contact manifolds (up to 4 points each, about 250 bytes) one state frame carries (INCLUDE_CONTACTS); more are " \
	  "counted in contacts_dropped: bounds a frame of a heap of shapes to about 1 MB")                                 \
	X(max_contact_events_per_frame, 1024, 1, 65536, "events",                                                          \
	  "contact and sensor begin/end events sent with one frame of a subscription (INCLUDE_CONTACT_EVENTS; a world "    \
	  "keeps four times this many between frames); more are counted in dropped. Events are never dropped from the "    \
	  "outbox, so this bounds what a subscriber that reads slowly queues per frame")                                   \
	X(max_subscriptions_per_client, 64, 1, 100000, "subscriptions",                                                    \
	  "state subscriptions of one session: each holds at most one unsent frame in its outbox")                         \
	X(max_requests_in_flight, 64, 1, 100000, "requests",                                                               \
	  "requests of one session received but not yet answered; above it the server stops reading from "                 \
	  "that client (backpressure) until replies go out")                                                               \
	X(max_steps_per_request, 100000, 1, 1000000000, "steps",                                                           \
	  "steps one Step command may ask for, so one command cannot hold a world for hours")                              \
	X(max_commands_per_pass, 16, 1, 100000, "commands",                                                                \
	  "commands of one connection handled in one pass of the event loop; then it waits until every other "             \
	  "connection had its turn, so a client pipelining requests cannot hold the loop")                                 \
	X(max_bytes_per_pass, 262144, 1024, 1073741824, "bytes",                                                           \
	  "bytes of requests and replies of one connection in one loop pass (at least one command always runs): "          \
	  "a client pipelining large replies (GetState of a big world) yields after about this much")                      \
	X(max_pass_time_us, 2000, 10, 10000000, "us",                                                                      \
	  "loop time the commands of one connection may take in one pass (at least one command always runs): with "        \
	  "the command and byte shares it bounds how long another client waits for its turn, about this times the "        \
	  "busy connections plus one command each")                                                                        \
	X(outbox_pause_bytes, 1048576, 1024, 4294967296, "bytes",                                                          \
	  "replies and events queued for one client above which the server stops reading its commands until it "           \
	  "reads (or half of max_outbox_bytes if that is less): a client that does not read its replies holds about "      \
	  "this much, plus one reply and the socket buffers")                                                              \
	X(max_outbox_bytes, 67108864, 65536, 4294967296, "bytes",                                                          \
	  "replies and events queued for one client and not yet written, at most: past it the client is closed "           \
	  "(ERR_SLOW_CLIENT). Reading stops at outbox_pause_bytes, so only events and the replies of commands "            \
	  "already read can reach it; it bounds a non-reading client's memory")                                            \
	X(socket_send_buffer_bytes, 262144, 4096, 67108864, "bytes",                                                       \
	  "kernel send buffer of each client socket (SO_SNDBUF): bounds the kernel memory a slow reader holds "            \
	  "and keeps undelivered frames in the outbox, where a newer one replaces them, instead of queued "                \
	  "stale in the kernel")                                                                                           \
	X(reply_timeout_ms, 10000, 10, 3600000, "ms",                                                                      \
	  "how long replies may wait undelivered (the client is not reading) before the client is closed")                 \
	X(handshake_timeout_ms, 5000, 10, 3600000, "ms",                                                                   \
	  "how long a new connection may take to send its handshake, and an HTTP request or WebSocket upgrade its "        \
	  "headers (in whole seconds there): a slow sender holds a socket no longer")                                      \
	X(lockstep_timeout_ms, 1000, 1, 3600000, "ms",                                                                     \
	  "default wait for a lockstep controller's input after the first input of a tick; then it is "                    \
	  "demoted to observer so one dead client never stalls the others")                                                \
	X(max_stream_rate_hz, 1000, 1, 100000, "Hz", "highest state frame rate a subscription may ask for")                \
	X(inline_step_budget_us, 50, 0, 1000000, "us",                                                                     \
	  "a Step command whose cost, measured on the world as it is now (same objects and solver settings), is "          \
	  "below this runs on the loop thread: handing it to a worker costs more than the step. A world's first "          \
	  "step, and its first after it changed, always goes to a worker. 0 sends every step to the workers")              \
	X(fast_slice_ms, 5, 1, 10000, "ms",                                                                                \
	  "an as-fast-as-possible world steps at most this long before it yields to its queued commands")                  \
	X(max_catchup_ms, 250, 1, 60000, "ms",                                                                             \
	  "a real-time world that falls this far behind its schedule gives up catching up (counted as a lag "              \
	  "reset) instead of stepping in a burst")                                                                         \
	X(state_snapshot_interval_ms, 10000, 100, 86400000, "ms",                                                          \
	  "how often kept worlds that changed are written to the state directory (--state-dir): a crash or a "             \
	  "kill loses at most this much of them; each write serialises the world on the loop thread")                      \
	X(shutdown_grace_ms, 2000, 0, 600000, "ms",                                                                        \
	  "how long shutdown waits for in-flight steps and for replies to be written before closing: a Step still "        \
	  "running near its end stops between steps and answers what it did; a single step still running 1 s "             \
	  "after it is not waited for. Orchestrators stop a container after 10 s (docker) or the pod's grace")

// Ranges of values clients choose, fixed by what they mean rather than by the server's resources.
// A real-time world's rate (TimeSettings.rate, simulated seconds per wall-clock second): slower than a
// thousandth of real time is a pause (TIME_PAUSED and Step do that), faster than a thousand times is what
// TIME_FAST is for. Pacing stays robust to any rate and time step in range (world_host.c).
#define SV_MIN_REALTIME_RATE 1e-3
#define SV_MAX_REALTIME_RATE 1e3
// The slowest state stream (Subscribe.rate_hz): a frame every 1000 s. Slower would be a subscription that
// never sends a second frame; GetState does that.
#define SV_MIN_STREAM_RATE_HZ 1e-3

typedef struct server_limits
{
#define SV_LIMIT_FIELD_(name, def, lo, hi, unit, reason) int64_t name;
	SV_LIMITS(SV_LIMIT_FIELD_)
#undef SV_LIMIT_FIELD_
} server_limits;

#endif
