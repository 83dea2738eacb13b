// A world's time mode and real-time schedule (see pacing.h).
//
// Real-time pacing without drift: the schedule is absolute. Step base_step + k is due at
// base_ns + k * period with period = time_step / rate, so the number of steps due at wall time t is
// floor((t - base_ns) / period) - (steps done since base_step), computed from the monotonic clock each
// time; timer lateness never accumulates. A world that falls more than max_catchup_ms behind rebases the
// schedule at now (counted in lag_resets) instead of stepping in a burst.
//
// Robust to every time step and rate validation lets through (time_step in (0, 1] s, denormals included;
// rate in [0.001, 1000]): the period is rounded to whole nanoseconds within [1 ns, PERIOD_MAX_NS] and the
// schedule is kept in integers, so no quotient overflows or becomes infinite. A period below 1 ns asks
// for more than a billion steps a second: the world steps as fast as it can, falls behind and gives up
// the missed steps, like an as-fast-as-possible world. Each paced batch stops after fast_slice_ms, and
// the timer that waits for the next step waits at least 1 ms: a timer of 0 ms re-armed from its own
// callback would run again within the same pass of the loop, forever (the freeze a rate of 1e-300 once
// caused).
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
		if (!(t->rate >= SV_MIN_REALTIME_RATE && t->rate <= SV_MAX_REALTIME_RATE))
		{
			snprintf(detail, cap, "rate must be in [%g, %g] (real-time factor), got %g", SV_MIN_REALTIME_RATE,
					 SV_MAX_REALTIME_RATE, t->rate);
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

enum
{
	WAIT_MAX_MS = 3600000 // the longest timer wait; the schedule is read again when it fires
};

// Above the longest period validation allows (1 s / 0.001 = 1000 s) with room; keeps products in range.
#define PERIOD_MAX_NS 1e15

// The real-time period, ns, within [1, PERIOD_MAX_NS].
static uint64_t period_ns(const world_host* host)
{
	double period = host->cached.time_step * 1e9 / host->pacing.rate;
	if (!(period >= 1.0))
	{
		return 1u; // below a nanosecond (or not a number): as fast as it can
	}
	return period < PERIOD_MAX_NS ? (uint64_t)llround(period) : (uint64_t)PERIOD_MAX_NS;
}

// The core's sleeping on or off as the mode and the time mode say.
static void apply_sleep(world_host* host)
{
	const world_pacing* p = &host->pacing;
	bool on = p->sleep_mode == sinew_v1_SleepMode_SLEEP_ON ||
		(p->sleep_mode == sinew_v1_SleepMode_SLEEP_DEFAULT && p->mode == sinew_v1_TimeMode_TIME_REALTIME);
	if (host->world == NULL || host->busy)
	{
		return;
	}
	sn_sleep_settings s = sn_world_get_sleep_settings(host->world);
	if (s.enabled != on)
	{
		s.enabled = on;
		sn_world_set_sleep_settings(host->world, s); // valid: only the switch changed
	}
}

void pacing_set_sleep(world_host* host, sinew_v1_SleepMode mode)
{
	host->pacing.sleep_mode = mode;
	apply_sleep(host);
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
	apply_sleep(host);
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
	uint64_t period = period_ns(host);
	uint64_t due = (now_ns - p->base_ns) / period;
	uint64_t done = host->cached.step_count - p->base_step;
	// Steps behind the schedule (beyond the one in progress), as wall time.
	return due > done + 1 ? (double)(due - done - 1) * (double)period * 1e-9 : 0.0;
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
	uint64_t slice_end = now + (uint64_t)srv->config.limits.fast_slice_ms * 1000000u;
	if (p->mode == sinew_v1_TimeMode_TIME_REALTIME)
	{
		uint64_t period = period_ns(host);
		uint64_t done = host->cached.step_count - p->base_step;
		uint64_t target = now > p->base_ns ? (now - p->base_ns) / period : 0;
		uint64_t due = target > done ? target - done : 0;
		uint64_t max_due = (uint64_t)srv->config.limits.max_catchup_ms * 1000000u / period;
		if (max_due < 1)
		{
			max_due = 1;
		}
		if (due > max_due)
		{
			// Too far behind to catch up: give up the missed steps and continue from now, one step due.
			p->lag_resets += 1;
			srv->metrics.lag_resets += 1;
			pacing_rebase(host, now > period ? now - period : 0);
			due = 1;
		}
		if (due > 0)
		{
			world_host_start_step(host, STEP_PACED, (uint32_t)(due < 1000000u ? due : 1000000u), slice_end, false);
			return;
		}
		// The next step is due at base + (done + 1) * period, which is after now (else it would be due).
		uint64_t wait_ms = WAIT_MAX_MS;
		if (done + 1 <= UINT64_MAX / period)
		{
			uint64_t next = p->base_ns + (done + 1) * period;
			uint64_t wait_ns = next > now ? next - now : 0;
			wait_ms = (wait_ns + 999999u) / 1000000u;
		}
		wait_ms = wait_ms < 1 ? 1 : wait_ms > WAIT_MAX_MS ? WAIT_MAX_MS : wait_ms;
		uv_timer_start(&p->timer, on_timer, wait_ms, 0);
	}
	else if (p->mode == sinew_v1_TimeMode_TIME_FAST)
	{
		world_host_start_step(host, STEP_PACED, (uint32_t)srv->config.limits.max_steps_per_request, slice_end, false);
	}
}
