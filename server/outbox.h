// A client's bounded outbox. Two kinds of message wait in it:
// - reliable ones (replies, events, the handshake reply) in a FIFO that is never dropped from; its bytes
//   are counted so the session can stop reading from, and finally close, a client that does not read;
// - state frames, at most one per subscription: a newer frame replaces an unsent older one (counted as
//   dropped), so a slow reader costs one frame per subscription and never more.
// Frames are shared between clients (a frame_buf is encoded once per world, include mask and step and
// referenced by every outbox it is offered to); each client's message adds a small header in front
// (ServerMessage.state's tag and length, the subscription id and the drop count), which is valid
// protobuf because fields of concatenated encodings merge.
// Reliable messages go out first, then frames round-robin over subscriptions. Loop thread only.
#ifndef SINEW_SERVER_OUTBOX_H
#define SINEW_SERVER_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// An encoded StateFrame without its per-subscription fields, shared by reference count.
typedef struct frame_buf
{
	int refs;
	uint64_t tick;
	size_t size;
	uint8_t data[];
} frame_buf;

frame_buf* frame_buf_new(size_t size);
void frame_buf_ref(frame_buf* frame);
void frame_buf_unref(frame_buf* frame);

// A reliable message: allocated with its bytes inline (see outbox_msg_new).
typedef struct outbox_msg
{
	struct outbox_msg* next;
	uint64_t queued_ns;
	size_t size;
	uint8_t data[];
} outbox_msg;

// The message encoded in `bytes` (which must have been allocated with OUTBOX_MSG_HEADROOM bytes in
// front of the message, see wire_encode_alloc) becomes an outbox_msg without copying.
#define OUTBOX_MSG_HEADROOM (offsetof(outbox_msg, data))
outbox_msg* outbox_msg_adopt(uint8_t* buffer_with_headroom, size_t size);
void outbox_msg_free(outbox_msg* msg);

typedef struct outbox_slot
{
	uint64_t subscription_id;
	frame_buf* frame; // unsent frame or NULL
	uint32_t dropped; // replaced since the last one handed out
} outbox_slot;

typedef struct outbox
{
	outbox_msg* head;
	outbox_msg* tail;
	size_t reliable_bytes;
	int reliable_count;
	outbox_slot* slots;
	int slot_count;
	int slot_capacity;
	int next_slot; // round-robin start
	uint64_t frames_dropped;
	uint64_t frames_sent;
} outbox;

// One message handed to a transport: head then body, both to be written in order. Release it with
// outbox_item_release once written (or dropped at close).
typedef struct outbox_item
{
	uint8_t head[40];
	size_t head_size;
	const uint8_t* body;
	size_t body_size;
	outbox_msg* msg;  // owned reliable message, or NULL
	frame_buf* frame; // referenced frame, or NULL
} outbox_item;

void outbox_init(outbox* box);
// Drop everything (at close).
void outbox_clear(outbox* box);

void outbox_push(outbox* box, outbox_msg* msg);

// Add or remove a subscription's slot. Adding fails only when memory runs out.
bool outbox_add_slot(outbox* box, uint64_t subscription_id);
void outbox_remove_slot(outbox* box, uint64_t subscription_id);

// Offer a frame to a subscription's slot; returns true if it replaced an unsent one (a dropped frame).
// Does nothing (returns false) if the slot does not exist.
bool outbox_offer_frame(outbox* box, uint64_t subscription_id, frame_buf* frame);

// The next message to write, if any. Frames get their header here.
bool outbox_pop(outbox* box, outbox_item* item);
void outbox_item_release(outbox_item* item);

bool outbox_is_empty(const outbox* box);
// Time the oldest reliable message has been waiting (0 if none), ns.
uint64_t outbox_oldest_age_ns(const outbox* box, uint64_t now_ns);
// Bytes held: reliable messages plus unsent frames (frames counted whole even when shared).
size_t outbox_bytes(const outbox* box);

#endif
