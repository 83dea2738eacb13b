// Lockstep ticks: collect inputs, time out and demote, apply in join order, step, reply.
#include "lockstep.h"

#include "command.h"
#include "control.h"
#include "errors.h"
#include "log.h"
#include "server.h"
#include "session.h"
#include "world_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool all_submitted(const world_host* host, int* controllers, int* submitted)
{
	int c = 0, s = 0;
	for (int i = 0; i < host->members.count; ++i)
	{
		const world_member* m = host->members.list + i;
		if (m->controlling)
		{
			c += 1;
			s += m->submitted ? 1 : 0;
		}
	}
	*controllers = c;
	*submitted = s;
	return c > 0 && s == c;
}

int lockstep_init(world_host* host, uv_loop_t* loop)
{
	uv_timer_init(loop, &host->lockstep.timer);
	host->lockstep.timer.data = host;
	host->lockstep.armed = false;
	return 1;
}

void lockstep_close(world_host* host, uv_close_cb closed)
{
	uv_close((uv_handle_t*)&host->lockstep.timer, closed);
}

static void stop_timer(world_host* host)
{
	if (host->lockstep.armed)
	{
		uv_timer_stop(&host->lockstep.timer);
		host->lockstep.armed = false;
	}
	host->lockstep.expired = false;
}

// A LockstepInput checked whole (targets and forces), changing nothing.
static int32_t check_input(sn_world* world, const sinew_v1_LockstepInput* in, char* detail, size_t capacity)
{
	int32_t code = in->has_targets ? control_check_targets(world, &in->targets, detail, capacity) : 0;
	if (code == 0 && in->has_forces)
	{
		code = control_check_forces(world, &in->forces, detail, capacity);
	}
	return code;
}

// Apply the stored inputs in join order and step the tick. Each input is checked again first: one that
// no longer applies (an object it names was destroyed since it arrived) changes nothing, and its sender
// gets the error in its reply.
static void fire_tick(world_host* host)
{
	stop_timer(host);
	for (int i = 0; i < host->members.count; ++i)
	{
		world_member* m = host->members.list + i;
		if (!m->submitted || m->input == NULL)
		{
			continue;
		}
		char detail[256] = "";
		int32_t code = check_input(host->world, m->input, detail, sizeof(detail));
		if (code == 0 && m->input->has_targets)
		{
			controller_take(&host->controller, host->world, host->id); // its own controller stands by
			code = control_set_targets(host->world, &m->input->targets, detail, sizeof(detail));
		}
		if (code == 0 && m->input->has_forces)
		{
			control_apply_forces(host->world, &m->input->forces);
		}
		if (code != 0)
		{
			// Answer now; the member keeps its place for the next tick.
			session_reply_to(host->srv, m->session_id, m->request_id, code, detail, NULL);
			m->submitted = false;
			free(m->input);
			m->input = NULL;
		}
	}
	host->srv->metrics.lockstep_ticks += 1;
	world_host_start_step(host, STEP_LOCKSTEP, 1, 0, true);
}

static void check_ready(world_host* host)
{
	if (host->pacing.mode != sinew_v1_TimeMode_TIME_LOCKSTEP || host->busy)
	{
		return;
	}
	int controllers = 0, submitted = 0;
	if (all_submitted(host, &controllers, &submitted))
	{
		fire_tick(host);
	}
	else if (submitted == 0)
	{
		stop_timer(host);
	}
}

static void on_timer(uv_timer_t* timer)
{
	world_host* host = timer->data;
	host->lockstep.armed = false;
	lockstep_timeout(host);
}

int32_t lockstep_submit(command_ctx* ctx)
{
	world_host* host = ctx->host;
	const sinew_v1_LockstepInput* in = &ctx->msg.command.lockstep_input;
	if (host->pacing.mode != sinew_v1_TimeMode_TIME_LOCKSTEP)
	{
		return cmd_fail(ctx, SV_ERR_WRONG_TIME_MODE, "world %llu is not in lockstep mode",
						(unsigned long long)host->id);
	}
	world_member* m = members_find(&host->members, ctx->session->id);
	if (m == NULL || !m->controlling)
	{
		return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE,
						"this session is not a lockstep controller of world %llu (join it as a controller)",
						(unsigned long long)host->id);
	}
	if (in->tick != host->cached.step_count)
	{
		return cmd_fail(ctx, SV_ERR_STALE_TICK, "input for tick %llu, but the pending tick is %llu",
						(unsigned long long)in->tick, (unsigned long long)host->cached.step_count);
	}
	if (m->submitted)
	{
		return cmd_fail(ctx, SV_ERR_STALE_TICK, "this controller already sent its input for tick %llu",
						(unsigned long long)in->tick);
	}
	// Check now so errors come back at once, typed.
	int32_t code = check_input(host->world, in, ctx->detail, sizeof(ctx->detail));
	if (code != 0)
	{
		return code;
	}
	m->input = malloc(sizeof(sinew_v1_LockstepInput));
	if (m->input == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	*m->input = *in;
	m->submitted = true;
	m->request_id = ctx->request_id;
	ctx->deferred = true;
	int controllers = 0, submitted = 0;
	all_submitted(host, &controllers, &submitted);
	if (submitted == 1 && controllers > 1 && !host->lockstep.armed)
	{
		uv_timer_start(&host->lockstep.timer, on_timer, host->pacing.lockstep_timeout_ms, 0);
		host->lockstep.armed = true;
	}
	check_ready(host);
	return 0;
}

