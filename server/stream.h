// Subscriptions: a session asks for a world's state at a rate with an include mask. After each step the
// host offers the new state to every subscription that is due (its own absolute schedule: frame k is due
// at start + k / rate, so rates do not drift); the frame goes into the session's outbox slot for that
// subscription, replacing an unsent older one (counted as dropped). A subscriber whose world stops
// (paused, lockstep waiting) still gets the latest state: the host's flush timer encodes what is owed.
#ifndef SINEW_SERVER_STREAM_H
#define SINEW_SERVER_STREAM_H

#include "outbox.h"
#include "session.h"
#include "stepper.h"

#include <uv.h>

#include <stdbool.h>
#include <stdint.h>

struct server;
typedef struct world_host world_host;

// A world's subscriptions (ids into the server's pool) and the timer that offers the latest state to
// the ones still owed it while the world does not step.
typedef struct world_subscriptions
{
	uint64_t* ids;
	int count;
	int capacity;
	uv_timer_t flush_timer;
} world_subscriptions;

typedef struct subscription
{
	uint64_t id;
	uint64_t session_id;
	uint64_t world_id;
	uint32_t include;   // normalised mask: frame bits 1..127, and INCLUDE_CONTACT_EVENTS
	uint64_t event_seq; // contact events: the sequence number of the next record it is owed
	double rate_hz;
	uint64_t period_ns;
	uint64_t next_due_ns;
	uint64_t last_tick; // tick of the last frame offered; UINT64_MAX before the first
} subscription;

// Set up the host's subscription list on the loop; returns the number of handles it opened, which
// stream_close closes with `closed` as their close callback.
int stream_init(world_host* host, uv_loop_t* loop);
void stream_close(world_host* host, uv_close_cb closed);

// Subscribe (rate and include validated by the caller). Sends the current state at once.
int32_t stream_subscribe(struct server* srv, session* s, world_host* host, double rate_hz, uint32_t include,
						 uint64_t* out_id, char* detail, size_t detail_capacity);
// False if id is not a live subscription of s.
bool stream_unsubscribe(struct server* srv, session* s, uint64_t id);
void stream_session_gone(struct server* srv, session* s);
// The world is going away: end its subscriptions and free the list (the host has told the sessions).
void stream_world_gone(world_host* host);

// Whether encoding frames of these include masks is small enough for the loop thread (a few hundred
// microseconds: the world's bodies and links times the masks, at most STREAM_LOOP_FRAME_OBJECTS); larger
// ones are encoded on a worker (after a step by the step's job, between steps by a flush job).
#define STREAM_LOOP_FRAME_OBJECTS 4096
bool stream_frames_small(const world_host* host, const uint64_t masks[STEP_MASK_WORDS]);

// Include masks of frames (bit m for mask m) that subscriptions due by `now_ns` need.
void stream_masks_due(const world_host* host, uint64_t now_ns, uint64_t masks[STEP_MASK_WORDS]);
// Offer frames[mask] to each due subscription; arms the host's flush timer for subscriptions still owed
// the latest state.
void stream_publish(world_host* host, frame_buf* const frames[STEP_MASKS], uint64_t now_ns);
// Flush timer: encode and offer the latest state to subscriptions owed it (world idle).
void stream_flush(world_host* host);

// The world's state changed without a step (a command, a restore): every subscription is owed a frame.
void stream_state_changed(world_host* host);

#endif
