// Hosted worlds: create and destroy, the queue of waiting commands, the cached copies readers see while a
// step runs, the reset point, and the one place where every step ends (world_host_step_finished):
// replies, events, frames, queued commands, then the next paced step.
#include "world_host.h"

#include "command.h"
#include "convert.h"
#include "errors.h"
#include "lockstep.h"
#include "log.h"
#include "server.h"
#include "shapes.h"
#include "stream.h"

#include "sinew/articulation.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- lifetime -----------------------------------------------------------------------------------------

// A queued command is done: its copy no longer counts in max_queued_bytes (world_host_enqueue).
static void queued_free(world_host* host, queued_command* q)
{
	host->srv->queued_bytes -= q->size;
	session* s = server_session(host->srv, q->session_id);
	if (s != NULL)
	{
		s->queued_bytes -= q->size;
	}
	free(q);
}

static void on_handle_closed(uv_handle_t* handle)
{
	world_host* host = handle->data;
	if (--host->open_handles == 0)
	{
		free(host);
	}
}

static void close_handles(world_host* host)
{
	pacing_close(host, on_handle_closed);
	lockstep_close(host, on_handle_closed);
	stream_close(host, on_handle_closed);
}

// A first guess of one step's cost before any was measured, ns: enough to step tiny worlds inline.
static double guess_step_ns(const sn_world* world)
{
	return 200.0 + 500.0 * (sn_world_get_body_count(world) + 2.0 * sn_world_get_joint_count(world));
}

world_host* world_host_find_name(const server* srv, const char* name)
{
	if (name == NULL || name[0] == '\0')
	{
		return NULL;
	}
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host != NULL && !host->doomed && !host->closed && strcmp(host->name, name) == 0)
		{
			return host;
		}
	}
	return NULL;
}

int32_t world_host_create(server* srv, sn_world* world, const char* name, uint64_t owner, bool keep, world_host** out,
						  char* detail, size_t cap)
{
	return world_host_create_at(srv, world, name, owner, keep, 0, (kept_snapshot){ NULL, 0 }, out, detail, cap);
}

int32_t world_host_create_at(server* srv, sn_world* world, const char* name, uint64_t owner, bool keep, uint64_t id,
							 kept_snapshot reset, world_host** out, char* detail, size_t cap)
{
	const world_host* same = world_host_find_name(srv, name);
	if (same != NULL)
	{
		sn_world_destroy(world);
		free(reset.bytes);
		snprintf(detail, cap, "a world named \"%s\" exists already (id %llu): world names are unique on a server", name,
				 (unsigned long long)same->id);
		return SV_ERR_NAME_TAKEN;
	}
	world_host* host = calloc(1, sizeof(world_host));
	if (host == NULL)
	{
		sn_world_destroy(world);
		free(reset.bytes);
		snprintf(detail, cap, "out of memory");
		return SN_ERR_NO_MEMORY;
	}
	host->srv = srv;
	host->world = world;
	host->reset_point = reset;
	snprintf(host->name, sizeof(host->name), "%s", name != NULL ? name : "");
	host->members.owner = owner;
	host->members.keep = keep;
	host->step_ns_avg = guess_step_ns(world);
	host->open_handles += pacing_init(host, srv->loop, (uint32_t)srv->config.limits.lockstep_timeout_ms);
	host->open_handles += lockstep_init(host, srv->loop);
	host->open_handles += stream_init(host, srv->loop);
	host->id = id == 0 ? idpool_add(&srv->worlds, host)
					   : idpool_add_at(&srv->worlds, id, host, (int)srv->config.limits.max_worlds);
	bool ok = host->id != 0 && (reset.bytes != NULL || world_host_set_reset_point(host) == 0) &&
		(owner == 0 || members_set(&host->members, owner, sinew_v1_Role_ROLE_OWNER, false));
	if (!ok)
	{
		if (host->id != 0)
		{
			idpool_remove(&srv->worlds, host->id);
		}
		sn_world_destroy(world);
		free(host->reset_point.bytes);
		members_free(&host->members);
		host->closed = true;
		close_handles(host);
		snprintf(detail, cap, "%s",
				 id != 0 && host->id == 0 ? "the id is taken or beyond max_worlds" : "out of memory");
		return SN_ERR_NO_MEMORY;
	}
	world_host_refresh(host);
	host->cached.divergence_reported = host->cached.diverged;
	srv->metrics.worlds_created += 1;
	char quoted[96];
	log_info("world created", "world=%llu name=%s owner=%llu bodies=%d joints=%d", (unsigned long long)host->id,
			 log_quote(quoted, sizeof(quoted), host->name), (unsigned long long)owner, host->cached.body_count,
			 host->cached.joint_count);
	*out = host;
	return 0;
}

