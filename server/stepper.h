// Stepping worlds off the loop thread. A world whose host is busy belongs to the step in progress:
// nothing else touches its sn_world until the step ends, and commands for it wait in its FIFO
// (world_host.c). Steps requested during one loop iteration are gathered into one batch and shared out
// to at most `workers` jobs on libuv's thread pool (sized to the cores in main.c), balanced by each
// world's measured step time, so many small worlds cost a few thread hand-offs, not one each, and
// independent worlds step in parallel. A step whose estimated cost is below inline_step_budget_us runs
// on the loop thread instead: the hand-off would cost more than the step.
//
// After stepping, the worker also encodes the state frames the world's subscriptions will want (one per
// distinct include mask), so the loop only hands out references.
//
// Every job steps its worlds with one step scratch (sn_world_step_with), so the temporaries of a step stay
// in the worker's cache from one world to the next instead of each world bringing its own. The scratches
// are the loop thread's: a job takes one from the pool when it is queued and gives it back when it is done,
// so there are as many as jobs have ever been in flight at once; inline steps use one of their own.
#ifndef SINEW_SERVER_STEPPER_H
#define SINEW_SERVER_STEPPER_H

#include "outbox.h"

#include "sinew/world.h"

#include <uv.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct server;
struct world_host;

enum
{
	STEP_MASKS = 128, // include masks of a frame (7 bits of sinew_v1_Include; contact events are not in frames)
	STEP_MASK_WORDS = STEP_MASKS / 64
};

typedef enum step_kind
{
	STEP_COMMAND = 0,  // a Step command of a paused world: reply when done
	STEP_PACED = 1,    // real time or as fast as possible
	STEP_LOCKSTEP = 2, // one lockstep tick: reply to each controller's input when done
} step_kind;

// One world's step request and, once done, its results. Lives in the world's host.
typedef struct step_item
{
	step_kind kind;
	uint32_t steps;                  // wanted
	uint64_t deadline_ns;            // stop after this CLOCK_MONOTONIC time even if fewer were done; 0: none
	uint64_t masks[STEP_MASK_WORDS]; // bit m set: encode a frame with include mask m afterwards
	// Results, written by whoever ran the step.
	uint32_t done;
	int32_t error; // sn_error of the step that failed, or 0
	char detail[256];
	uint64_t elapsed_ns;
	bool interrupted; // stopped between steps at the stepper's cutoff (shutdown), done < steps
	// The world's clock after the last step, read where the step ran (its memory is in that core's
	// cache), so that the loop's bookkeeping need not pull the world's record across.
	double time;
	double time_step;
	uint64_t step_count;
	bool diverged;
	frame_buf* frames[STEP_MASKS];
} step_item;

typedef struct stepper
{
	struct server* srv;
	int workers;
	struct world_host** batch;
	int batch_count;
	int batch_capacity;
	int jobs_in_flight;
	uv_check_t check; // flushes the batch after the loop's poll phase
	uv_idle_t idle;   // keeps poll from blocking while a batch waits
	bool open;
	sn_step_scratch** scratch_pool; // free scratches (the loop thread's)
	int scratch_count;
	int scratch_capacity;
	sn_step_scratch* inline_scratch; // NULL until the first inline step (or if it could not be made)
	// CLOCK_MONOTONIC time after which no step starts (0: none); steps in progress stop between steps and
	// report what they did (step_item.interrupted). Set by the loop at shutdown, read by the workers.
	_Atomic uint64_t cutoff_ns;
} stepper;

int stepper_init(stepper* st, struct server* srv, int workers);
// Close the stepper's handles (jobs in flight still complete).
void stepper_close(stepper* st);
// From cutoff_ns on no step starts: long steps stop between steps (the shutdown grace deadline).
void stepper_set_cutoff(stepper* st, uint64_t cutoff_ns);

// Queue host's step (host->busy set, host->step filled) for the next batch.
void stepper_submit(stepper* st, struct world_host* host);
// Run host's step now on this thread, then its completion.
void stepper_run_inline(stepper* st, struct world_host* host);

// Step a world as its item says, with the step scratch given (NULL: the world's own), and encode the frames
// asked for. Runs on a worker or inline.
void step_item_run(struct world_host* host, sn_step_scratch* scratch);

#endif
