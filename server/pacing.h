// A world's time: its mode (paused, real time, as fast as possible, lockstep), the real-time factor, the
// lockstep input timeout, and in real time the schedule that paces its steps. Paused worlds step on
// command (handle_step), lockstep worlds when a tick's inputs are in (lockstep.c); the two others are
// paced here: each step that ends asks for the next (world_host_step_finished -> pacing_pace).
#ifndef SINEW_SERVER_PACING_H
#define SINEW_SERVER_PACING_H

#include "sinew.pb.h"

#include <uv.h>

#include <stddef.h>
#include <stdint.h>

typedef struct world_host world_host;

// The time settings a client chooses (TimeSettings, validated).
typedef struct time_settings
{
	sinew_v1_TimeMode mode;
	double rate;                  // real-time factor, [SV_MIN_REALTIME_RATE, SV_MAX_REALTIME_RATE]
	uint32_t lockstep_timeout_ms; // how long a lockstep tick waits for its last input, [1, 3600000]
} time_settings;

typedef struct world_pacing
{
	sinew_v1_TimeMode mode;
	double rate;
	uint32_t lockstep_timeout_ms;
	// Whether resting islands sleep: SLEEP_DEFAULT follows the time mode (on in real time).
	sinew_v1_SleepMode sleep_mode;
	// Real-time schedule: step base_step + k is due at base_ns + k * time_step / rate.
	uint64_t base_ns;
	uint64_t base_step;
	uint64_t lag_resets; // times the world fell max_catchup_ms behind and gave up the missed steps
	uv_timer_t timer;    // the next real-time step
} world_pacing;

// Validate a client's TimeSettings; the fields it leaves out keep their values in `current`. Returns 0
// and the settings, or an error code with a detail line.
int32_t pacing_check(const sinew_v1_TimeSettings* in, time_settings current, time_settings* out, char* detail,
					 size_t detail_capacity);

// Set up the host's pacing (paused, rate 1) on the loop; returns the number of handles it opened, which
// pacing_close closes with `closed` as their close callback.
int pacing_init(world_host* host, uv_loop_t* loop, uint32_t lockstep_timeout_ms);
void pacing_close(world_host* host, uv_close_cb closed);

// Change the time settings (validated) and start pacing for them.
void pacing_set(world_host* host, time_settings time);
// Set the world's sleep mode (and apply it: SLEEP_DEFAULT sleeps in real time only). The world must not be
// stepping.
void pacing_set_sleep(world_host* host, sinew_v1_SleepMode mode);
// Start the next paced step if one is due (real time, as fast as possible); arm the timer otherwise.
void pacing_pace(world_host* host);
// No more paced steps (the server is shutting down).
void pacing_stop(world_host* host);
// The real-time schedule starts again from now_ns (the world was replaced, the settings changed).
void pacing_rebase(world_host* host, uint64_t now_ns);
// Real time: how far behind its schedule the world is at now_ns, s (0 in the other modes).
double pacing_lag_s(const world_host* host, uint64_t now_ns);

#endif