void world_host_destroy(world_host* host, const char* reason)
{
	if (host->closed)
	{
		return;
	}
	if (host->busy)
	{
		host->doomed = true;
		if (reason != host->doom_reason)
		{
			size_t n = strlen(reason) < sizeof(host->doom_reason) - 1 ? strlen(reason) : sizeof(host->doom_reason) - 1;
			memcpy(host->doom_reason, reason, n);
			host->doom_reason[n] = '\0';
		}
		return;
	}
	server* srv = host->srv;
	persist_world_gone(host);
	host->closed = true;
	lockstep_cancel(host, SV_ERR_UNKNOWN_WORLD, "the world was destroyed before the tick stepped");
	sinew_v1_Event event = sinew_v1_Event_init_zero;
	event.world_id = host->id;
	event.which_event = sinew_v1_Event_destroyed_tag;
	snprintf(event.event.destroyed.reason, sizeof(event.event.destroyed.reason), "%s", reason);
	world_host_broadcast(host, &event);
	stream_world_gone(host);
	idpool_remove(&srv->worlds, host->id);
	session* owner = server_session(srv, host->members.owner);
	if (owner != NULL && owner->worlds_owned > 0)
	{
		owner->worlds_owned -= 1;
	}
	char quoted[160];
	log_info("world destroyed", "world=%llu reason=%s steps=%llu", (unsigned long long)host->id,
			 log_quote(quoted, sizeof(quoted), reason), (unsigned long long)host->cached.step_count);
	sn_world_destroy(host->world);
	host->world = NULL;
	// Commands that waited for this world are answered now: the gate finds it gone.
	while (host->queue.head != NULL)
	{
		queued_command* q = host->queue.head;
		host->queue.head = q->next;
		command_run_queued(host, q);
		queued_free(host, q);
	}
	host->queue.tail = NULL;
	host->queue.count = 0;
	members_free(&host->members);
	free(host->reset_point.bytes);
	host->reset_point = (kept_snapshot){ NULL, 0 };
	controller_free(&host->controller);
	model_registry_free(&host->models);
	free(host->contacts.records);
	host->contacts.records = NULL;
	close_handles(host);
}

// ---- members ------------------------------------------------------------------------------------------

void world_host_remove_member(world_host* host, uint64_t session_id)
{
	world_member* m = members_find(&host->members, session_id);
	if (m != NULL)
	{
		lockstep_withdraw(host, m, SV_ERR_FORBIDDEN_BY_ROLE, "left the world before the tick stepped");
		members_remove(&host->members, session_id);
	}
}

// Drop the commands of a session that is going from a world's queue: they would never run (a queued
// command's session must still be there), and they would stay counted in max_queued_bytes without counting
// in any address's half.
static void drop_queued_of(world_host* host, uint64_t session_id)
{
	queued_command** link = &host->queue.head;
	host->queue.tail = NULL;
	while (*link != NULL)
	{
		queued_command* q = *link;
		if (q->session_id == session_id)
		{
			*link = q->next;
			host->queue.count -= 1;
			queued_free(host, q);
		}
		else
		{
			host->queue.tail = q;
			link = &q->next;
		}
	}
}

