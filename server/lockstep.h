// Lockstep: a world in lockstep mode advances tick k (its step count before the step) only when every
// controlling member has sent LockstepInput for tick k. The inputs are checked whole when they arrive, and
// again just before the tick steps, when they are applied in join order (control.h: check everything,
// then set; an input that no longer applies changes nothing and its sender gets the error); each
// controller's reply comes when the tick has been stepped, so the reply is also the signal to send tick
// k + 1.
//
// Policy for a controller that does not answer: the first input of a tick starts a timer
// (lockstep_timeout_ms). When it fires, every controller that has not sent its input is demoted to
// observer and told (ControllerDemoted, to everyone in the world), and the tick steps with the inputs
// that did arrive. So one dead client never stalls the others, and a world nobody drives simply waits.
// A demoted controller's client (its address) may not control the world again for LOCKSTEP_BAR_TIMEOUTS
// timeouts, twice that after its next demotion, and so on up to an hour (members.h); the owner is not
// barred from its own world.
#ifndef SINEW_SERVER_LOCKSTEP_H
#define SINEW_SERVER_LOCKSTEP_H

#include "members.h"

#include <uv.h>

#include <stdbool.h>
#include <stdint.h>

#define LOCKSTEP_BAR_TIMEOUTS 10

typedef struct world_host world_host;
typedef struct command_ctx command_ctx;

// A world's lockstep timer: armed by the first input of a tick when others are still missing.
typedef struct lockstep_state
{
	uv_timer_t timer;
	bool armed;
	bool expired; // it fired while the world was busy (a step, a load): the timeout runs once it is idle
} lockstep_state;

// Set up the host's lockstep state on the loop; returns the number of handles it opened, which
// lockstep_close closes with `closed` as their close callback.
int lockstep_init(world_host* host, uv_loop_t* loop);
void lockstep_close(world_host* host, uv_close_cb closed);

// LockstepInput: validate and store; step the tick when it was the last one missing.
int32_t lockstep_submit(command_ctx* ctx);
// A member joined, left, was demoted or the mode changed: the tick may be ready now.
void lockstep_member_changed(world_host* host);
// The world leaves lockstep mode or is destroyed: answer the stored inputs with code.
void lockstep_cancel(world_host* host, int32_t code, const char* reason);
// A member's stored input will not be applied (it leaves): answer it with code, if it sent one.
void lockstep_withdraw(world_host* host, world_member* member, int32_t code, const char* reason);
// The tick's step ended: reply to each controller whose input it applied.
void lockstep_tick_done(world_host* host);
// The input timer of the host fired.
void lockstep_timeout(world_host* host);
// The world is idle again after a step or a job: a timeout that fired meanwhile runs now, and a tick whose
// inputs are all in (or whose missing controllers left meanwhile) fires.
void lockstep_idle(world_host* host);

#endif
