// Subscriptions and frame distribution.
#include "stream.h"

#include "errors.h"
#include "frame.h"
#include "log.h"
#include "server.h"
#include "world_host.h"

#include <pb_encode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int stream_init(world_host* host, uv_loop_t* loop)
{
	uv_timer_init(loop, &host->subs.flush_timer);
	host->subs.flush_timer.data = host;
	return 1;
}

void stream_close(world_host* host, uv_close_cb closed)
{
	uv_close((uv_handle_t*)&host->subs.flush_timer, closed);
}

static subscription* get_sub(const server* srv, uint64_t id)
{
	return idpool_get(&srv->subscriptions, id);
}

static void remove_from_host(world_host* host, uint64_t id)
{
	for (int i = 0; i < host->subs.count; ++i)
	{
		if (host->subs.ids[i] == id)
		{
			host->subs.ids[i] = host->subs.ids[--host->subs.count];
			return;
		}
	}
}

// The include mask of the frames a subscription gets (contact events travel apart).
static uint32_t frame_mask(const subscription* sub)
{
	return sub->include & (STEP_MASKS - 1u);
}

static bool wants_events(const subscription* sub)
{
	return (sub->include & sinew_v1_Include_INCLUDE_CONTACT_EVENTS) != 0;
}

// What a ContactEvents' changes callback reads: records [from, to) of a host's log.
typedef struct event_range
{
	const contact_log* log;
	uint64_t from;
	uint64_t to;
} event_range;

static bool encode_changes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const event_range* r = *arg;
	for (uint64_t i = r->from; i < r->to; ++i)
	{
		const contact_record* c = r->log->records + (i % (uint64_t)r->log->capacity);
		sinew_v1_ContactChange out = sinew_v1_ContactChange_init_zero;
		out.kind = c->kind;
		out.tick = c->tick;
		out.has_a = true;
		out.a = c->a;
		out.has_b = true;
		out.b = c->b;
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_ContactChange_fields, &out))
		{
			return false;
		}
	}
	return true;
}

// The contact events a subscription is owed, as one event before its frame: at most
// max_contact_events_per_frame (the rest wait for its next frame), and a count of those the log overwrote
// before it got them.
static void send_contact_events(server* srv, session* s, subscription* sub, world_host* host)
{
	const contact_log* log = &host->contacts;
	if (!wants_events(sub) || log->records == NULL || sub->event_seq >= log->head)
	{
		return;
	}
	uint64_t oldest = log->head > (uint64_t)log->capacity ? log->head - (uint64_t)log->capacity : 0;
	uint64_t dropped = sub->event_seq < oldest ? oldest - sub->event_seq : 0;
	event_range range = { log, sub->event_seq + dropped, 0 };
	uint64_t max = (uint64_t)srv->config.limits.max_contact_events_per_frame;
	range.to = log->head - range.from > max ? range.from + max : log->head;
	sinew_v1_Event event = sinew_v1_Event_init_zero;
	event.world_id = host->id;
	event.which_event = sinew_v1_Event_contacts_tag;
	event.event.contacts.subscription_id = sub->id;
	event.event.contacts.changes.funcs.encode = encode_changes;
	event.event.contacts.changes.arg = &range;
	event.event.contacts.dropped = dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped;
	session_event(s, &event);
	sub->event_seq = range.to;
}

// Offer one frame to one subscription (after the contact events it is owed).
static void offer(server* srv, subscription* sub, frame_buf* frame, uint64_t now_ns)
{
	session* s = server_session(srv, sub->session_id);
	if (s == NULL)
	{
		return;
	}
	world_host* host = server_world(srv, sub->world_id);
	if (host != NULL)
	{
		send_contact_events(srv, s, sub, host);
	}
	if (outbox_offer_frame(&s->out, sub->id, frame))
	{
		srv->metrics.frames_dropped += 1;
	}
	sub->last_tick = frame->tick;
	// Next frame due one period later on the absolute schedule; if we are more than a period behind,
	// restart the schedule from now rather than sending a burst.
	sub->next_due_ns += sub->period_ns;
	if (sub->next_due_ns + sub->period_ns < now_ns)
	{
		sub->next_due_ns = now_ns + sub->period_ns;
	}
	s->ops->kick(s->conn);
}