void world_host_session_gone(server* srv, uint64_t session_id)
{
	const session* s = server_session(srv, session_id);
	const bool queued = s == NULL || s->queued_bytes > 0;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host == NULL || host->closed)
		{
			continue;
		}
		if (queued)
		{
			drop_queued_of(host, session_id);
		}
		if (host->members.owner == session_id)
		{
			if (!host->members.keep)
			{
				world_host_destroy(host, "its owner disconnected");
				continue;
			}
			host->members.owner = 0;
		}
		if (members_find(&host->members, session_id) != NULL)
		{
			world_host_remove_member(host, session_id);
			lockstep_member_changed(host);
		}
	}
}

void world_host_expire_idle(server* srv, uint64_t now_ns)
{
	uint64_t limit = (uint64_t)srv->config.limits.kept_world_idle_ms * 1000000u;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host == NULL || host->closed || host->doomed || !host->members.keep || host->members.keeper[0] == '\0')
		{
			continue;
		}
		bool idle = host->members.owner == 0 && host->members.count == 0 && host->subs.count == 0;
		if (!idle)
		{
			host->members.idle_ns = 0;
		}
		else if (host->members.idle_ns == 0)
		{
			host->members.idle_ns = now_ns;
		}
		else if (now_ns - host->members.idle_ns >= limit)
		{
			char reason[128];
			snprintf(reason, sizeof(reason), "kept and idle for kept_world_idle_ms (%lld ms)",
					 (long long)srv->config.limits.kept_world_idle_ms);
			world_host_destroy(host, reason);
		}
	}
}

// ---- the queue ---------------------------------------------------------------------------------------

bool world_host_idle(const world_host* host)
{
	return !host->busy && host->queue.head == NULL;
}

// Bytes that sessions from `address` keep queued.
static size_t address_queued_bytes(const server* srv, const char* address)
{
	size_t total = 0;
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		const session* s = srv->sessions.items[i];
		if (s != NULL && strcmp(s->address, address) == 0)
		{
			total += s->queued_bytes;
		}
	}
	return total;
}

int32_t world_host_enqueue(world_host* host, session* s, const uint8_t* data, size_t size, char* why, size_t cap)
{
	// Without a bound, a client could keep max_requests_in_flight messages of max_message_bytes each waiting
	// behind a long step, on every connection. Not max_receive_bytes: a client could then fill it behind its
	// own step and get other clients' large messages refused. And one client address (all its connections:
	// opening more does not escape it) holds at most half, so that others can still queue behind their steps.
	server* srv = host->srv;
	const size_t max = (size_t)srv->config.limits.max_queued_bytes;
	if (size > max - srv->queued_bytes)
	{
		snprintf(why, cap, "max_queued_bytes (%zu) reached: commands waiting for busy worlds hold %zu bytes", max,
				 srv->queued_bytes);
		return SV_ERR_LIMIT_REACHED;
	}
	// Only when the whole pool would pass half can one address's share.
	size_t mine = srv->queued_bytes + size > max / 2 ? address_queued_bytes(srv, s->address) : 0;
	if (size > max / 2 - (mine < max / 2 ? mine : max / 2))
	{
		snprintf(why, cap,
				 "max_queued_bytes (%zu): this client address (%s) has %zu bytes of commands waiting for busy "
				 "worlds, and may hold at most half",
				 max, s->address, mine);
		return SV_ERR_LIMIT_REACHED;
	}
	queued_command* q = malloc(sizeof(queued_command) + size + 1);
	if (q == NULL)
	{
		return SN_ERR_NO_MEMORY;
	}
	srv->queued_bytes += size;
	s->queued_bytes += size;
	q->next = NULL;
	q->session_id = s->id;
	q->size = size;
	memcpy(q->data, data, size);
	if (host->queue.tail != NULL)
	{
		host->queue.tail->next = q;
	}
	else
	{
		host->queue.head = q;
	}
	host->queue.tail = q;
	host->queue.count += 1;
	return 0;
}

