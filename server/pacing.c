// A world's time mode and real-time schedule (see pacing.h).
//
// Real-time pacing without drift: the schedule is absolute. Step base_step + k is due at
// base_ns + k * period with period = time_step / rate, so the number of steps due at wall time t is
// floor((t - base_ns) / period) - (steps done since base_step), computed from the monotonic clock each
// time; timer lateness never accumulates. A world that falls more than max_catchup_ms behind rebases the
// schedule at now (counted in lag_resets) instead of stepping in a burst.
#include "pacing.h"

#include "errors.h"
#include "lockstep.h"
#include "server.h"
#include "world_host.h"

#include <math.h>
#include <stdio.h>

int32_t pacing_check(const sinew_v1_TimeSettings* t, time_settings current, time_settings* out, char* detail,
					 size_t cap)
{
	*out = current;
	switch (t->mode)
	{
		case sinew_v1_TimeMode_TIME_PAUSED:
		case sinew_v1_TimeMode_TIME_REALTIME:
		case sinew_v1_TimeMode_TIME_FAST:
		case sinew_v1_TimeMode_TIME_LOCKSTEP:
			out->mode = t->mode;
			break;
		default:
			snprintf(detail, cap, "unknown time mode %d", (int)t->mode);
			return SN_ERR_INVALID_ARGUMENT;
	}
	if (t->has_rate)
	{
		if (!isfinite(t->rate))
		{
			snprintf(detail, cap, "rate must be finite");
			return SN_ERR_NOT_FINITE;
		}
		if (!(t->rate > 0.0 && t->rate <= 1000.0))
		{
			snprintf(detail, cap, "rate must be in (0, 1000], got %g", t->rate);
			return SN_ERR_INVALID_ARGUMENT;
		}
		out->rate = t->rate;
	}
	if (t->has_lockstep_timeout_ms)
	{
		if (t->lockstep_timeout_ms < 1 || t->lockstep_timeout_ms > 3600000)
		{
			snprintf(detail, cap, "lockstep_timeout_ms must be in [1, 3600000], got %u",
					 (unsigned)t->lockstep_timeout_ms);
			return SN_ERR_INVALID_ARGUMENT;
		}
		out->lockstep_timeout_ms = t->lockstep_timeout_ms;
	}
	return 0;
}

static void on_timer(uv_timer_t* timer)
{
	pacing_pace(timer->data);
}

int pacing_init(world_host* host, uv_loop_t* loop, uint32_t lockstep_timeout_ms)
{
	world_pacing* p = &host->pacing;
	p->mode = sinew_v1_TimeMode_TIME_PAUSED;
	p->rate = 1.0;
	p->lockstep_timeout_ms = lockstep_timeout_ms;
	uv_timer_init(loop, &p->timer);
	p->timer.data = host;
	return 1;
}

void pacing_close(world_host* host, uv_close_cb closed)
{
	uv_close((uv_handle_t*)&host->pacing.timer, closed);
}

void pacing_rebase(world_host* host, uint64_t now_ns)
{
	host->pacing.base_ns = now_ns;
	host->pacing.base_step = host->cached.step_count;
}

static double period_ns(const world_host* host)
{
	return sn_world_get_time_step(host->world) * 1e9 / host->pacing.rate;
}

void pacing_set(world_host* host, time_settings time)
{
	world_pacing* p = &host->pacing;
	if (p->mode == sinew_v1_TimeMode_TIME_LOCKSTEP && time.mode != sinew_v1_TimeMode_TIME_LOCKSTEP)
	{
		lockstep_cancel(host, SV_ERR_WRONG_TIME_MODE, "the world left lockstep mode before the tick stepped");
	}
	p->mode = time.mode;
	p->rate = time.rate;
	p->lockstep_timeout_ms = time.lockstep_timeout_ms;
	pacing_rebase(host, server_now_ns());
	uv_timer_stop(&p->timer);
	pacing_pace(host);
	if (time.mode == sinew_v1_TimeMode_TIME_LOCKSTEP)
	{
		lockstep_member_changed(host);
	}
}

double pacing_lag_s(const world_host* host, uint64_t now_ns)
{
	const world_pacing* p = &host->pacing;
	if (p->mode != sinew_v1_TimeMode_TIME_REALTIME || now_ns < p->base_ns)
	{
		return 0.0;
	}
	double due = (double)(now_ns - p->base_ns) / period_ns(host);
	double done = (double)(host->cached.step_count - p->base_step);
	double behind = due - done;
	return behind > 1.0 ? (behind - 1.0) * sn_world_get_time_step(host->world) / p->rate : 0.0;
}

void pacing_stop(world_host* host)
{
	uv_timer_stop(&host->pacing.timer);
}

void pacing_pace(world_host* host)
{
	server* srv = host->srv;
	world_pacing* p = &host->pacing;
	if (host->closed || host->doomed || host->busy || host->cached.diverged || srv->shutting_down ||
		host->world == NULL)
	{
		return;
	}
	uint64_t now = server_now_ns();
	if (p->mode == sinew_v1_TimeMode_TIME_REALTIME)
	{
		double period = period_ns(host);
		uint64_t done = host->cached.step_count - p->base_step;
		double elapsed = now > p->base_ns ? (double)(now - p->base_ns) : 0.0;
		uint64_t target = (uint64_t)(elapsed / period);
		uint64_t due = target > done ? target - done : 0;
		double catchup = (double)srv->config.limits.max_catchup_ms * 1e6 / period;
		uint64_t max_due = catchup > 1.0 ? (uint64_t)catchup : 1u;
		if (due > max_due)
		{
			// Too far behind to catch up: give up the missed steps and continue from now.
			p->lag_resets += 1;
			srv->metrics.lag_resets += 1;
			pacing_rebase(host, now - (uint64_t)period);
			due = 1;
		}
		if (due > 0)
		{
			world_host_start_step(host, STEP_PACED, (uint32_t)(due < 1000000u ? due : 1000000u), 0, false);
			return;
		}
		double next = (double)p->base_ns + (double)(done + 1) * period;
		double wait_ns = next - (double)now;
		uint64_t wait_ms = wait_ns > 0.0 ? (uint64_t)ceil(wait_ns / 1e6) : 0;
		uv_timer_start(&p->timer, on_timer, wait_ms, 0);
	}
	else if (p->mode == sinew_v1_TimeMode_TIME_FAST)
	{
		uint64_t slice = (uint64_t)srv->config.limits.fast_slice_ms * 1000000u;
		world_host_start_step(host, STEP_PACED, (uint32_t)srv->config.limits.max_steps_per_request, now + slice, false);
	}
}