int32_t stream_subscribe(server* srv, session* s, world_host* host, double rate_hz, uint32_t include, uint64_t* out_id,
						 char* detail, size_t cap)
{
	subscription* sub = calloc(1, sizeof(subscription));
	if (sub == NULL)
	{
		snprintf(detail, cap, "out of memory");
		return SN_ERR_NO_MEMORY;
	}
	if (host->subs.count == host->subs.capacity)
	{
		int capacity = host->subs.capacity > 0 ? 2 * host->subs.capacity : 4;
		uint64_t* subs = realloc(host->subs.ids, (size_t)capacity * sizeof(uint64_t));
		if (subs == NULL)
		{
			free(sub);
			snprintf(detail, cap, "out of memory");
			return SN_ERR_NO_MEMORY;
		}
		host->subs.ids = subs;
		host->subs.capacity = capacity;
	}
	sub->id = idpool_add(&srv->subscriptions, sub);
	if (sub->id == 0 || !outbox_add_slot(&s->out, sub->id))
	{
		if (sub->id != 0)
		{
			idpool_remove(&srv->subscriptions, sub->id);
		}
		free(sub);
		snprintf(detail, cap, "out of memory");
		return SN_ERR_NO_MEMORY;
	}
	sub->session_id = s->id;
	sub->world_id = host->id;
	sub->include = frame_include_mask(include);
	if (wants_events(sub))
	{
		contact_log* log = &host->contacts;
		if (log->records == NULL)
		{
			int capacity = 4 * (int)srv->config.limits.max_contact_events_per_frame;
			log->records = malloc((size_t)capacity * sizeof(contact_record));
			if (log->records == NULL)
			{
				outbox_remove_slot(&s->out, sub->id);
				idpool_remove(&srv->subscriptions, sub->id);
				free(sub);
				snprintf(detail, cap, "out of memory");
				return SN_ERR_NO_MEMORY;
			}
			log->capacity = capacity;
		}
		log->subscribers += 1;
		sub->event_seq = log->head; // events from now on
	}
	sub->rate_hz = rate_hz;
	sub->period_ns = (uint64_t)llround(1e9 / rate_hz);
	uint64_t now = server_now_ns();
	sub->next_due_ns = now;
	sub->last_tick = UINT64_MAX;
	host->subs.ids[host->subs.count++] = sub->id;
	s->subscription_count += 1;
	// The current state at once, so a subscriber of a paused world sees it.
	frame_buf* frame =
		frame_encode(host->world, host->id, frame_mask(sub), (int)srv->config.limits.max_contacts_per_frame, now);
	if (frame != NULL)
	{
		srv->metrics.frames_encoded += 1;
		offer(srv, sub, frame, now);
		frame_buf_unref(frame);
	}
	*out_id = sub->id;
	return 0;
}

static void end_subscription(server* srv, subscription* sub, session* s, world_host* host)
{
	if (s != NULL)
	{
		outbox_remove_slot(&s->out, sub->id);
		s->subscription_count -= 1;
	}
	if (host != NULL)
	{
		remove_from_host(host, sub->id);
		if (wants_events(sub) && host->contacts.subscribers > 0)
		{
			host->contacts.subscribers -= 1;
		}
	}
	idpool_remove(&srv->subscriptions, sub->id);
	free(sub);
}

bool stream_unsubscribe(server* srv, session* s, uint64_t id)
{
	subscription* sub = get_sub(srv, id);
	if (sub == NULL || sub->session_id != s->id)
	{
		return false;
	}
	end_subscription(srv, sub, s, server_world(srv, sub->world_id));
	return true;
}

void stream_session_gone(server* srv, session* s)
{
	for (int i = 0; i < srv->subscriptions.high; ++i)
	{
		subscription* sub = srv->subscriptions.items[i];
		if (sub != NULL && sub->session_id == s->id)
		{
			end_subscription(srv, sub, s, server_world(srv, sub->world_id));
		}
	}
}

void stream_world_gone(world_host* host)
{
	server* srv = host->srv;
	while (host->subs.count > 0)
	{
		subscription* sub = get_sub(srv, host->subs.ids[host->subs.count - 1]);
		if (sub == NULL)
		{
			host->subs.count -= 1;
			continue;
		}
		end_subscription(srv, sub, server_session(srv, sub->session_id), host);
	}
	free(host->subs.ids);
	host->subs.ids = NULL;
	host->subs.capacity = 0;
}

void stream_masks_due(const world_host* host, uint64_t now_ns, uint64_t masks[STEP_MASK_WORDS])
{
	for (int w = 0; w < STEP_MASK_WORDS; ++w)
	{
		masks[w] = 0;
	}
	for (int i = 0; i < host->subs.count; ++i)
	{
		const subscription* sub = get_sub(host->srv, host->subs.ids[i]);
		if (sub != NULL && sub->next_due_ns <= now_ns)
		{
			uint32_t m = frame_mask(sub);
			masks[m / 64] |= (uint64_t)1 << (m % 64);
		}
	}
}

// Arm the flush timer for the earliest subscription still owed the latest state.
static void on_flush(uv_timer_t* timer)
{
	stream_flush(timer->data);
}

static void arm_flush(world_host* host, uint64_t now_ns)
{
	uint64_t earliest = UINT64_MAX;
	for (int i = 0; i < host->subs.count; ++i)
	{
		const subscription* sub = get_sub(host->srv, host->subs.ids[i]);
		if (sub != NULL && sub->last_tick != host->cached.step_count && sub->next_due_ns < earliest)
		{
			earliest = sub->next_due_ns;
		}
	}
	if (earliest == UINT64_MAX || host->closed)
	{
		return;
	}
	uint64_t wait_ms = earliest > now_ns ? (earliest - now_ns + 999999u) / 1000000u : 0;
	uv_timer_start(&host->subs.flush_timer, on_flush, wait_ms, 0);
}