void world_host_drain(world_host* host)
{
	if (host->queue.draining)
	{
		return; // an outer drain of this host continues
	}
	host->queue.draining = true;
	while (!host->busy && !host->closed && host->queue.head != NULL)
	{
		queued_command* q = host->queue.head;
		host->queue.head = q->next;
		if (host->queue.head == NULL)
		{
			host->queue.tail = NULL;
		}
		host->queue.count -= 1;
		command_run_queued(host, q);
		queued_free(host, q);
	}
	host->queue.draining = false;
}

// ---- events and cached state --------------------------------------------------------------------------

void world_host_broadcast(world_host* host, sinew_v1_Event* event)
{
	server* srv = host->srv;
	uint64_t sent[64];
	int sent_count = 0;
	for (int i = 0; i < host->members.count; ++i)
	{
		session* s = server_session(srv, host->members.list[i].session_id);
		if (s != NULL)
		{
			session_event(s, event);
			if (sent_count < 64)
			{
				sent[sent_count++] = s->id;
			}
		}
	}
	for (int i = 0; i < host->subs.count; ++i)
	{
		const subscription* sub = idpool_get(&srv->subscriptions, host->subs.ids[i]);
		if (sub == NULL)
		{
			continue;
		}
		bool already = members_find(&host->members, sub->session_id) != NULL;
		for (int k = 0; k < sent_count && !already; ++k)
		{
			already = sent[k] == sub->session_id;
		}
		session* s = already ? NULL : server_session(srv, sub->session_id);
		if (s != NULL)
		{
			session_event(s, event);
			if (sent_count < 64)
			{
				sent[sent_count++] = s->id;
			}
		}
	}
}

// The settings the loop reads without the world (pacing's time step, a step's shape). A step changes
// only time, step count and divergence, which world_host_step_finished takes from the step item.
void world_host_refresh_settings(world_host* host)
{
	sn_world_def def = sn_world_get_def(host->world);
	host->cached.time_step = def.time_step;
	host->cached.solver = (int)def.solver;
	host->cached.substeps = def.substeps;
	host->cached.position_iterations = def.position_iterations;
	host->cached.velocity_iterations = def.velocity_iterations;
}

void world_host_refresh(world_host* host)
{
	const sn_world* w = host->world;
	world_host_refresh_settings(host);
	host->cached.time = sn_world_get_time(w);
	host->cached.step_count = sn_world_get_step_count(w);
	host->cached.diverged = sn_world_is_diverged(w);
	host->cached.body_count = sn_world_get_body_count(w);
	host->cached.joint_count = sn_world_get_joint_count(w);
	int n = sn_world_get_articulations(w, NULL, 0);
	host->cached.articulation_count = n;
	host->cached.articulation_links = 0;
	host->cached.shape_count = sn_world_get_shape_count(w);
	host->cached.mimic_count = sn_world_get_mimic_joints(w, NULL, 0);
	sn_articulation_id* ids = n > 0 ? malloc((size_t)n * sizeof(sn_articulation_id)) : NULL;
	if (ids != NULL)
	{
		sn_world_get_articulations(w, ids, n);
		for (int i = 0; i < n; ++i)
		{
			host->cached.articulation_links += sn_articulation_get_link_count(w, ids[i]);
		}
		free(ids);
	}
}

int32_t world_host_set_reset_point(world_host* host)
{
	size_t need = sn_world_snapshot_size(host->world);
	uint8_t* bytes = malloc(need > 0 ? need : 1);
	size_t written = 0;
	if (bytes == NULL || sn_world_snapshot_write(host->world, bytes, need, &written) != SN_ERR_OK)
	{
		free(bytes);
		return SN_ERR_NO_MEMORY;
	}
	world_host_keep_reset_point(host, bytes, written);
	return 0;
}

void world_host_keep_reset_point(world_host* host, uint8_t* bytes, size_t size)
{
	free(host->reset_point.bytes);
	host->reset_point = (kept_snapshot){ bytes, size };
}

void world_host_replace_world(world_host* host, sn_world* world)
{
	sn_world_destroy(host->world);
	host->world = world;
	// An articulation the restored state lacks takes its description with it: a later one may get its id.
	model_registry_prune(&host->models, world);
	world_host_refresh(host);
	host->cached.divergence_reported = host->cached.diverged;
	host->step_ns_avg = guess_step_ns(world);
	host->measured = false; // another state: its steps are measured again before any runs on the loop
	pacing_rebase(host, server_now_ns());
}