void lockstep_member_changed(world_host* host)
{
	check_ready(host);
}

void lockstep_timeout(world_host* host)
{
	if (host->pacing.mode != sinew_v1_TimeMode_TIME_LOCKSTEP)
	{
		return;
	}
	if (host->busy)
	{
		host->lockstep.expired = true; // lockstep_idle runs it
		return;
	}
	host->lockstep.expired = false;
	int controllers = 0, submitted = 0;
	all_submitted(host, &controllers, &submitted);
	if (submitted == 0)
	{
		stop_timer(host); // the input that armed it went with its controller: no tick is waiting
		return;
	}
	uint64_t tick = host->cached.step_count;
	for (int i = 0; i < host->members.count; ++i)
	{
		world_member* m = host->members.list + i;
		if (!m->controlling || m->submitted)
		{
			continue;
		}
		uint64_t demoted = m->session_id;
		m->controlling = false;
		if (m->role == sinew_v1_Role_ROLE_CONTROLLER)
		{
			m->role = sinew_v1_Role_ROLE_OBSERVER;
		}
		// Its client may not control this world again for a while, longer each time: rejoining at once
		// after each demotion would hold every tick for the whole timeout.
		const session* s = server_session(host->srv, demoted);
		if (s != NULL && demoted != host->members.owner)
		{
			uint64_t base_ns = (uint64_t)LOCKSTEP_BAR_TIMEOUTS * host->pacing.lockstep_timeout_ms * 1000000u;
			members_demote(&host->members, s->address, server_now_ns(), base_ns);
		}
		host->srv->metrics.lockstep_demotions += 1;
		log_warn("lockstep controller demoted", "world=%llu session=%llu tick=%llu timeout_ms=%u",
				 (unsigned long long)host->id, (unsigned long long)demoted, (unsigned long long)tick,
				 (unsigned)host->pacing.lockstep_timeout_ms);
		sinew_v1_Event event = sinew_v1_Event_init_zero;
		event.world_id = host->id;
		event.which_event = sinew_v1_Event_demoted_tag;
		event.event.demoted.session_id = demoted;
		event.event.demoted.tick = tick;
		snprintf(event.event.demoted.reason, sizeof(event.event.demoted.reason),
				 "no input for tick %llu within lockstep_timeout_ms (%u ms); now an observer", (unsigned long long)tick,
				 (unsigned)host->pacing.lockstep_timeout_ms);
		world_host_broadcast(host, &event);
	}
	check_ready(host);
}

void lockstep_idle(world_host* host)
{
	if (host->lockstep.expired)
	{
		lockstep_timeout(host);
	}
	else
	{
		check_ready(host);
	}
}

void lockstep_tick_done(world_host* host)
{
	sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
	reply.which_result = sinew_v1_Reply_step_tag;
	reply.result.step.step_count = host->cached.step_count;
	reply.result.step.time = host->cached.time;
	reply.result.step.diverged = host->cached.diverged;
	int32_t code = host->step.error;
	int index = command_index(sinew_v1_ClientMessage_lockstep_input_tag);
	for (int i = 0; i < host->members.count; ++i)
	{
		world_member* m = host->members.list + i;
		if (!m->submitted)
		{
			continue;
		}
		m->submitted = false;
		free(m->input);
		m->input = NULL;
		metrics_count_command(&host->srv->metrics, index, code);
		session_reply_to(host->srv, m->session_id, m->request_id, code, code != 0 ? host->step.detail : NULL,
						 code == 0 ? &reply : NULL);
	}
}

void lockstep_withdraw(world_host* host, world_member* m, int32_t code, const char* reason)
{
	if (!m->submitted)
	{
		return;
	}
	m->submitted = false;
	free(m->input);
	m->input = NULL;
	session_reply_to(host->srv, m->session_id, m->request_id, code, reason, NULL);
}

void lockstep_cancel(world_host* host, int32_t code, const char* reason)
{
	stop_timer(host);
	for (int i = 0; i < host->members.count; ++i)
	{
		lockstep_withdraw(host, host->members.list + i, code, reason);
	}
}