void stream_publish(world_host* host, frame_buf* const frames[STEP_MASKS], uint64_t now_ns)
{
	server* srv = host->srv;
	for (int i = 0; i < host->subs.count; ++i)
	{
		subscription* sub = get_sub(srv, host->subs.ids[i]);
		if (sub == NULL || sub->next_due_ns > now_ns)
		{
			continue;
		}
		frame_buf* frame = frames[frame_mask(sub)];
		if (frame != NULL && frame->tick != sub->last_tick)
		{
			offer(srv, sub, frame, now_ns);
		}
	}
	arm_flush(host, now_ns);
}

bool stream_frames_small(const world_host* host, const uint64_t masks[STEP_MASK_WORDS])
{
	int count = 0;
	for (int w = 0; w < STEP_MASK_WORDS; ++w)
	{
		count += __builtin_popcountll(masks[w]);
	}
	int64_t objects = (int64_t)host->cached.body_count + host->cached.articulation_links + 1;
	return objects * count <= STREAM_LOOP_FRAME_OBJECTS;
}

// Offer the frames to the subscriptions due now and still owed this state, and arm the timer for the next.
static void offer_owed(world_host* host, frame_buf* const frames[STEP_MASKS], uint64_t now)
{
	for (int i = 0; i < host->subs.count; ++i)
	{
		subscription* sub = get_sub(host->srv, host->subs.ids[i]);
		if (sub == NULL || sub->next_due_ns > now || sub->last_tick == host->cached.step_count)
		{
			continue;
		}
		frame_buf* frame = frames[frame_mask(sub)];
		if (frame != NULL)
		{
			offer(host->srv, sub, frame, now);
		}
	}
	arm_flush(host, now);
}

static void encode_masks(world_host* host, const uint64_t masks[STEP_MASK_WORDS], frame_buf* frames[STEP_MASKS])
{
	const uint64_t now = server_now_ns();
	const int max_contacts = (int)host->srv->config.limits.max_contacts_per_frame;
	for (uint32_t m = 1; m < STEP_MASKS; ++m)
	{
		if ((masks[m / 64] & ((uint64_t)1 << (m % 64))) != 0)
		{
			frames[m] = frame_encode(host->world, host->id, m, max_contacts, now);
		}
	}
}

// Frames owed while the world does not step, too large to encode on the loop: a job encodes them on a
// worker (the world waits for it as for a step), and its end offers them.
typedef struct flush_job
{
	world_job base; // first
	uint64_t masks[STEP_MASK_WORDS];
	frame_buf* frames[STEP_MASKS];
} flush_job;

static void flush_run(world_job* base)
{
	flush_job* job = (flush_job*)base;
	encode_masks(base->host, job->masks, job->frames);
}

static void flush_done(world_job* base)
{
	flush_job* job = (flush_job*)base;
	world_host* host = base->host;
	if (!host->doomed && !host->closed)
	{
		offer_owed(host, job->frames, server_now_ns());
	}
	for (int m = 0; m < STEP_MASKS; ++m)
	{
		host->srv->metrics.frames_encoded += job->frames[m] != NULL ? 1 : 0;
		frame_buf_unref(job->frames[m]);
	}
	free(job);
}

void stream_flush(world_host* host)
{
	if (host->busy || host->closed || host->world == NULL)
	{
		return; // the step or job in progress publishes, or flushes, when it ends
	}
	uint64_t now = server_now_ns();
	uint64_t masks[STEP_MASK_WORDS] = { 0 };
	bool owed = false;
	for (int i = 0; i < host->subs.count; ++i)
	{
		const subscription* sub = get_sub(host->srv, host->subs.ids[i]);
		if (sub != NULL && sub->next_due_ns <= now && sub->last_tick != host->cached.step_count)
		{
			uint32_t m = frame_mask(sub);
			masks[m / 64] |= (uint64_t)1 << (m % 64);
			owed = true;
		}
	}
	if (!owed)
	{
		arm_flush(host, now);
		return;
	}
	if (!stream_frames_small(host, masks))
	{
		flush_job* job = calloc(1, sizeof(flush_job));
		if (job != NULL)
		{
			memcpy(job->masks, masks, sizeof(masks));
			job->base.run = flush_run;
			job->base.done = flush_done;
			job->base.reads_only = true;
			world_host_start_job(host, &job->base);
			return;
		}
	}
	frame_buf* frames[STEP_MASKS] = { NULL };
	encode_masks(host, masks, frames);
	for (int m = 0; m < STEP_MASKS; ++m)
	{
		host->srv->metrics.frames_encoded += frames[m] != NULL ? 1 : 0;
	}
	offer_owed(host, frames, now);
	for (int m = 0; m < STEP_MASKS; ++m)
	{
		frame_buf_unref(frames[m]);
	}
}

void stream_state_changed(world_host* host)
{
	if (host->subs.count == 0)
	{
		return;
	}
	for (int i = 0; i < host->subs.count; ++i)
	{
		subscription* sub = get_sub(host->srv, host->subs.ids[i]);
		if (sub != NULL)
		{
			sub->last_tick = UINT64_MAX;
		}
	}
	if (!host->busy)
	{
		arm_flush(host, server_now_ns());
	}
}