// ---- steps --------------------------------------------------------------------------------------------

// From the cached copies only: reading the world's settings here would pull its record into the loop
// thread's cache for every step of every world.
static step_shape current_shape(const world_host* host)
{
	step_shape shape;
	memset(&shape, 0, sizeof(shape));
	shape.bodies = host->cached.body_count;
	shape.joints = host->cached.joint_count;
	shape.articulations = host->cached.articulation_count;
	shape.links = host->cached.articulation_links;
	shape.mimics = host->cached.mimic_count;
	shape.shapes = host->cached.shape_count;
	shape.solver = host->cached.solver;
	shape.substeps = host->cached.substeps;
	shape.position_iterations = host->cached.position_iterations;
	shape.velocity_iterations = host->cached.velocity_iterations;
	return shape;
}

void world_host_start_step(world_host* host, step_kind kind, uint32_t steps, uint64_t deadline_ns, bool allow_inline)
{
	step_item* item = &host->step;
	// The results only: frames[] is all NULL between steps (world_host_step_finished releases the ones the
	// masks asked for), and clearing its 1 KB for every step of a thousand worlds costs the loop more than
	// the rest of this.
	item->done = 0;
	item->error = 0;
	item->detail[0] = '\0';
	item->elapsed_ns = 0;
	item->interrupted = false;
	item->kind = kind;
	item->steps = steps;
	item->deadline_ns = deadline_ns;
	stream_masks_due(host, server_now_ns(), item->masks);
	host->busy = true;
	// On the loop thread only when measured cheap on a world of this very shape: a first step, or one after
	// the world grew or its solver settings changed, goes to a worker however small the guess (a world of
	// 100 bodies at 1000 substeps of 1000 iterations once stepped for seconds on the loop).
	step_shape shape = current_shape(host);
	bool measured = host->measured && memcmp(&shape, &host->measured_shape, sizeof(shape)) == 0;
	if (!measured)
	{
		host->step_ns_avg = guess_step_ns(host->world);
	}
	host->measured_shape = shape;
	host->measured = measured;
	double budget_ns = (double)host->srv->config.limits.inline_step_budget_us * 1000.0;
	// The frames an inline step encodes are the loop's work too: a cheap step of a large world does not run
	// there when subscriptions want its state.
	if (allow_inline && measured && budget_ns > 0.0 && host->step_ns_avg * steps <= budget_ns &&
		stream_frames_small(host, item->masks))
	{
		stepper_run_inline(&host->srv->stepper, host);
	}
	else
	{
		stepper_submit(&host->srv->stepper, host);
	}
}

static void report_divergence(world_host* host)
{
	server* srv = host->srv;
	host->cached.divergence_reported = true;
	srv->metrics.worlds_diverged += 1;
	const char* detail = host->step.detail[0] != '\0' ? host->step.detail : sn_world_last_error_detail(host->world);
	char quoted[300];
	log_warn("world diverged", "world=%llu time=%.17g step=%llu detail=%s", (unsigned long long)host->id,
			 host->cached.time, (unsigned long long)host->cached.step_count, log_quote(quoted, sizeof(quoted), detail));
	sinew_v1_Event event = sinew_v1_Event_init_zero;
	event.world_id = host->id;
	event.which_event = sinew_v1_Event_diverged_tag;
	event.event.diverged.time = host->cached.time;
	event.event.diverged.step_count = host->cached.step_count;
	snprintf(event.event.diverged.detail, sizeof(event.event.diverged.detail), "%s", detail);
	world_host_broadcast(host, &event);
}

// ---- jobs ---------------------------------------------------------------------------------------------

// After a step or a job: the world is idle again. Destroy it if that was asked meanwhile, else run the
// commands that waited, save it if due, and pace it.
static void go_on(world_host* host)
{
	if (host->doomed)
	{
		world_host_destroy(host, host->doom_reason);
		return;
	}
	world_host_drain(host);
	if (!host->busy && !host->closed)
	{
		lockstep_idle(host);
	}
	if (!host->busy && !host->closed)
	{
		persist_world_idle(host);
	}
	if (!host->busy && !host->closed)
	{
		pacing_pace(host);
	}
}

static void job_run(uv_work_t* work)
{
	world_job* job = work->data;
	job->run(job);
}

static void job_after(uv_work_t* work, int status)
{
	(void)status;
	world_job* job = work->data;
	world_host* host = job->host;
	host->srv->stepper.jobs_in_flight -= 1;
	// Still busy while `done` replies and the cache is refreshed: a reply lets its session read on at once,
	// and a command for this world it reads then must wait in the queue rather than start a step or a job
	// that would own the world while the refresh below reads it.
	const bool changed = !job->reads_only;
	job->done(job); // frees the job
	if (changed && !host->doomed && !host->closed)
	{
		world_host_refresh(host);
	}
	host->busy = false;
	if (changed && !host->doomed && !host->closed)
	{
		stream_state_changed(host);
	}
	go_on(host);
}

void world_host_start_job(world_host* host, world_job* job)
{
	job->host = host;
	job->work.data = job;
	host->busy = true;
	host->srv->stepper.jobs_in_flight += 1;
	if (uv_queue_work(host->srv->loop, &job->work, job_run, job_after) != 0)
	{
		// No thread pool: do it here rather than leave the world busy forever.
		job_run(&job->work);
		job_after(&job->work, 0);
	}
}

// ---- contact events -----------------------------------------------------------------------------------

static void record(contact_log* log, const sn_world* world, uint64_t tick, sinew_v1_ContactChangeKind kind,
				   sn_shape_id a, sn_body_id body_a, sn_shape_id b, sn_body_id body_b)
{
	contact_record* r = log->records + (log->head % (uint64_t)log->capacity);
	r->tick = tick;
	r->kind = kind;
	shapes_side(world, a, body_a, &r->a);
	shapes_side(world, b, body_b, &r->b);
	log->head += 1;
}

void contact_log_record(contact_log* log, const sn_world* world)
{
	if (log->subscribers == 0 || log->records == NULL)
	{
		return;
	}
	sn_contact_events e = sn_world_get_contact_events(world);
	uint64_t tick = sn_world_get_step_count(world);
	for (int i = 0; i < e.begin_count; ++i)
	{
		record(log, world, tick, sinew_v1_ContactChangeKind_CONTACT_BEGIN, e.begin[i].shape_a, e.begin[i].body_a,
			   e.begin[i].shape_b, e.begin[i].body_b);
	}
	for (int i = 0; i < e.end_count; ++i)
	{
		record(log, world, tick, sinew_v1_ContactChangeKind_CONTACT_END, e.end[i].shape_a, e.end[i].body_a,
			   e.end[i].shape_b, e.end[i].body_b);
	}
	for (int i = 0; i < e.sensor_begin_count; ++i)
	{
		const sn_sensor_event* s = e.sensor_begin + i;
		record(log, world, tick, sinew_v1_ContactChangeKind_SENSOR_BEGIN, s->sensor, s->sensor_body, s->visitor,
			   s->visitor_body);
	}
	for (int i = 0; i < e.sensor_end_count; ++i)
	{
		const sn_sensor_event* s = e.sensor_end + i;
		record(log, world, tick, sinew_v1_ContactChangeKind_SENSOR_END, s->sensor, s->sensor_body, s->visitor,
			   s->visitor_body);
	}
}

// ---- the end of a step --------------------------------------------------------------------------------

void world_host_step_finished(world_host* host)
{
	server* srv = host->srv;
	step_item* item = &host->step;
	host->busy = false;
	if (item->done > 0)
	{
		metrics_count_steps(&srv->metrics, item->done, (double)item->elapsed_ns * 1e-9);
		double per_step = (double)item->elapsed_ns / item->done;
		// The first measurement of this shape replaces the guess; later ones are averaged in.
		host->step_ns_avg = host->measured ? 0.8 * host->step_ns_avg + 0.2 * per_step : per_step;
		host->measured = true;
	}
	// What the step left, as the worker read it (step_item_run).
	host->cached.time = item->time;
	host->cached.time_step = item->time_step;
	host->cached.step_count = item->step_count;
	host->cached.diverged = item->diverged;
	if (host->cached.diverged && !host->cached.divergence_reported)
	{
		report_divergence(host);
	}
	uint64_t now = server_now_ns();
	stream_publish(host, item->frames, now);
	// Only the masks asked for can hold a frame (step_item_run); frames[] is all NULL between steps, which
	// world_host_start_step relies on instead of clearing it.
#ifndef NDEBUG
	for (int m = 0; m < STEP_MASKS; ++m)
	{
		assert(item->frames[m] == NULL || (item->masks[m / 64] & ((uint64_t)1 << (m % 64))) != 0);
	}
#endif
	for (int word = 0; word < STEP_MASK_WORDS; ++word)
	{
		for (uint64_t bits = item->masks[word]; bits != 0; bits &= bits - 1)
		{
			int m = word * 64 + __builtin_ctzll(bits);
			if (item->frames[m] != NULL)
			{
				srv->metrics.frames_encoded += 1;
				frame_buf_unref(item->frames[m]);
				item->frames[m] = NULL;
			}
		}
	}
	if (item->kind == STEP_COMMAND)
	{
		sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
		reply.which_result = sinew_v1_Reply_step_tag;
		reply.result.step.step_count = host->cached.step_count;
		reply.result.step.time = host->cached.time;
		reply.result.step.diverged = host->cached.diverged;
		if (item->error == 0 && item->interrupted)
		{
			// Stopped between steps at the shutdown grace deadline: what was done, and why not the rest.
			char detail[160];
			snprintf(detail, sizeof(detail), "stopped after %u of %u steps: the server is shutting down",
					 (unsigned)item->done, (unsigned)item->steps);
			metrics_count_command(&srv->metrics, command_index(sinew_v1_ClientMessage_step_tag), SV_ERR_SHUTTING_DOWN);
			session_reply_partial_to(srv, host->step_session, host->step_request, SV_ERR_SHUTTING_DOWN, detail, &reply);
		}
		else
		{
			metrics_count_command(&srv->metrics, command_index(sinew_v1_ClientMessage_step_tag), item->error);
			session_reply_to(srv, host->step_session, host->step_request, item->error,
							 item->error != 0 ? item->detail : NULL, item->error == 0 ? &reply : NULL);
		}
		host->step_session = 0;
	}
	else if (item->kind == STEP_LOCKSTEP)
	{
		lockstep_tick_done(host);
	}
	go_on(host);
}

void world_host_info(const world_host* host, uint64_t asking_session, uint64_t now_ns, sinew_v1_WorldInfo* info)
{
	info->world_id = host->id;
	snprintf(info->name, sizeof(info->name), "%s", host->name);
	info->owner_session = host->members.owner;
	info->mode = host->pacing.mode;
	info->rate = host->pacing.rate;
	info->time = host->cached.time;
	info->step_count = host->cached.step_count;
	info->body_count = (uint32_t)host->cached.body_count;
	info->joint_count = (uint32_t)host->cached.joint_count;
	info->articulation_count = (uint32_t)host->cached.articulation_count;
	info->diverged = host->cached.diverged;
	info->your_role = members_role(&host->members, asking_session);
	// Reading the def while the world steps is safe: a step reads its settings and never writes them, and
	// the commands that change them wait for the step to end.
	info->has_settings = true;
	sn_world_def def = sn_world_get_def(host->world);
	wv_world_settings(&def, &info->settings);
	info->lag_s = pacing_lag_s(host, now_ns);
	info->lag_resets = host->pacing.lag_resets;
	info->link_count = (uint32_t)host->cached.articulation_links;
	info->destroy_protected = host->destroy_protected;
	info->controller_key = host->members.has_key;
	info->shape_count = (uint32_t)host->cached.shape_count;
}
